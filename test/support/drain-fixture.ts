/**
 * What drain tests share: an embedded MongoDB, real Redis connections, the mailboxes and schedule queue
 * of a worker under a prefix of their own, and `deps()` — what a worker hands each drain (a fresh one
 * per drain, as each BullMQ job gets).
 */
import { Queue } from 'bullmq';
import { createRedisClient, type RedisClient } from '../../queues/redis-client.js';
import { deleteRedisPrefix } from './redis-prefix.js';
import mongoose from 'mongoose';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { actorRecords, ActorStore } from '../../models/actor-record.js';
import { Mailboxes } from '../../queues/mailbox.js';
import { Batches } from '../../actors/runtime/batches.js';
import { Effects } from '../../actors/runtime/effects.js';
import type { DrainDeps } from '../../actors/runtime/drain.js';
import { offlineNarrator } from '../../actors/llm/offline-narrator.js';
import { testNames } from './test-names.js';
import type { RedisNames } from '../../queues/keys.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = { info() {}, warn() {}, error() {}, debug() {} };

export interface DrainFixture {
  names: RedisNames;
  conn: mongoose.Connection;
  redis: RedisClient;
  mailboxes: Mailboxes;
  deps(extra?: Partial<DrainDeps>): DrainDeps;
  close(): Promise<void>;
}

export async function drainFixture(name: string): Promise<DrainFixture> {
  const names = testNames(`test-${name}-${process.pid}-${Date.now().toString(36)}`);
  const mongo: EmbeddedMongo = await startEmbeddedMongo({ port: 0 });
  const conn = await mongoose.createConnection(mongo.uri, { dbName: name }).asPromise();
  const redis = createRedisClient(REDIS_URL, { enableAutoPipelining: true });
  const queueConnection = createRedisClient(REDIS_URL, { maxRetriesPerRequest: null });
  const mailboxes = new Mailboxes(redis, queueConnection, names);
  const schedule = new Queue(names.scheduleQueue().name, { connection: queueConnection, prefix: names.scheduleQueue().prefix });
  return {
    names,
    conn,
    redis,
    mailboxes,
    deps: (extra = {}) => ({
      redis,
      names,
      mailboxes,
      store: new ActorStore(actorRecords(conn)),
      effects: new Effects(redis, mailboxes, schedule, new Batches(conn, redis, names), names),
      logger: silent,
      resources: { mongo: conn, narrator: offlineNarrator(), chatModel: null, mcp: { url: () => undefined, headersFor: async () => ({}) }, embedder: null, gateTimeoutMs: null },
      signal: new AbortController().signal,
      ...extra,
    }),
    async close() {
      await schedule.close();
      await mailboxes.close();
      redis.disconnect();
      queueConnection.disconnect();
      await deleteRedisPrefix(names.prefix, REDIS_URL);
      await conn.close();
      await mongo.stop();
    },
  };
}
