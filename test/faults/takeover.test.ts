/**
 * Fast takeover after a worker crash, with real worker processes: kill -9 mid-turn while messages flow
 * loses nothing, applies nothing twice, keeps each actor's order, and the crashed worker's drains are
 * handed back through its lapsed liveness key (not BullMQ's lock expiry). A turn that holds its event
 * loop for three liveness TTLs is not taken over: the liveness key is renewed off the main thread.
 * No durations are asserted; waits are bounded and keyed to what they wait for.
 */
import { expect } from 'chai';
import mongoose from 'mongoose';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { ActorClient } from '../../actors/runtime/client.js';
import { DEFAULT_TAKEOVER_SETTINGS } from '../../actors/runtime/liveness.js';
import { RedisNames } from '../../queues/keys.js';
import { CrashLoad } from '../../scripts/bench/faults/crash-load.js';
import { SLOW_COUNTER, slowCounterKind, type SlowCounterTurn } from '../../scripts/bench/faults/slow-counter.js';
import { spawnScript, type ChildHandle } from '../support/runtime-processes.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { pollUntil, withDeadline } from '../support/async.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TAKEOVER_LINE = 'took over the jobs of a lapsed worker';

/** The log lines (JSON) of a worker's output with the given message. */
function logLines(output: string, msg: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((line) => line.includes(msg))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('fast takeover after a worker crash (real worker processes)', function () {
  this.timeout(240_000);
  let mongo: EmbeddedMongo;
  let conn: mongoose.Connection;
  let client: ActorClient;
  const children: ChildHandle[] = [];
  const names = new RedisNames(`test-takeover-${process.pid}`);
  const dbName = `takeover_${process.pid}`;

  const worker = async () => {
    const w = spawnScript('scripts/bench/faults/takeover-worker.ts', { REDIS_URL, REDIS_PREFIX: names.prefix, MONGODB_URI: mongo.uri, MONGODB_DB: dbName, LOG_LEVEL: 'info', LOG_PRETTY: 'false' });
    children.push(w);
    await w.waitFor('workers started');
    return w;
  };
  const pidOf = (w: ChildHandle) => w.child.pid!;
  // Worker ids are `host:pid:random`.
  const everyOutput = () => children.map((c) => c.output()).join('\n');

  before(async function () {
    mongo = await startEmbeddedMongo({ port: 0 });
    conn = await mongoose.createConnection(mongo.uri, { dbName }).asPromise();
    client = new ActorClient(REDIS_URL, conn, [slowCounterKind], names);
  });

  afterEach(async function () {
    await Promise.all(children.splice(0).map((c) => c.kill('SIGKILL')));
  });

  after(async function () {
    await client.close();
    await conn.close();
    await mongo.stop();
    await deleteRedisPrefix(names.prefix, REDIS_URL);
  });

  it('five kill -9s mid-turn under load: nothing lost or applied twice, order kept, each crash taken over through its lapsed liveness key', async function () {
    const live = await Promise.all([worker(), worker(), worker()]);
    const load = new CrashLoad(client, { runId: `crash-${Date.now()}`, actors: 6, sleepMs: 200, window: 2, maxPerActor: 500, replyIdleMs: 60_000 });
    load.start();
    const killed: number[] = [];
    try {
      for (let kill = 0; kill < 5; kill++) {
        // A worker in the middle of a turn, picked from the ones running now.
        const victim = await pollUntil(() => live.find((w) => load.runningOn(pidOf(w)).length > 0), { timeoutMs: 30_000, intervalMs: 10, what: 'a worker with a turn in flight' });
        const pid = pidOf(victim);
        const inFlight = load.runningOn(pid);
        const resumed = inFlight.map((t) => load.nextCommitElsewhere(t.actor, pid));
        await victim.kill('SIGKILL');
        killed.push(pid);
        live.splice(live.indexOf(victim), 1);
        live.push(await worker());
        await withDeadline(Promise.all(resumed), 60_000, `the actors of killed worker ${pid} to commit elsewhere`);
      }
    } finally {
      await load.stop();
    }
    const result = await load.result();
    expect(result.messages_sent).to.be.greaterThan(0);
    expect(result.lost, 'messages lost').to.equal(0);
    expect(result.applied_twice, 'messages applied twice').to.equal(0);
    expect(result.order_violations, 'per-actor order').to.equal(0);
    expect(result.applied).to.equal(result.messages_sent);
    expect(result.errors_by_code).to.deep.equal({});

    // Each crashed worker was claimed once, by a live one, through its lapsed liveness key, and its
    // drains were moved back to wait there.
    const takeovers = logLines(everyOutput(), TAKEOVER_LINE);
    for (const pid of killed) {
      const mine = takeovers.filter((line) => String(line.lapsedWorker).split(':')[1] === String(pid));
      expect(mine, `takeover lines for killed worker ${pid}`).to.have.length(1);
      expect(mine[0]!.jobs as number, `drains handed back from worker ${pid}`).to.be.greaterThan(0);
    }
  });

  it('a turn holding its event loop for three liveness TTLs is not taken over', async function () {
    const [a, b] = await Promise.all([worker(), worker()]);
    const actor = { kind: SLOW_COUNTER, id: `busy-${Date.now()}` };
    const blockMs = 3 * DEFAULT_TAKEOVER_SETTINGS.livenessTtlMs;
    const sent = await client.send({ actor, ownerId: 'u1', type: 'add', payload: { seq: 0, blockMs } });
    const events = await client.reply(sent.replyStream, { idleTimeoutMs: 60_000 });
    const started = events.filter((e) => e.event === 'started').map((e) => (e.data as SlowCounterTurn).pid);
    const reply = events.find((e) => e.event === 'reply')?.data as SlowCounterTurn | undefined;
    expect(started, 'the turn ran once').to.have.length(1);
    expect(reply?.pid, 'answered by the worker that ran it').to.equal(started[0]);
    expect([pidOf(a), pidOf(b)]).to.include(started[0]);
    // The other worker kept checking throughout (every TAKEOVER_CHECK_MS) and never found this one
    // lapsed (workers killed by the previous test may be taken over meanwhile; they are not counted).
    const ours = new Set([pidOf(a), pidOf(b)].map(String));
    expect(logLines(everyOutput(), TAKEOVER_LINE).filter((line) => ours.has(String(line.lapsedWorker).split(':')[1]))).to.deep.equal([]);
    expect(everyOutput()).not.to.include('liveness renewal failing');
  });
});
