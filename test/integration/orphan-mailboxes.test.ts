import { expect } from 'chai';
import mongoose from 'mongoose';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { createRedisClient, type RedisClient } from '../../queues/redis-client.js';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { ActorClient } from '../../actors/runtime/client.js';
import { startWorkers, type RunningWorkers } from '../../actors/runtime/workers.js';
import { Mailboxes } from '../../queues/mailbox.js';
import { envelope } from '../../queues/envelope.js';
import { testKinds, type CounterState } from '../support/test-kinds.js';
import { pollUntil } from '../support/async.js';
import { testNames } from '../support/test-names.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = { info() {}, warn() {}, error() {}, debug() {} };
/** A short heartbeat, so recovery is seen without waiting the default 5 s twice. */
const HEARTBEAT_MS = 250;

/** A poster that dies between appending the message and adding its drain job. */
class DyingPoster extends Mailboxes {
  override async requestDrain(): Promise<void> {
    throw new Error('the poster died before adding the drain job');
  }
}

describe('orphan mailboxes (a post that died before its drain job)', function () {
  let mongo: EmbeddedMongo;
  let conn: mongoose.Connection;
  let redis: RedisClient;
  let client: ActorClient;
  let workers: RunningWorkers | undefined;
  const names = testNames(`test-orphans-${process.pid}`);
  const run = `o${Date.now()}`;

  before(async function () {
    mongo = await startEmbeddedMongo({ port: 0 });
    conn = await mongoose.createConnection(mongo.uri, { dbName: 'orphans_test' }).asPromise();
    redis = createRedisClient(REDIS_URL);
    client = new ActorClient(REDIS_URL, conn, testKinds, names);
  });

  after(async function () {
    await workers?.close();
    await client.close();
    redis.disconnect();
    await deleteRedisPrefix(names.prefix, REDIS_URL);
    await conn.close();
    await mongo.stop();
  });

  const count = async (id: string) => ((await client.state({ kind: 'counter', id }, 'u1').catch(() => undefined)) as CounterState | undefined)?.count;

  it('drains, once a worker starts, a mailbox left by a version that kept no record of it (the start-up sweep)', async function () {
    const id = `${run}-swept`;
    const env = envelope({ actor: { kind: 'counter', id }, ownerId: 'u1', type: 'add', payload: { n: 2 } });
    await redis.xadd(names.mailbox(env.actor), '*', 'id', env.messageId, 'env', JSON.stringify(env));
    workers = await startWorkers({ redisUrl: REDIS_URL, mongo: conn, kinds: testKinds, logger: silent, names, heartbeatMs: HEARTBEAT_MS });
    expect(await pollUntil(async () => (await count(id)) === 2, { timeoutMs: 20_000, what: 'the swept mailbox drained' })).to.equal(true);
  });

  it('notes an actor that needs a drain job as it posts, and a heartbeat drains it if the job never came', async function () {
    const id = `${run}-orphan`;
    const actor = { kind: 'counter', id };
    const dying = new DyingPoster(redis, redis, names);
    const env = envelope({ actor, ownerId: 'u1', type: 'add', payload: { n: 3 } });
    await dying.post(env).then(
      () => expect.fail('the post should have died'),
      (error: Error) => expect(error.message).to.match(/died/),
    );
    expect(await redis.zscore(names.awaitingDrainOf({ kind: 'counter', id }), id)).to.not.equal(null);
    expect(await pollUntil(async () => (await count(id)) === 3, { timeoutMs: 20_000, what: 'the orphan drained by a heartbeat' })).to.equal(true);
    // Drained and left: the mailbox is gone, and the actor no longer awaits a drain.
    await pollUntil(async () => (await redis.exists(names.mailbox(actor))) === 0, { timeoutMs: 10_000, what: 'the empty mailbox removed' });
    expect(await redis.zscore(names.awaitingDrainOf({ kind: 'counter', id }), id)).to.equal(null);
  });

  it('keeps the awaiting set to mailboxes that may hold messages: a drained actor is not in it', async function () {
    const id = `${run}-plain`;
    const sent = await client.send({ actor: { kind: 'counter', id }, ownerId: 'u1', type: 'add', payload: { n: 1 } });
    await client.reply(sent.replyStream, { idleTimeoutMs: 20_000 });
    await pollUntil(async () => (await redis.exists(names.mailbox({ kind: 'counter', id }))) === 0, { timeoutMs: 10_000, what: 'the drain left' });
    expect(await redis.zscore(names.awaitingDrainOf({ kind: 'counter', id }), id)).to.equal(null);
  });
});
