/**
 * `troupe start` loads the bundled MTG dataset on the first start of a database (and again when the
 * shipped dataset changed); afterwards the check is one marker lookup and a hash of the files.
 */
import type { Connection } from 'mongoose';
import { seedMtg } from '../models/mtg/seed.js';
import type { Logger } from './logger.js';

/**
 * A failed load is logged, not thrown: everything but the MTG meta tools works without the data,
 * and `troupe seed mtg` can load it later.
 */
export async function loadMtgDatasetOnStart(connection: Connection, logger: Logger): Promise<void> {
  try {
    const result = await seedMtg(connection, {
      onProgress: (p) => {
        if (p.done === p.total) logger.info({ collection: p.collection, count: p.total }, `MTG dataset: loaded ${p.total} ${p.collection}`);
      },
    });
    if (result.status === 'already-loaded') {
      logger.debug({ asOf: result.marker.as_of }, 'MTG dataset already loaded');
    } else {
      logger.info({ asOf: result.marker.as_of, counts: result.counts, seconds: result.seconds, replaced: result.replaced }, `MTG dataset loaded in ${result.seconds} s`);
    }
  } catch (error) {
    logger.error({ err: error }, 'could not load the MTG dataset; the MTG meta tools will find no data until `troupe seed mtg` succeeds');
  }
}
