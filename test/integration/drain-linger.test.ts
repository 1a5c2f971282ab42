/**
 * Lingering drains (real Redis, embedded Mongo): a drain that has emptied its actor's mailbox waits a
 * moment; a message posted meanwhile wakes it and needs no new drain job. Leaving is atomic with the
 * last read, so afterwards posts add drain jobs again and nothing is left behind in Redis.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { actorRecords, ActorStore } from '../../models/actor-record.js';
import { Mailboxes } from '../../queues/mailbox.js';
import { envelope } from '../../queues/envelope.js';
import { RedisNames } from '../../queues/keys.js';
import { DrainWakeups } from '../../queues/drain-wakeups.js';
import { drainActor, type DrainDeps } from '../../actors/runtime/drain.js';
import { Effects } from '../../actors/runtime/effects.js';
import { Batches } from '../../actors/runtime/batches.js';
import { counterKind, type CounterState } from '../support/test-kinds.js';
import type { ActorKind } from '../../actors/runtime/contract.js';
import { pollUntil } from '../support/async.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = { info() {}, warn() {}, error() {}, debug() {} };
const kind = counterKind as ActorKind<unknown>;

describe('lingering drains', function () {
  this.timeout(30_000);
  const names = new RedisNames(`test-linger-${process.pid}-${Date.now().toString(36)}`);
  let mongo: EmbeddedMongo;
  let conn: mongoose.Connection;
  let redis: Redis;
  let queueConnection: Redis;
  let mailboxes: Mailboxes;
  let schedule: Queue;
  let wakeups: DrainWakeups;

  const deps = (lingerMs: number, stopping?: AbortSignal): DrainDeps => ({
    redis,
    names,
    mailboxes,
    store: new ActorStore(actorRecords(conn)),
    effects: new Effects(redis, mailboxes, schedule, new Batches(conn, redis, names), names),
    logger: silent,
    signal: new AbortController().signal,
    stopping,
    linger: { wakeups, ms: lingerMs, drainerTtlMs: 10_000, allowed: () => true },
  });
  const add = (actor: { kind: string; id: string }, seq: number) => mailboxes.post(envelope({ actor, ownerId: 'u1', type: 'add', payload: { n: 1, seq } }));
  const stateOf = async (actor: { kind: string; id: string }) => (await actorRecords(conn).findOne({ _id: `${actor.kind}:${actor.id}` }).lean())?.state as CounterState | undefined;

  before(async function () {
    mongo = await startEmbeddedMongo({ port: 0 });
    conn = await mongoose.createConnection(mongo.uri, { dbName: 'linger' }).asPromise();
    redis = new Redis(REDIS_URL, { enableAutoPipelining: true });
    queueConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    mailboxes = new Mailboxes(redis, queueConnection, names);
    schedule = new Queue(names.scheduleQueue(), { connection: queueConnection });
    wakeups = new DrainWakeups(REDIS_URL, names.drainWake(randomUUID()));
    await pollUntil(() => wakeups.listening, { timeoutMs: 5_000, intervalMs: 5, what: 'the wake-up subscription' });
  });

  after(async function () {
    await mailboxes.drainQueue('counter').obliterate({ force: true }).catch(() => undefined);
    await schedule.obliterate({ force: true }).catch(() => undefined);
    await schedule.close();
    await mailboxes.close();
    await wakeups.close();
    redis.disconnect();
    queueConnection.disconnect();
    await conn.close();
    await mongo.stop();
  });

  it('a message posted while the drain lingers wakes it and adds no drain job; after it leaves, posts add jobs again', async function () {
    const actor = { kind: 'counter', id: `linger-${randomUUID()}` };
    expect((await add(actor, 0)).drainJobAdded, 'no drain yet: the first post adds a job').to.equal(true);
    const stopping = new AbortController();
    const draining = drainActor(kind, actor, deps(10_000, stopping.signal));
    await pollUntil(async () => (await stateOf(actor))?.count === 1, { timeoutMs: 10_000, intervalMs: 5, what: 'the first message applied' });
    const second = await add(actor, 1);
    expect(second.drainJobAdded, 'the lingering drain is woken instead').to.equal(false);
    await pollUntil(async () => (await stateOf(actor))?.count === 2, { timeoutMs: 10_000, intervalMs: 5, what: 'the second message applied by the same drain' });
    // Ends the linger now rather than after its 10 s.
    stopping.abort();
    expect(await draining).to.equal('drained');
    expect(await redis.exists(names.drainer(actor), names.mailbox(actor)), 'no drainer key, no empty mailbox').to.equal(0);
    expect((await add(actor, 2)).drainJobAdded, 'with the drain gone, a post adds a job').to.equal(true);
    expect(await drainActor(kind, actor, deps(0))).to.equal('drained');
    expect((await stateOf(actor))?.seen).to.deep.equal([0, 1, 2]);
  });

  it('stops lingering at once when the worker is stopping', async function () {
    const actor = { kind: 'counter', id: `linger-stop-${randomUUID()}` };
    await add(actor, 0);
    const stopping = new AbortController();
    const draining = drainActor(kind, actor, deps(60_000, stopping.signal));
    await pollUntil(async () => (await stateOf(actor))?.count === 1, { timeoutMs: 10_000, intervalMs: 5, what: 'the message applied' });
    stopping.abort();
    expect(await draining).to.equal('drained');
    expect(await redis.exists(names.drainer(actor))).to.equal(0);
  });

  it('a drain that stops early gives up its drainer key, so later posts add jobs', async function () {
    const actor = { kind: 'counter', id: `linger-fenced-${randomUUID()}` };
    await add(actor, 0);
    expect(await drainActor(kind, actor, deps(0))).to.equal('drained');
    await add(actor, 1);
    await add(actor, 2);
    // A drain interrupted before its first turn (shutdown): the messages stay, the key goes.
    const stopping = new AbortController();
    stopping.abort();
    expect(await drainActor(kind, actor, deps(1_000, stopping.signal))).to.equal('interrupted');
    expect(await redis.exists(names.drainer(actor))).to.equal(0);
    expect(await mailboxes.pending(actor)).to.equal(2);
    expect((await add(actor, 3)).drainJobAdded).to.equal(true);
    expect(await drainActor(kind, actor, deps(0))).to.equal('drained');
    expect((await stateOf(actor))?.seen).to.deep.equal([0, 1, 2, 3]);
  });
});
