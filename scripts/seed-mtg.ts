/**
 * `troupe seed mtg [--force]`: loads the bundled MTG tournament dataset into MongoDB (MONGODB_URI or the
 * embedded server), unless it is already there. Progress goes to stderr, the summary to stdout.
 * `troupe seed mtg --verify` loads nothing: it checks the meta aggregates against the raw collections.
 * `troupe seed mtg --add FILE` adds new tournaments (JSON, or gzipped JSON, in the dataset's own record
 * format) to the loaded dataset, their aggregates with them.
 */
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { META_AGGREGATES } from '../models/mtg/meta-aggregates.js';
import { verifyMetaAggregates, type MetaAggregatesCheck } from '../models/mtg/meta-aggregates-verification.js';
import { MTG_COLLECTIONS, mtgDatasetMarker, type SeedMtgResult } from '../models/mtg/seed.js';
import { addMtgTournaments, MtgAdditionError, MtgAdditionRecords, type MtgAdditionResult } from '../models/mtg/tournament-additions.js';
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
  .object({ force: z.boolean().default(false), verify: z.boolean().default(false), add: z.string().min(1, '--add needs a file').optional() })
  .refine((flags) => !(flags.force && flags.verify), { message: '--force and --verify do not go together: --verify loads nothing' })
  .refine((flags) => flags.add === undefined || (!flags.force && !flags.verify), { message: '--add goes alone: it adds to the loaded dataset' });

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

/** 0 when the stored aggregates equal those recomputed from the raw collections; 1 with the first differences otherwise. */
export async function runSeedMtgVerify(config: Config, io = defaultIo): Promise<number> {
  const started = performance.now();
  const logger = createLogger({ ...config.log, level: quieterLogLevel(config.log.level), fd: 2 });
  const mongo = await connectOrReport(config, logger, 'troupe seed mtg --verify', io.stderr);
  if (!mongo) return 1;
  let check: MetaAggregatesCheck;
  try {
    if ((await mtgDatasetMarker(mongo.connection)) === undefined) {
      io.stderr.write('troupe seed mtg --verify: no complete MTG load to verify (no dataset marker); run `troupe seed mtg` first\n');
      return 1;
    }
    check = await verifyMetaAggregates(mongo.connection);
  } finally {
    await mongo.stop();
  }
  io.stdout.write(verifySummary(check, Math.round((performance.now() - started) / 100) / 10));
  return check.differences.length === 0 ? 0 : 1;
}

/** Reads an addition file: JSON, gzipped or not, validated against the dataset's record format. */
async function readAddition(file: string): Promise<MtgAdditionRecords> {
  let bytes = await readFile(file);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new MtgAdditionError(`${file} is not JSON: ${(error as Error).message}`);
  }
  const parsed = MtgAdditionRecords.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`);
    throw new MtgAdditionError(`${file} does not hold {tournaments, decklists, matches} records: ${issues.join('; ')}${parsed.error.issues.length > 5 ? ` (and ${parsed.error.issues.length - 5} more)` : ''}`);
  }
  return parsed.data;
}

/** 0 when the file's tournaments were added; 1, with nothing changed, when they cannot be. */
export async function runSeedMtgAdd(config: Config, file: string, io = defaultIo): Promise<number> {
  const started = performance.now();
  let records: MtgAdditionRecords;
  try {
    records = await readAddition(file);
  } catch (error) {
    io.stderr.write(`troupe seed mtg --add: ${error instanceof MtgAdditionError ? error.message : `cannot read ${file}: ${(error as Error).message}`}\n`);
    return 1;
  }
  const logger = createLogger({ ...config.log, level: quieterLogLevel(config.log.level), fd: 2 });
  const mongo = await connectOrReport(config, logger, 'troupe seed mtg --add', io.stderr);
  if (!mongo) return 1;
  let result: MtgAdditionResult;
  try {
    result = await addMtgTournaments(mongo.connection, records);
  } catch (error) {
    if (!(error instanceof MtgAdditionError)) throw error;
    io.stderr.write(`troupe seed mtg --add: ${error.message}; nothing was added\n`);
    return 1;
  } finally {
    await mongo.stop();
  }
  io.stdout.write(addSummary(result, Math.round((performance.now() - started) / 100) / 10));
  return 0;
}

export function addSummary(result: MtgAdditionResult, seconds: number): string {
  const { added, aggregates_written, marker } = result;
  return (
    `added ${count(added.tournaments)} tournaments, ${count(added.decklists)} decklists and ${count(added.matches)} matches ` +
    `(dataset now as of ${marker.as_of}, revision ${marker.revision}); ${count(aggregates_written)} aggregate documents updated (${seconds.toFixed(1)} s).\n`
  );
}

/** What --verify found. */
export function verifySummary(check: MetaAggregatesCheck, seconds: number): string {
  const checked = `${META_AGGREGATES.map((name) => `${count(check.documents[name])} mtg_${name}`).join(', ')} documents`;
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
