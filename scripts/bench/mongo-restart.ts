/**
 * `npm run bench:mongo`, restart section: the embedded server started on a dbpath holding the bundled
 * MTG dataset (what `troupe start` does after its first start) against a start on an empty dbpath in
 * the same run. Measured: the time from startEmbeddedMongo to the first answered command, and to the
 * answer of a first meta query (what get_format_meta_rankings asks MongoDB: formats, newest day, deck
 * and match tallies of two windows, which reads tournaments, decklists and matches). Also the first
 * start's dataset load (as `troupe start` does it) and the time to read every collection.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import mongoose from 'mongoose';
import { formatWindow } from '../../actors/meta/format-meta.js';
import { MetaQueries } from '../../actors/meta/meta-queries.js';
import { windowBefore } from '../../actors/meta/time-window.js';
import { startEmbeddedMongo } from '../../models/embedded/index.js';
import { MTG_COLLECTIONS } from '../../models/mtg/seed.js';
import { loadMtgDatasetOnStart } from '../load-mtg-dataset.js';
import type { Logger } from '../../logging/logger.js';
import { median } from './troupe-processes.js';

export interface RestartBenchResult {
  runs: number;
  dataset: { documents: number; collections: number; dbpath_mb: number };
  /** First start: the dataset loaded into an empty dbpath, as `troupe start` loads it (durable when done). */
  first_load_ms: number;
  /** The stop after it: the checkpoint that writes the collection files. */
  first_stop_ms: number;
  /** Medians over `runs` starts. */
  empty_dbpath: { first_command_ms: number };
  seeded_dbpath: { first_command_ms: number; first_meta_query_ms: number; every_collection_read_ms: number };
  samples: { empty_first_command_ms: number[]; seeded_first_command_ms: number[]; seeded_first_meta_query_ms: number[]; seeded_every_collection_read_ms: number[] };
}

const DB = 'troupe';
const round = (n: number) => Math.round(n * 10) / 10;
const medianOf = (values: number[]) => round(median(values));

/** Starts a server on `dbpath` and measures its first answered command (a new client's connect + ping). */
async function timedStart(dbpath: string, logger: Logger) {
  const started = performance.now();
  const server = await startEmbeddedMongo({ port: 0, dbpath, logger: logger.child({ component: 'embedded-mongo' }) });
  const client = new MongoClient(`${server.uri}&directConnection=true`, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  await client.db('admin').command({ ping: 1 });
  const firstCommandMs = performance.now() - started;
  return { server, client, started, firstCommandMs };
}

async function firstMetaQuery(connection: mongoose.Connection): Promise<number> {
  const queries = new MetaQueries(connection);
  const formats = await queries.formats();
  if (formats.length === 0) throw new Error('no MTG data in the seeded dbpath');
  const { format, window } = await formatWindow(queries, formats.includes('Modern') ? 'Modern' : formats[0], 30);
  const [[decks], [matches]] = await Promise.all([queries.deckTallies(format, [window, windowBefore(window, 30)]), queries.matchTallies(format, [window, windowBefore(window, 30)])]);
  if (decks.length === 0 || matches.length === 0) throw new Error(`the first meta query found no ${decks.length === 0 ? 'decks' : 'matches'} for ${format}`);
  return decks.length + matches.length;
}

export async function runRestartBench({ logger, runs = 5 }: { logger: Logger; runs?: number }): Promise<RestartBenchResult> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'troupe-bench-restart-'));
  const seeded = path.join(root, 'seeded');
  try {
    // The first start: an empty dbpath, the dataset loaded the way `troupe start` loads it.
    const first = await startEmbeddedMongo({ port: 0, dbpath: seeded, logger: logger.child({ component: 'embedded-mongo' }) });
    const connection = await mongoose.createConnection(first.uri, { dbName: DB }).asPromise();
    const loadStarted = performance.now();
    await loadMtgDatasetOnStart(connection, logger.child({ component: 'seed' }));
    const firstLoadMs = performance.now() - loadStarted;
    const counts = await Promise.all(MTG_COLLECTIONS.map((name) => connection.collection(`mtg_${name}`).estimatedDocumentCount()));
    await connection.close();
    const stopStarted = performance.now();
    await first.stop();
    const firstStopMs = performance.now() - stopStarted;
    const files = await readdir(seeded);
    const bytes = (await Promise.all(files.map((f) => stat(path.join(seeded, f))))).reduce((n, s) => n + s.size, 0);

    const samples: RestartBenchResult['samples'] = { empty_first_command_ms: [], seeded_first_command_ms: [], seeded_first_meta_query_ms: [], seeded_every_collection_read_ms: [] };
    for (let run = 0; run < runs; run++) {
      // Baseline in the same run: an empty dbpath.
      const empty = path.join(root, `empty-${run}`);
      const baseline = await timedStart(empty, logger);
      samples.empty_first_command_ms.push(round(baseline.firstCommandMs));
      await baseline.client.close();
      await baseline.server.stop();

      const restart = await timedStart(seeded, logger);
      samples.seeded_first_command_ms.push(round(restart.firstCommandMs));
      const meta = await mongoose.createConnection(restart.server.uri, { dbName: DB }).asPromise();
      await firstMetaQuery(meta);
      samples.seeded_first_meta_query_ms.push(round(performance.now() - restart.started));
      // The rest: every other collection read once (a query that must look at every document).
      await Promise.all((await meta.db!.listCollections().toArray()).map((c) => meta.db!.collection(c.name).countDocuments({ _never: true })));
      samples.seeded_every_collection_read_ms.push(round(performance.now() - restart.started));
      await meta.close();
      await restart.client.close();
      await restart.server.stop();
    }
    return {
      runs,
      dataset: { documents: counts.reduce((a, b) => a + b, 0), collections: counts.length, dbpath_mb: round(bytes / 1024 / 1024) },
      first_load_ms: round(firstLoadMs),
      first_stop_ms: round(firstStopMs),
      empty_dbpath: { first_command_ms: medianOf(samples.empty_first_command_ms) },
      seeded_dbpath: {
        first_command_ms: medianOf(samples.seeded_first_command_ms),
        first_meta_query_ms: medianOf(samples.seeded_first_meta_query_ms),
        every_collection_read_ms: medianOf(samples.seeded_every_collection_read_ms),
      },
      samples,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
