/**
 * `troupe seed mtg [--force]`: loads the bundled MTG tournament dataset into MongoDB (MONGODB_URI or the
 * embedded server), unless it is already there. Progress goes to stderr, the summary to stdout.
 */
import { MTG_COLLECTIONS, type SeedMtgResult } from '../models/mtg/seed.js';
import { connectOrReport, quieterLogLevel } from './command-mongo.js';
import type { Config } from './config.js';
import { seedMtgFast } from './load-mtg-dataset.js';
import { createLogger } from '../logging/logger.js';
import { count, progressBar, type ProgressOutput } from './progress-bar.js';

export interface SeedCommandIo {
  stdout: Pick<NodeJS.WriteStream, 'write'>;
  stderr: ProgressOutput;
}

const defaultIo: SeedCommandIo = { stdout: process.stdout, stderr: process.stderr };

export async function runSeedMtg(config: Config, { force = false }: { force?: boolean } = {}, io = defaultIo): Promise<number> {
  const logger = createLogger({ ...config.log, level: quieterLogLevel(config.log.level), fd: 2 });
  const mongo = await connectOrReport(config, logger, 'troupe seed mtg', io.stderr);
  if (!mongo) return 1;
  const bar = progressBar(io.stderr);
  let result: SeedMtgResult;
  try {
    result = await seedMtgFast(mongo.connection, {
      force,
      onProgress: (p) => bar.update({ step: p.collection, stepDone: p.done, stepTotal: p.total, done: p.overallDone, total: p.overallTotal }),
    });
  } finally {
    bar.finish();
    await mongo.stop();
  }
  io.stdout.write(seedSummary(result));
  return 0;
}

/** What a seed did, counts per collection and seconds. */
export function seedSummary(result: SeedMtgResult): string {
  const width = Math.max(...MTG_COLLECTIONS.map((name) => name.length));
  const counts = MTG_COLLECTIONS.map((name) => `  ${name.padEnd(width)}  ${count(result.counts[name]).padStart(6)}\n`).join('');
  const asOf = `as of ${result.marker.as_of}`;
  if (result.status === 'already-loaded') {
    return (
      `MTG dataset (${asOf}) already loaded on ${result.marker.loaded_at.toISOString()}; nothing changed (${result.seconds.toFixed(2)} s).\n` +
      `${counts}Reload it with: troupe seed mtg --force\n`
    );
  }
  const before = {
    nothing: '',
    partial: ' after clearing an interrupted earlier load',
    outdated: ' replacing an older version of the dataset',
    forced: ' replacing the previous load (--force)',
  }[result.replaced];
  return `MTG dataset (${asOf}) loaded in ${result.seconds.toFixed(1)} s${before}:\n${counts}`;
}
