import { MongoClient, type Collection, type ObjectId } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { maskUrlCredentials } from '../../logging/mask-url-credentials.js';
import type { Logger } from '../../logging/logger.js';
import { runRestartBench, type RestartBenchResult } from './mongo-restart.js';

export interface MongoBenchOptions {
  /** MONGODB_URI; when absent, a memory-only embedded server is started and benchmarked. */
  uri?: string;
  logger: Logger;
  /** Operations timed per single-document operation. */
  operations?: number;
  /** Untimed operations of each kind first, so JIT and caches are warm. */
  warmupOperations?: number;
  insertManyDocuments?: number;
  /** Starts per dbpath in the restart section (embedded server only). */
  restartRuns?: number;
}

export interface MongoBenchResult {
  server: 'embedded' | 'external';
  uri: string;
  node: string;
  operations: number;
  warmup_operations: number;
  ops_per_sec: {
    insertOne: number;
    findOneById: number;
    findOneByUniqueField: number;
    updateOneIncById: number;
  };
  insertMany: { documents: number; ms: number; docs_per_sec: number };
  ratios_vs_insertOne: {
    findOneById: number;
    findOneByUniqueField: number;
    updateOneIncById: number;
    insertManyDocsPerSec: number;
  };
  acceptance: {
    indexedFindOne_at_least_half_of_insertOne: boolean;
    updateOneInc_at_least_half_of_insertOne: boolean;
  };
  /** The embedded server restarted on a dbpath holding the MTG dataset vs an empty one (null with MONGODB_URI). */
  restart: RestartBenchResult | null;
}

interface BenchDocument {
  _id?: ObjectId;
  email: string;
  name: string;
  counter: number;
  tags: string[];
}

function benchDocument(prefix: string, i: number): BenchDocument {
  return { email: `${prefix}-${i}@bench.test`, name: `user ${i}`, counter: 0, tags: ['bench', `group-${i % 10}`] };
}

/**
 * Sequential awaits, one operation in flight: this measures per-operation latency as an actor
 * sees it, which is what the acceptance ratios are about, not pipelined throughput.
 */
