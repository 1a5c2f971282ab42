/**
 * The runtime across real worker processes: ordering under concurrency with three workers, a worker
 * killed with SIGKILL mid-turn, and graceful shutdown with a turn in flight.
 */
import { expect } from 'chai';
import mongoose from 'mongoose';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { ActorClient } from '../../actors/runtime/client.js';
import { testKinds, type CounterState } from '../support/test-kinds.js';
import { sendInOrder } from '../support/ordered-sends.js';
import { startTestWorker, type ChildHandle } from '../support/runtime-processes.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { testNames } from '../support/test-names.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('actor runtime across worker processes', function () {
  this.timeout(120_000);
  let mongo: EmbeddedMongo;
  let conn: mongoose.Connection;
  let client: ActorClient;
  const children: ChildHandle[] = [];
  const run = `p${Date.now()}`;
  const dbName = `runtime_processes_${process.pid}`;
  const names = testNames(`test-processes-${process.pid}`);

  const worker = async () => {
    const w = startTestWorker({ REDIS_URL, REDIS_PREFIX: names.prefix, MONGODB_URI: mongo.uri, MONGODB_DB: dbName, LOG_LEVEL: 'info' });
    children.push(w);
    await w.waitFor('workers started');
    return w;
  };

  before(async function () {
    mongo = await startEmbeddedMongo({ port: 0 });
    conn = await mongoose.createConnection(mongo.uri, { dbName }).asPromise();
    client = new ActorClient(REDIS_URL, conn, testKinds, names);
  });

  afterEach(async function () {
    await Promise.all(children.splice(0).map((c) => c.kill('SIGKILL')));
  });

  after(async function () {
    await client.close();
    await conn.close();
    await mongo.stop();
    await deleteRedisPrefix(names.prefix);
  });

  it('2,000 messages to 50 actors through 3 worker processes: per-actor order kept, one turn at a time', async function () {
    await Promise.all([worker(), worker(), worker()]);
    const ids = Array.from({ length: 50 }, (_, i) => `${run}-o${i}`);
    const sent = await sendInOrder(client, ids, 40);
    expect(sent).to.have.length(2000);
    await Promise.all(sent.map((s) => client.reply(s.replyStream, { idleTimeoutMs: 60_000 })));
    for (const id of ids) {
      const state = (await client.state({ kind: 'counter', id }, 'u1')) as CounterState;
      expect(state.seen, id).to.deep.equal([...Array(40).keys()]);
      expect(state.count).to.equal(40);
      expect(state.maxConcurrent).to.equal(1);
    }
  });

  it('kill -9 of a worker mid-turn: another worker resumes the actor, the message is applied exactly once and the client gets the reply', async function () {
    const first = await worker();
    const actor = { kind: 'counter', id: `${run}-crash` };
    const sent = await client.send({ actor, ownerId: 'u1', type: 'add', payload: { n: 1, seq: 1, sleepMs: 2_000 } });
    const events: string[] = [];
    const answer = client.reply(sent.replyStream, {
      idleTimeoutMs: 60_000,
      onEvent: (e) => {
        events.push(e.event);
        if (e.event === 'started' && events.filter((x) => x === 'started').length === 1) void first.kill('SIGKILL').then(() => worker());
      },
    });
    const all = await answer;
    expect(all.map((e) => e.event).slice(-2)).to.deep.equal(['reply', 'done']);
    expect(all.find((e) => e.event === 'reply')?.data).to.deep.equal({ count: 1 });
    expect(events.filter((x) => x === 'started').length, 'the turn ran again on the second worker').to.equal(2);
    const again = await client.send({ actor, ownerId: 'u1', type: 'add', payload: { n: 1, seq: 2 } });
    await client.reply(again.replyStream, { idleTimeoutMs: 30_000 });
    const state = (await client.state(actor, 'u1')) as CounterState;
    expect(state.count).to.equal(2);
    expect(state.seen).to.deep.equal([1, 2]);
  });

  it('SIGTERM finishes the in-flight turn, then the process exits 0', async function () {
    const w = await worker();
    const actor = { kind: 'counter', id: `${run}-term` };
    const sent = await client.send({ actor, ownerId: 'u1', type: 'add', payload: { n: 1, seq: 1, sleepMs: 500 } });
    const answer = client.reply(sent.replyStream, {
      idleTimeoutMs: 30_000,
      onEvent: (e) => {
        if (e.event === 'started') w.child.kill('SIGTERM');
      },
    });
    const status = await w.exited;
    expect(status.code, w.output()).to.equal(0);
    const next = await worker();
    const all = await answer;
    expect(all.map((e) => e.event)).to.include('reply');
    expect(all.filter((e) => e.event === 'started'), 'finished by the worker that started it').to.have.length(1);
    expect(((await client.state(actor, 'u1')) as CounterState).count).to.equal(1);
    await next.kill('SIGTERM');
  });
});
