/**
 * What drain tests share: an embedded MongoDB, real Redis connections, the mailboxes and schedule queue
 * of a worker under a prefix of their own, and `deps()` — what a worker hands each drain (a fresh one
 * per drain, as each BullMQ job gets).
 */
import { randomUUID } from 'node:crypto';
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
import { DrainWakeups } from '../../queues/drain-wakeups.js';
import { pollUntil } from './async.js';
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

/** A drain fixture whose drains can linger: a wake-up subscription of their own, listening. */
export interface LingeringDrainFixture extends DrainFixture {
  wakeups: DrainWakeups;
  /** What a worker hands a drain that lingers `lingerMs` (less when `stopping` aborts). */
  lingering(lingerMs: number, stopping?: AbortSignal): DrainDeps;
}

export async function lingeringDrainFixture(name: string): Promise<LingeringDrainFixture> {
  const fixture = await drainFixture(name);
  const wakeups = new DrainWakeups(REDIS_URL, fixture.names.drainWake(randomUUID()));
  try {
    await pollUntil(() => wakeups.listening, { timeoutMs: 5_000, intervalMs: 5, what: 'the wake-up subscription' });
  } catch (error) {
    // No after() closes what a failed before() made.
    await wakeups.close();
    await fixture.close();
    throw error;
  }
  return {
    ...fixture,
    wakeups,
    lingering: (lingerMs, stopping) => fixture.deps({ stopping, linger: { wakeups, ms: lingerMs, drainerTtlMs: 10_000, allowed: () => true } }),
    async close() {
      await wakeups.close();
      await fixture.close();
    },
  };
}
