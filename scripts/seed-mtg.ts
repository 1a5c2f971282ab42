/**
 * `troupe seed mtg [--force]`: loads the bundled MTG tournament dataset into MongoDB (MONGODB_URI or the
 * embedded server), unless it is already there. Progress goes to stderr, the summary to stdout.
 * `troupe seed mtg --verify` loads nothing: it checks the daily counts against the raw collections.
 */
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { verifyDailyCounts, type DailyCountsCheck } from '../models/mtg/daily-counts-verification.js';
import { MTG_COLLECTIONS, mtgDatasetMarker, type SeedMtgResult } from '../models/mtg/seed.js';
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

/** `seed mtg`'s options as commander parses them. */
export const SeedMtgFlags = z
  .object({ force: z.boolean().default(false), verify: z.boolean().default(false) })
  .refine((flags) => !(flags.force && flags.verify), { message: '--force and --verify do not go together: --verify loads nothing' });

/** Differences listed in full; the rest are counted. */
const LISTED_DIFFERENCES = 20;

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

/** 0 when the stored daily counts equal those recomputed from the raw collections; 1 with the first differences otherwise. */
export async function runSeedMtgVerify(config: Config, io = defaultIo): Promise<number> {
  const started = performance.now();
  const logger = createLogger({ ...config.log, level: quieterLogLevel(config.log.level), fd: 2 });
  const mongo = await connectOrReport(config, logger, 'troupe seed mtg --verify', io.stderr);
  if (!mongo) return 1;
  let check: DailyCountsCheck;
  try {
    if ((await mtgDatasetMarker(mongo.connection)) === undefined) {
      io.stderr.write('troupe seed mtg --verify: no complete MTG load to verify (no dataset marker); run `troupe seed mtg` first\n');
      return 1;
    }
    check = await verifyDailyCounts(mongo.connection);
  } finally {
    await mongo.stop();
  }
  io.stdout.write(verifySummary(check, Math.round((performance.now() - started) / 100) / 10));
  return check.differences.length === 0 ? 0 : 1;
}

/** What --verify found. */
export function verifySummary(check: DailyCountsCheck, seconds: number): string {
  const checked = `${count(check.documents.decks)} mtg_daily_decks and ${count(check.documents.matches)} mtg_daily_matches documents`;
  if (check.differences.length === 0) return `aggregates match: ${checked} recomputed from mtg_decklists and mtg_matches (${seconds.toFixed(1)} s).\n`;
  const listed = check.differences.slice(0, LISTED_DIFFERENCES).map((difference) => `  ${difference}\n`).join('');
  const more = check.differences.length > LISTED_DIFFERENCES ? `  … and ${check.differences.length - LISTED_DIFFERENCES} more\n` : '';
  return (
    `aggregates differ from mtg_decklists and mtg_matches in ${count(check.differences.length)} figure${check.differences.length === 1 ? '' : 's'} (${checked} recomputed):\n` +
    `${listed}${more}Rebuild them with: troupe seed mtg --force\n`
  );
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
