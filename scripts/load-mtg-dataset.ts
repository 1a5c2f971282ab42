/**
 * `troupe start` loads the bundled MTG dataset on the first start of a database (and again when the
 * shipped dataset changed); afterwards the check is one marker lookup and a hash of the files.
 */
import type { Connection } from 'mongoose';
import { embeddedMongoInThisProcess, type EmbeddedMongo } from '../models/embedded/index.js';
import { mtgAggregateModels, mtgModels, seedMtg, type SeedMtgOptions, type SeedMtgResult } from '../models/mtg/seed.js';
import type { Logger } from '../logging/logger.js';

/** Documents per insert when the embedded server runs in this process (one journal sync each). */
const IN_PROCESS_BATCH = 5000;

/**
 * A failed load is logged, not thrown: everything but the MTG meta tools works without the data,
 * and `troupe seed mtg` can load it later.
 */
export async function loadMtgDatasetOnStart(connection: Connection, logger: Logger): Promise<void> {
  try {
    const result = await seedMtgFast(connection, {
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

/** seedMtg, inserting without the wire when MongoDB is the embedded server this process runs. */
export async function seedMtgFast(connection: Connection, options: SeedMtgOptions = {}): Promise<SeedMtgResult> {
  const server = embeddedMongoInThisProcess(connection.host, connection.port);
  if (!server) return seedMtg(connection, options);
  const restore = insertWithoutTheWire(connection, server);
  try {
    return await seedMtg(connection, { batchSize: IN_PROCESS_BATCH, ...options });
  } finally {
    restore();
  }
}

/**
 * While the dataset loads into the embedded server this process runs, the MTG models' insertMany (the
 * daily counts' included) goes to that server directly (EmbeddedMongo.insertMany: the same insert
 * command, durable on return) instead of through the driver and the wire, where serializing and
 * parsing 80 MB of documents took most of the load's time. Returns what puts the models' own insertMany back.
 */
function insertWithoutTheWire(connection: Connection, server: EmbeddedMongo): () => void {
  const models = [...Object.values(mtgModels(connection)), ...Object.values(mtgAggregateModels(connection))];
  for (const model of models) {
    const collection = model.collection.collectionName;
    const insertMany = async (docs: object[], options: { ordered?: boolean } = {}) => {
      const result = await server.insertMany(connection.name, collection, docs as Array<Record<string, unknown>>, { ordered: options.ordered ?? true });
      if (result.writeErrors?.length) {
        const first = result.writeErrors[0];
        throw new Error(`inserting into ${collection}: ${result.writeErrors.length} documents failed, the first with ${String(first.codeName)}: ${String(first.errmsg)}`);
      }
      return docs;
    };
    Object.defineProperty(model, 'insertMany', { value: insertMany, configurable: true, writable: true });
  }
  return () => {
    for (const model of models) delete (model as unknown as Record<string, unknown>).insertMany;
  };
}
