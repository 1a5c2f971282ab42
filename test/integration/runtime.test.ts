import { expect } from 'chai';
import mongoose from 'mongoose';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { ActorClient } from '../../actors/runtime/client.js';
import { startWorkers, type RunningWorkers } from '../../actors/runtime/workers.js';
import { testKinds, type CounterState } from '../support/test-kinds.js';
import { sendInOrder } from '../support/ordered-sends.js';
import { pollUntil } from '../support/async.js';
import type { CommitResult, RuntimeObserver } from '../../actors/runtime/observer.js';
import { hop, type Hop } from '../../queues/hop-trace.js';
import { HopTracer } from '../../gateway/hop-tracer.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { testNames } from '../support/test-names.js';
import { actorRecords } from '../../models/actor-record.js';
import { refKey } from '../../queues/envelope.js';
import { createRedisClient, isCluster } from '../../queues/redis-client.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = { info() {}, warn() {}, error() {}, debug() {} };

describe('actor runtime (in-process worker, real Redis, embedded Mongo)', function () {
  let mongo: EmbeddedMongo;
  let conn: mongoose.Connection;
  let client: ActorClient;
  let workers: RunningWorkers;
  const run = `t${Date.now()}`;
  // Its own key and queue names: other test runs sharing this Redis never see these messages.
  const names = testNames(`test-runtime-${process.pid}`);
  const observed: { turns: Array<[string, string]>; commits: Array<[string, CommitResult]> } = { turns: [], commits: [] };
  const observer: RuntimeObserver = {
    turnFinished: (kind, outcome) => observed.turns.push([kind, outcome]),
    commitFinished: (kind, result) => observed.commits.push([kind, result]),
  };

  before(async function () {
    mongo = await startEmbeddedMongo({ port: 0 });
    conn = await mongoose.createConnection(mongo.uri, { dbName: 'runtime_test' }).asPromise();
    client = new ActorClient(REDIS_URL, conn, testKinds, names);
    workers = await startWorkers({ redisUrl: REDIS_URL, mongo: conn, kinds: testKinds, logger: silent, names, observer });
  });

  after(async function () {
    await workers.close();
    await client.close();
    await conn.close();
    await mongo.stop();
    await deleteRedisPrefix(names.prefix);
  });

  const events = async (stream: string) => (await client.reply(stream, { idleTimeoutMs: 20_000 })).map((e) => [e.event, e.data]);

  it('applies a message and streams reply then done', async function () {
    const sent = await client.send({ actor: { kind: 'counter', id: `${run}-a` }, ownerId: 'u1', type: 'add', payload: { n: 2 } });
    expect(await events(sent.replyStream)).to.deep.equal([
      ['reply', { count: 2 }],
      ['done', { messageId: sent.messageId }],
    ]);
  });

  it('appends what a turn publishes to the actor’s feed in the script that answers it: the feed holds it once the reply is out', async function () {
    const actor = { kind: 'counter', id: `${run}-announce` };
    const redis = createRedisClient(REDIS_URL);
    try {
      for (const text of ['first', 'second']) {
        const sent = await client.send({ actor, ownerId: 'u1', type: 'announce', payload: { text } });
        expect(await events(sent.replyStream)).to.deep.equal([
          ['reply', { announced: true }],
          ['done', { messageId: sent.messageId }],
        ]);
        // No wait: the reply and the feed entries were written by one script, and so was the outbox marker.
        const feed = await client.readAll(names.feed(actor));
        expect(feed.slice(-2).map((e) => [e.event, e.data])).to.deep.equal([
          ['announced', { to: null, data: { text } }],
          ['noted', { to: 'u1', data: { text } }],
        ]);
        const record = await actorRecords(conn).findOne({ _id: refKey(actor) }).lean();
        expect(await redis.get(names.outboxDone(actor))).to.equal(record!.appliedSeq);
      }
      expect(await client.readAll(names.feed(actor))).to.have.length(4);
    } finally {
      redis.disconnect();
    }
  });

  it('returns a traced message’s hops in its done event, in the order they happened, and logs them at the gateway', async function () {
    const received = hop('received');
    const sent = await client.send({ actor: { kind: 'counter', id: `${run}-traced` }, ownerId: 'u1', type: 'add', payload: { n: 1 }, trace: [received, hop('admitted')] });
    const logged: unknown[] = [];
    const tracer = new HopTracer({ ...silent, info: (fields: unknown) => logged.push(fields) } as never);
    const replies = await client.reply(sent.replyStream, { idleTimeoutMs: 20_000, onEvent: (e) => tracer.heard('counter', e) });
    const done = replies.find((e) => e.event === 'done')!.data as { messageId: string; trace: Hop[] };
    expect(done.messageId).to.equal(sent.messageId);
    expect(done.trace.map(([name]) => name)).to.deep.equal(['received', 'admitted', 'posting', 'turn_start', 'turn_end', 'committed']);
    const times = done.trace.map(([, at]) => at);
    expect(times).to.deep.equal([...times].sort((x, y) => x - y));
    expect(logged).to.have.length(1);
    const hops = (logged[0] as { hops_ms: Record<string, number> }).hops_ms;
    expect(Object.keys(hops)).to.deep.equal(['received', 'admitted', 'posting', 'turn_start', 'turn_end', 'committed', 'reply_heard']);
    expect(hops.received).to.equal(0);
    // An untraced message's done event carries no hops.
    const plain = await client.send({ actor: { kind: 'counter', id: `${run}-traced` }, ownerId: 'u1', type: 'add', payload: { n: 1 } });
    expect((await events(plain.replyStream)).at(-1)).to.deep.equal(['done', { messageId: plain.messageId }]);
  });

  it('keeps per-actor order and one turn at a time under concurrency', async function () {
    const ids = Array.from({ length: 5 }, (_, i) => `${run}-order-${i}`);
    const sent = await sendInOrder(client, ids, 40);
    await Promise.all(sent.map((s) => events(s.replyStream)));
    for (const id of ids) {
      const state = (await client.state({ kind: 'counter', id }, 'u1')) as CounterState;
      expect(state.count).to.equal(40);
      expect(state.seen).to.deep.equal([...Array(40).keys()]);
      expect(state.maxConcurrent).to.equal(1);
    }
  });

  it('answers a duplicate idempotency key with the first reply, applying once', async function () {
    const actor = { kind: 'counter', id: `${run}-idem` };
    const a = await client.send({ actor, ownerId: 'u1', type: 'add', payload: { n: 5 }, idempotencyKey: `${run}-k1` });
    const b = await client.send({ actor, ownerId: 'u1', type: 'add', payload: { n: 5 }, idempotencyKey: `${run}-k1` });
    expect(b.duplicate).to.equal(true);
    expect(b.messageId).to.equal(a.messageId);
    expect(await events(b.replyStream)).to.deep.include(['reply', { count: 5 }]);
    expect(((await client.state(actor, 'u1')) as CounterState).count).to.equal(5);
  });

  it('streams partial events before the reply, and turns a failing handler into an error with state unchanged', async function () {
    const actor = { kind: 'counter', id: `${run}-echo` };
    const echo = await client.send({ actor, ownerId: 'u1', type: 'echo', payload: { text: 'a b c' } });
    expect(await events(echo.replyStream)).to.deep.equal([
      ['token', { text: 'a' }],
      ['token', { text: 'b' }],
      ['token', { text: 'c' }],
      ['reply', { text: 'a b c' }],
      ['done', { messageId: echo.messageId }],
    ]);
    const fail = await client.send({ actor, ownerId: 'u1', type: 'fail', payload: { reason: 'boom' } });
    const [[event, data]] = await events(fail.replyStream);
    expect(event).to.equal('error');
    expect(data).to.deep.include({ code: 'turn_failed', message: 'boom' });
  });

  it('reports every turn, service request and commit to its observer, by kind and outcome', async function () {
    const actor = { kind: 'counter', id: `${run}-observed` };
    await events((await client.send({ actor, ownerId: 'u1', type: 'add', payload: { n: 1 } })).replyStream);
    await events((await client.send({ actor, ownerId: 'u1', type: 'fail', payload: { reason: 'boom' } })).replyStream);
    await events((await client.send({ actor: { kind: 'shout', id: 'any' }, ownerId: 'u1', type: 'shout', payload: { text: 'hi' } })).replyStream);
    expect(observed.turns).to.deep.include.members([
      ['counter', 'reply'],
      ['counter', 'turn_failed'],
      ['shout', 'reply'],
    ]);
    expect(observed.commits).to.deep.include(['counter', 'applied']);
    expect(observed.commits.map(([kind]) => kind)).to.not.include('shout');
  });

  it('hides an actor from another user and rejects bad payloads before enqueueing', async function () {
    const actor = { kind: 'counter', id: `${run}-mine` };
    const s = await client.send({ actor, ownerId: 'u1', type: 'add', payload: { n: 1 } });
    await events(s.replyStream);
    let error: unknown;
    try {
      await client.send({ actor, ownerId: 'u2', type: 'add', payload: { n: 1 } });
    } catch (e) {
      error = e;
    }
    expect(error).to.have.property('code', 'not_found');
    try {
      await client.send({ actor, ownerId: 'u1', type: 'add', payload: { n: 'x' } });
      expect.fail('accepted a bad payload');
    } catch (e) {
      expect(e).to.have.property('code', 'bad_request');
    }
  });

  it('checks the owner in the posting script: another user posts nothing and takes no limit; without the owner key MongoDB decides and the key comes back', async function () {
    const actor = { kind: 'counter', id: `${run}-owned` };
    const redis = createRedisClient(REDIS_URL);
    try {
      const first = await client.send({ actor, ownerId: 'u1', type: 'add', payload: { n: 1 } });
      await events(first.replyStream);
      expect(await redis.get(names.owner(actor))).to.equal('u1');
      const admission = (user: string) => ({
        leaseKey: `${names.prefix}:test-lease:{${user}}`,
        rateKey: `${names.prefix}:test-rate:{${user}}`,
        leaseId: `lease-${user}`,
        cap: 5,
        leaseTtlMs: 60_000,
        ratePoints: 100,
        windowMs: 60_000,
        points: 1,
      });
      const refused = async (send: () => Promise<unknown>) => {
        try {
          await send();
        } catch (e) {
          return e;
        }
        return expect.fail('another user posted to the actor');
      };
      // The owner key names u1: refused by the script itself, before the limits (on a cluster the limits
      // run first in their own slot: the lease is given back, the rate point stays spent).
      expect(await refused(() => client.send({ actor, ownerId: 'u2', type: 'add', payload: { n: 10 }, admission: admission('u2') }))).to.have.property('code', 'not_found');
      expect(await redis.zcard(admission('u2').leaseKey)).to.equal(0);
      expect(await redis.exists(admission('u2').rateKey)).to.equal(isCluster(redis) ? 1 : 0);
      // Without the key (expired, say): MongoDB names the owner and the key is written back.
      await redis.del(names.owner(actor));
      expect(await refused(() => client.send({ actor, ownerId: 'u2', type: 'add', payload: { n: 10 }, admission: admission('u2') }))).to.have.property('code', 'not_found');
      expect(await redis.get(names.owner(actor))).to.equal('u1');
      expect(await redis.zcard(admission('u2').leaseKey)).to.equal(0);
      // The owner's message, the key gone again: its limits are taken once (on a cluster the first try
      // spent the rate point, and the second takes the lease only), and the lease ends with the turn.
      await redis.del(names.owner(actor));
      const second = await client.send({ actor, ownerId: 'u1', type: 'add', payload: { n: 1 }, admission: admission('u1') });
      expect(await events(second.replyStream)).to.deep.equal([
        ['reply', { count: 2 }],
        ['done', { messageId: second.messageId }],
      ]);
      expect(await redis.get(names.owner(actor))).to.equal('u1');
      expect(await redis.get(admission('u1').rateKey)).to.equal('1');
      await pollUntil(async () => (await redis.zcard(admission('u1').leaseKey)) === 0, { timeoutMs: 10_000, what: 'u1’s lease back' });
    } finally {
      redis.disconnect();
    }
  });

  it('leaves no idempotency claim behind when another user’s message is refused', async function () {
    const actor = { kind: 'counter', id: `${run}-owned-idem` };
    const first = await client.send({ actor, ownerId: 'u1', type: 'add', payload: { n: 1 } });
    await events(first.replyStream);
    try {
      await client.send({ actor, ownerId: 'u2', type: 'add', payload: { n: 1 }, idempotencyKey: 'k-1' });
      expect.fail('another user posted to the actor');
    } catch (e) {
      expect(e).to.have.property('code', 'not_found');
    }
    const own = await client.send({ actor: { kind: 'counter', id: `${run}-u2-own` }, ownerId: 'u2', type: 'add', payload: { n: 3 }, idempotencyKey: 'k-1' });
    expect(own.duplicate).to.equal(false);
    expect(await events(own.replyStream)).to.deep.equal([
      ['reply', { count: 3 }],
      ['done', { messageId: own.messageId }],
    ]);
  });

  it('delivers ctx.send after commit and ctx.schedule later', async function () {
    const from = { kind: 'counter', id: `${run}-from` };
    const to = { kind: 'counter', id: `${run}-to` };
    const f = await client.send({ actor: from, ownerId: 'u1', type: 'forward', payload: { to: to.id, n: 7 } });
    await events(f.replyStream);
    const l = await client.send({ actor: to, ownerId: 'u1', type: 'later', payload: { delayMs: 200, n: 3 } });
    await events(l.replyStream);
    const count = await pollUntil(async () => {
      const c = ((await client.state(to, 'u1')) as CounterState).count;
      return c === 10 ? c : undefined;
    }, { timeoutMs: 10_000, what: 'the forwarded and the scheduled message to be applied' });
    expect(count).to.equal(10);
  });

  it('runs stateless services and batches with progress', async function () {
    const s = await client.send({ actor: { kind: 'shout', id: 'any' }, ownerId: 'u1', type: 'shout', payload: { text: 'hi' } });
    expect(await events(s.replyStream)).to.deep.equal([
      ['progress', { step: 1 }],
      ['reply', { text: 'HI' }],
      ['done', { messageId: s.messageId }],
    ]);
    const batchId = await client.sendBatch(
      'u1',
      'counter',
      Array.from({ length: 10 }, (_, i) => ({ actor: { kind: 'counter', id: `${run}-batch-${i % 3}` }, type: 'add', payload: { n: 1 } })),
    );
    const seen = [];
    for await (const e of client.followBatch(batchId, { idleTimeoutMs: 20_000 })) seen.push(e);
    expect(seen[seen.length - 1].event).to.equal('done');
    expect(await client.batch(batchId, 'u1')).to.deep.include({ total: 10, done: 10, failed: 0, finished: true });
    expect(await client.batch(batchId, 'u2')).to.equal(undefined);
    // Every message's reply, a page at a time, in the order they finished.
    const first = (await client.batchResults(batchId, 'u1', { limit: 6 }))!;
    expect(first.results).to.have.length(6);
    const rest = (await client.batchResults(batchId, 'u1', { after: first.next!, limit: 6 }))!;
    expect(rest.results).to.have.length(4);
    expect(rest.next).to.equal(null);
    const all = [...first.results, ...rest.results];
    expect(new Set(all.map((r) => r.messageId)).size).to.equal(10);
    expect(all.every((r) => r.ok && typeof (r.reply as { count?: unknown }).count === 'number')).to.equal(true);
    expect(all.filter((r) => r.actorId === `${run}-batch-0`).map((r) => (r.reply as { count: number }).count)).to.deep.equal([1, 2, 3, 4]);
    expect(await client.batchResults(batchId, 'u2', { limit: 6 })).to.equal(undefined);
  });

  it('double texting: a kind set to reject answers conflict while a message is pending; the default kind queues it', async function () {
    const strict = { kind: 'strict-counter', id: `${run}-strict` };
    const slow = await client.send({ actor: strict, ownerId: 'u1', type: 'add', payload: { n: 1, sleepMs: 300 } });
    let refused: unknown;
    try {
      await client.send({ actor: strict, ownerId: 'u1', type: 'add', payload: { n: 1 } });
    } catch (e) {
      refused = e;
    }
    expect(refused).to.have.property('code', 'conflict');
    await events(slow.replyStream);
    const after = await client.send({ actor: strict, ownerId: 'u1', type: 'add', payload: { n: 1 } });
    expect(await events(after.replyStream)).to.deep.include(['reply', { count: 2 }]);
  });

  it('abandons a turn that overruns its time: turn_timeout, its signal aborted, state unchanged, the actor goes on', async function () {
    const hasty = { kind: 'hasty-counter', id: `${run}-hasty` };
    const slow = await client.send({ actor: hasty, ownerId: 'u1', type: 'add', payload: { n: 1, sleepMs: 5_000 } });
    const [, [event, data]] = await events(slow.replyStream);
    expect(event).to.equal('error');
    expect(data).to.deep.include({ code: 'turn_timeout' });
    const next = await client.send({ actor: hasty, ownerId: 'u1', type: 'add', payload: { n: 1 } });
    const got = await events(next.replyStream);
    expect(got, JSON.stringify(got)).to.deep.include(['reply', { count: 1 }]);
  });
});
