/**
 * The naive peer's worker (an entry point, run through tsx): a BullMQ Worker at concurrency 50 applying
 * each `say` to its echo actor with one `findOneAndUpdate` ($inc, upsert), the way one writes it without
 * troupe. Nothing keeps one actor's messages in order: up to 50 run at once, whichever actor they are for.
 *
 * For the benchmark it also counts ordering violations: a message whose actor had already seen a
 * later-arrived message (by the gateway's per-actor sequence number) ran out of order.
 */
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import mongoose, { Schema } from 'mongoose';
import { ACTORS_COLLECTION, PeerEnv, SayJob, violationsKey, type SayReply } from './contract.js';

const CONCURRENCY = 50;

interface ActorDoc {
  _id: string;
  count: number;
  /** The highest arrival sequence number applied so far. */
  lastSeq: number;
}

const env = PeerEnv.parse(process.env);
const connection = await mongoose.createConnection(env.MONGODB_URI, { dbName: env.MONGODB_DB }).asPromise();
const actors = connection.model<ActorDoc>(
  'NaivePeerActor',
  new Schema<ActorDoc>({ _id: { type: String, required: true }, count: { type: Number, default: 0 }, lastSeq: { type: Number, default: 0 } }, { collection: ACTORS_COLLECTION, versionKey: false }),
);
const counter = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 3 });
const violations = violationsKey(env.NAIVE_PEER_QUEUE);

async function handle(job: Job): Promise<SayReply> {
  const { actorId, text, seq } = SayJob.parse(job.data);
  // The document as it was before this update: its count gives the reply, its lastSeq the order check.
  const before = await actors
    .findOneAndUpdate({ _id: actorId }, { $inc: { count: 1 }, $max: { lastSeq: seq } }, { upsert: true, returnDocument: 'before' })
    .lean()
    .exec();
  // Counted in Redis before the job completes, so once a client has its reply the count includes it;
  // only out-of-order messages pay for the write.
  if (before && before.lastSeq > seq) await counter.incr(violations);
  return { text, count: (before?.count ?? 0) + 1 };
}

const workerRedis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
const worker = new Worker(env.NAIVE_PEER_QUEUE, handle, { connection: workerRedis, concurrency: CONCURRENCY });
worker.on('error', (error) => console.error('naive peer worker: redis error', error));
await worker.waitUntilReady();
console.log(`naive peer worker ready (queue ${env.NAIVE_PEER_QUEUE}, concurrency ${CONCURRENCY})`);

async function shutdown() {
  // Lets the jobs in hand finish, so no client is left waiting on a half-done message.
  await worker.close();
  workerRedis.disconnect();
  counter.disconnect();
  await connection.close();
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown());
process.once('SIGINT', () => void shutdown());