export async function runMongoBench({
  uri,
  logger,
  operations = 5_000,
  warmupOperations = 500,
  insertManyDocuments = 10_000,
  restartRuns = 5,
}: MongoBenchOptions): Promise<MongoBenchResult> {
  let embedded: EmbeddedMongo | undefined;
  let serverUri: string;
  if (uri !== undefined) {
    serverUri = uri;
  } else {
    embedded = await startEmbeddedMongo({ port: 0, logger: logger.child({ component: 'embedded-mongo' }) });
    serverUri = embedded.uri;
  }
  const client = new MongoClient(serverUri, { serverSelectionTimeoutMS: 10_000 });
  // A database of its own, so benchmarking a real server never touches troupe's data.
  const db = client.db(`troupe_bench_${process.pid}_${Date.now()}`);
  let result: Omit<MongoBenchResult, 'restart'>;
  try {
    await client.connect();
    logger.info({ uri: maskUrlCredentials(serverUri), db: db.databaseName }, 'benchmarking');

    const warmup = db.collection<BenchDocument>('warmup');
    await warmup.createIndex({ email: 1 }, { unique: true });
    await measureSingleDocumentOps(warmup, 'warmup', warmupOperations);
    await warmup.insertMany(Array.from({ length: Math.min(insertManyDocuments, 1_000) }, (_, i) => benchDocument('warmup-many', i)));

    const docs = db.collection<BenchDocument>('docs');
    await docs.createIndex({ email: 1 }, { unique: true });
    const single = await measureSingleDocumentOps(docs, 'user', operations);

    const many = db.collection<BenchDocument>('many');
    const batch = Array.from({ length: insertManyDocuments }, (_, i) => benchDocument('many', i));
    const started = performance.now();
    await many.insertMany(batch);
    const insertManyMs = performance.now() - started;
    const stored = await many.countDocuments();
    if (stored !== insertManyDocuments) throw new Error(`insertMany stored ${stored} of ${insertManyDocuments} documents`);
    const insertManyDocsPerSec = insertManyDocuments / (insertManyMs / 1_000);

    const ratio = (opsPerSec: number) => round(opsPerSec / single.insertOne, 3);
    const ratios = {
      findOneById: ratio(single.findOneById),
      findOneByUniqueField: ratio(single.findOneByUniqueField),
      updateOneIncById: ratio(single.updateOneIncById),
      insertManyDocsPerSec: ratio(insertManyDocsPerSec),
    };
    result = {
      server: embedded === undefined ? 'external' : 'embedded',
      uri: maskUrlCredentials(serverUri),
      node: process.version,
      operations,
      warmup_operations: warmupOperations,
      ops_per_sec: {
        insertOne: round(single.insertOne),
        findOneById: round(single.findOneById),
        findOneByUniqueField: round(single.findOneByUniqueField),
        updateOneIncById: round(single.updateOneIncById),
      },
      insertMany: { documents: insertManyDocuments, ms: round(insertManyMs, 1), docs_per_sec: round(insertManyDocsPerSec) },
      ratios_vs_insertOne: ratios,
      acceptance: {
        indexedFindOne_at_least_half_of_insertOne: ratios.findOneByUniqueField >= 0.5,
        updateOneInc_at_least_half_of_insertOne: ratios.updateOneIncById >= 0.5,
      },
    };
  } finally {
    await db.dropDatabase().catch((error: unknown) => logger.warn({ err: error }, 'could not drop the bench database'));
    await client.close();
    await embedded?.stop();
  }
  // Starts servers of its own, on temporary dbpaths.
  let restart: RestartBenchResult | null = null;
  if (embedded !== undefined) {
    restart = await runRestartBench({ logger, runs: restartRuns });
    logger.info(
      { restart: { empty_dbpath: restart.empty_dbpath, seeded_dbpath: restart.seeded_dbpath, first_load_ms: restart.first_load_ms } },
      `bench:mongo restart: first command ${restart.seeded_dbpath.first_command_ms} ms on the seeded dbpath (${restart.dataset.dbpath_mb} MB) vs ${restart.empty_dbpath.first_command_ms} ms on an empty one; first meta query answered ${restart.seeded_dbpath.first_meta_query_ms} ms after start`,
    );
  }
  return { ...result, restart };
}

interface SingleDocumentOpsPerSec {
  insertOne: number;
  findOneById: number;
  findOneByUniqueField: number;
  updateOneIncById: number;
}

/** Every operation's result is checked: a fast wrong answer must fail the bench, not win it. */
async function measureSingleDocumentOps(
  collection: Collection<BenchDocument>,
  prefix: string,
  operations: number,
): Promise<SingleDocumentOpsPerSec> {
  const ids: ObjectId[] = [];
  const insertOne = await opsPerSec(operations, async (i) => {
    const { insertedId } = await collection.insertOne(benchDocument(prefix, i));
    ids.push(insertedId);
  });
  const findOneById = await opsPerSec(operations, async (i) => {
    const found = await collection.findOne({ _id: ids[i] });
    if (found?.email !== `${prefix}-${i}@bench.test`) throw new Error(`findOne by _id returned ${JSON.stringify(found)}`);
  });
  const findOneByUniqueField = await opsPerSec(operations, async (i) => {
    const found = await collection.findOne({ email: `${prefix}-${i}@bench.test` });
    if (!found?._id?.equals(ids[i]!)) throw new Error(`findOne by email returned ${JSON.stringify(found)}`);
  });
  const updateOneIncById = await opsPerSec(operations, async (i) => {
    const { matchedCount, modifiedCount } = await collection.updateOne({ _id: ids[i] }, { $inc: { counter: 1 } });
    if (matchedCount !== 1 || modifiedCount !== 1) throw new Error(`updateOne matched ${matchedCount}, modified ${modifiedCount}`);
  });
  const incremented = await collection.countDocuments({ email: { $regex: `^${prefix}-` }, counter: 1 });
  if (incremented !== operations) throw new Error(`$inc reached ${incremented} of ${operations} documents`);
  return { insertOne, findOneById, findOneByUniqueField, updateOneIncById };
}

async function opsPerSec(operations: number, operation: (i: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < operations; i++) await operation(i);
  return operations / ((performance.now() - started) / 1_000);
}

function round(value: number, digits = 0): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
