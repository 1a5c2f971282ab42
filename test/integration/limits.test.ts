import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Router } from '@koa/router';
import { createRedisClient, deleteMatchingKeys, type RedisClient } from '../../queues/redis-client.js';
import { pino } from 'pino';
import type { KindLimits } from '../../actors/runtime/contract.js';
import { createGatewayApp } from '../../gateway/app.js';
import { ApiError } from '../../gateway/error-response.js';
import { startHttpServer, type RunningHttpServer } from '../../gateway/http-server.js';
import { UserLimits, type UserLimitsOptions } from '../../gateway/limits.js';
import { admit, defineAdmission, type Admission } from '../../queues/admission.js';
import type { GatewayState } from '../../gateway/state.js';
import mongoose from 'mongoose';
import { ActorClient } from '../../actors/runtime/client.js';
import { startWorkers } from '../../actors/runtime/workers.js';
import { startEmbeddedMongo } from '../../models/embedded/index.js';
import { pollUntil } from '../support/async.js';
import { counterKind } from '../support/test-kinds.js';
import { testNames } from '../support/test-names.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function kind(name: string, limits?: KindLimits) {
  return { kind: name, limits };
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(ApiError);
    return error as ApiError;
  }
  expect.fail('expected a 429 refusal');
}

describe('UserLimits (rate limits and concurrency leases in Redis)', function () {
  this.timeout(30_000);
  const keyPrefix = `troupe-test-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const clients: RedisClient[] = [];
  let server: RunningHttpServer | undefined;

  function connection(): RedisClient {
    const client = createRedisClient(REDIS_URL, { maxRetriesPerRequest: 3 });
    clients.push(client);
    return client;
  }

  function limits(options: Omit<UserLimitsOptions, 'keyPrefix'> = {}, redis = connection()): UserLimits {
    return new UserLimits(redis, { ...options, keyPrefix });
  }

  let userCounter = 0;
  const newUser = () => `user-${++userCounter}`;

  after(async () => {
    await server?.close();
    try {
      await deleteMatchingKeys(connection(), `${keyPrefix}:*`);
    } finally {
      for (const client of clients.splice(0)) client.disconnect();
    }
  });

  it('picks override, then the kind\'s own limit, then the default, setting by setting', () => {
    const subject = limits({
      defaults: { rate: { points: 100, durationSeconds: 60 }, concurrent: 20 },
      kinds: { scouting: { concurrent: 5 }, game: { rate: null, concurrent: null } },
    });
    expect(subject.limitsOf(kind('scouting', { rate: { points: 10, durationSeconds: 3600 }, concurrent: 3 }))).to.deep.equal({
      rate: { points: 10, durationSeconds: 3600 },
      concurrent: 5,
    });
    expect(subject.limitsOf(kind('game', { concurrent: 2 }))).to.deep.equal({ rate: null, concurrent: null });
    expect(subject.limitsOf(kind('meta'))).to.deep.equal({ rate: { points: 100, durationSeconds: 60 }, concurrent: 20 });
    expect(limits().limitsOf(kind('meta'))).to.deep.equal({ rate: null, concurrent: null });
  });

  it('refuses the message over the rate with 429 rate_limited and retryAfterSeconds', async () => {
    const subject = limits();
    const limited = kind('rated', { rate: { points: 2, durationSeconds: 60 } });
    const user = newUser();
    expect(await subject.admit(user, limited)).to.deep.equal({});
    expect(await subject.admit(user, limited)).to.deep.equal({});
    const error = await refusal(subject.admit(user, limited));
    expect(error.status).to.equal(429);
    expect(error.code).to.equal('rate_limited');
    expect(error.details).to.include({ kind: 'rated', limit: 2, windowSeconds: 60 });
    expect(error.details.retryAfterSeconds).to.be.within(1, 60);
    expect(error.headers['Retry-After']).to.equal(String(error.details.retryAfterSeconds));
    // Another user has a budget of their own.
    expect(await subject.admit(newUser(), limited)).to.deep.equal({});
  });

  it('counts no point for a refused message, and opens a fresh window once the last one ends', async () => {
    const subject = limits();
    const limited = kind('windowed', { rate: { points: 2, durationSeconds: 1 } });
    const user = newUser();
    await subject.admit(user, limited);
    await subject.admit(user, limited);
    for (let i = 0; i < 3; i++) expect((await refusal(subject.admit(user, limited))).code).to.equal('rate_limited');
    const usage = await subject.usage(user, limited);
    expect(usage.rate).to.include({ used: 2, remaining: 0, points: 2, windowSeconds: 1 });
    expect(usage.rate!.resetsInSeconds).to.be.within(0, 1);
    // The window is a key that expires with it: once it has, the user has a full budget again.
    const admitted = await pollUntil(
      async () => {
        try {
          return await subject.admit(user, limited);
        } catch (error) {
          if (error instanceof ApiError && error.code === 'rate_limited') return undefined;
          throw error;
        }
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the window to end' },
    );
    expect(admitted).to.deep.equal({});
    expect((await subject.usage(user, limited)).rate).to.include({ used: 1, remaining: 1 });
  });

  it('holds the concurrency cap across two instances on separate Redis connections', async () => {
    const capped = kind('capped', { concurrent: 3 });
    const [a, b] = [limits(), limits()];
    const user = newUser();
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).admit(user, capped)));
    const admitted = outcomes.filter((o) => o.status === 'fulfilled').map((o) => (o as PromiseFulfilledResult<{ lease?: { key: string; id: string } }>).value);
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason as ApiError);
    expect(admitted).to.have.length(3);
    expect(refused).to.have.length(7);
    for (const error of refused) {
      expect(error.status).to.equal(429);
      expect(error.code).to.equal('too_many_concurrent');
      expect(error.details).to.include({ kind: 'capped', limit: 3 });
      expect(error.details.retryAfterSeconds).to.be.within(1, 5);
      expect(error.headers['Retry-After']).to.equal(String(error.details.retryAfterSeconds));
    }
    expect(await a.leasesHeld(user, 'capped')).to.equal(3);
    expect(admitted.every((x) => x.lease?.key === a.leaseKey('capped', user))).to.equal(true);

    // release frees a slot for either instance
    await b.release(admitted[0]!.lease!);
    const next = await a.admit(user, capped);
    expect(next.lease).to.not.equal(undefined);
    await refusal(b.admit(user, capped));
  });

  it('frees a slot when the runtime does exactly ZREM lease.key lease.id', async () => {
    const subject = limits();
    const capped = kind('zrem', { concurrent: 1 });
    const user = newUser();
    const { lease } = await subject.admit(user, capped);
    await refusal(subject.admit(user, capped));
    const worker = connection();
    expect(await worker.zrem(lease!.key, lease!.id)).to.equal(1);
    expect((await subject.admit(user, capped)).lease).to.not.equal(undefined);
  });

  it('reclaims the lease of a crashed holder once its TTL has passed', async () => {
    const capped = kind('crash', { concurrent: 1 });
    const user = newUser();
    const crashingConnection = connection();
    const crashing = limits({ leaseTtlMs: 400 }, crashingConnection);
    await crashing.admit(user, capped);
    crashingConnection.disconnect(); // the holder dies without releasing

    const survivor = limits({ leaseTtlMs: 400 });
    const first = await refusal(survivor.admit(user, capped));
    expect(first.code).to.equal('too_many_concurrent');
    expect(first.details.retryAfterSeconds).to.equal(1); // the oldest lease expires within a second
    const admitted = await pollUntil(
      async () => {
        try {
          return await survivor.admit(user, capped);
        } catch (error) {
          if (error instanceof ApiError && error.code === 'too_many_concurrent') return undefined;
          throw error;
        }
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the expired lease to be reclaimed' },
    );
    expect(admitted.lease).to.not.equal(undefined);
  });

  it('lets the lease set expire with its newest lease', async () => {
    const subject = limits({ leaseTtlMs: 60_000 });
    const { lease } = await subject.admit(newUser(), kind('expiring', { concurrent: 2 }));
    const ttl = await connection().pttl(lease!.key);
    expect(ttl).to.be.within(1, 60_000);
  });

  it('admits on an auto-pipelining connection when its first check shares a tick with other commands (ioredis#1931)', async function () {
    const redis = createRedisClient(REDIS_URL, { maxRetriesPerRequest: 3, enableAutoPipelining: true });
    clients.push(redis);
    const gate = limits({}, redis);
    const user = newUser();
    // Another command opens this tick's auto-pipeline before the admission script is first sent.
    const other = redis.get(`${keyPrefix}:unrelated`);
    const admission = await gate.admit(user, kind('pipelined', { rate: { points: 5, durationSeconds: 60 }, concurrent: 2 }));
    expect(await other).to.equal(null);
    expect(admission.lease).to.not.equal(undefined);
    expect(await gate.leasesHeld(user, 'pipelined')).to.equal(1);
  });

  it('holds no lease after a rate refusal, and takes no rate point on a concurrency refusal', async () => {
    const subject = limits();
    const user = newUser();
    const both = kind('both', { rate: { points: 2, durationSeconds: 60 }, concurrent: 1 });
    const { lease } = await subject.admit(user, both); // point 1
    expect((await refusal(subject.admit(user, both))).code).to.equal('too_many_concurrent'); // no point taken
    await subject.release(lease!);
    const second = await subject.admit(user, both); // point 2
    await subject.release(second.lease!);
    expect((await refusal(subject.admit(user, both))).code).to.equal('rate_limited');
    expect(await subject.leasesHeld(user, 'both')).to.equal(0);
  });

  it('reports each refusal with its kind and the limit that refused (for the metrics)', async () => {
    const refusals: Array<[string, string]> = [];
    const subject = limits({ onRefusal: (kindName, limit) => refusals.push([kindName, limit]) });
    const user = newUser();
    const both = kind('reported', { rate: { points: 2, durationSeconds: 60 }, concurrent: 1 });
    const { lease } = await subject.admit(user, both);
    await refusal(subject.admit(user, both));
    await subject.release(lease!);
    await subject.release((await subject.admit(user, both)).lease!);
    await refusal(subject.admit(user, both));
    await refusal(subject.admit(newUser(), both, { holdLease: false, points: 3 }));
    expect(refusals).to.deep.equal([
      ['reported', 'concurrency'],
      ['reported', 'rate'],
      ['reported', 'rate'],
    ]);
  });

  it('admits without a lease when asked to check only the rate (bulk work)', async () => {
    const subject = limits();
    const user = newUser();
    const capped = kind('bulk', { rate: { points: 5, durationSeconds: 60 }, concurrent: 1 });
    expect(await subject.admit(user, capped, { holdLease: false })).to.deep.equal({});
    expect(await subject.leasesHeld(user, 'bulk')).to.equal(0);
  });

  it('enqueueAdmitted releases the lease when the enqueue throws or enqueues nothing', async () => {
    const subject = limits();
    const user = newUser();
    const capped = kind('enqueue', { concurrent: 1 });
    const failure = new Error('queue down');
    let caught: unknown;
    try {
      await subject.enqueueAdmitted(user, capped, async () => {
        throw failure;
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).to.equal(failure);
    expect(await subject.leasesHeld(user, 'enqueue')).to.equal(0);

    await subject.enqueueAdmitted(user, capped, async () => ({ duplicate: true }));
    expect(await subject.leasesHeld(user, 'enqueue')).to.equal(0);

    // The send takes the admission with its post; a refusal there is the 429, with nothing held.
    const redis = connection();
    defineAdmission(redis);
    let passed: Admission | undefined;
    await subject.enqueueAdmitted(user, capped, async (admission) => {
      passed = admission;
      await admit(redis, admission!);
      return { duplicate: false };
    });
    expect(passed).to.include({ leaseKey: subject.leaseKey('enqueue', user), cap: 1 });
    expect(await subject.leasesHeld(user, 'enqueue')).to.equal(1);
    const refused = await refusal(subject.enqueueAdmitted(user, capped, async (admission) => (await admit(redis, admission!), { duplicate: false })));
    expect(refused.code).to.equal('too_many_concurrent');
    expect(await subject.leasesHeld(user, 'enqueue')).to.equal(1);
  });

  it('answers an HTTP request over a limit with 429, Retry-After and the error body', async () => {
    const subject = limits();
    const limited = kind('http', { rate: { points: 1, durationSeconds: 60 } });
    const router = new Router<GatewayState>();
    let enqueued = 0;
    router.post('/send', async (ctx) => {
      await subject.admit(ctx.state.user!.id, limited);
      enqueued++;
      ctx.body = { ok: true };
    });
    const caller = { id: newUser(), name: 'u' };
    const users = {
      authenticate: async (key: string) => (key === 'k' ? caller : undefined),
      exchangeLoginToken: async () => undefined,
    };
    const app = createGatewayApp({ logger: pino({ level: 'silent' }), readinessChecks: {}, users, routers: [router] });
    server = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
    const send = () => fetch(`${server!.url}/send`, { method: 'POST', headers: { authorization: 'Bearer k' } });
    expect((await send()).status).to.equal(200);
    const refused = await send();
    expect(refused.status).to.equal(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 60);
    const body = (await refused.json()) as { error: { code: string; details: { retryAfterSeconds: number } } };
    expect(body.error.code).to.equal('rate_limited');
    expect(body.error.details.retryAfterSeconds).to.equal(retryAfter);
    expect(enqueued).to.equal(1);
  });

  it('gets its lease back from the runtime when the turn ends (the ZREM contract, end to end)', async () => {
    const mongo = await startEmbeddedMongo({ port: 0 });
    const conn = await mongoose.createConnection(mongo.uri, { dbName: 'limits_runtime_test' }).asPromise();
    // Its own key and queue names: another file's workers (on another MongoDB) never drain this actor.
    const names = testNames(`${keyPrefix}-runtime`);
    const client = new ActorClient(REDIS_URL, conn, [counterKind], names);
    const silent = { info() {}, warn() {}, error() {}, debug() {} };
    const workers = await startWorkers({ redisUrl: REDIS_URL, mongo: conn, kinds: [counterKind], logger: silent, names });
    try {
      const subject = limits({ kinds: { counter: { concurrent: 1 } } });
      const user = newUser();
      const actor = { kind: 'counter', id: `${keyPrefix}-lease` };
      // A turn held for a while, so the refusals below meet its lease however busy the machine.
      const sent = await subject.enqueueAdmitted(user, counterKind, (admission) =>
        client.send({ actor, ownerId: user, type: 'add', payload: { n: 1, sleepMs: 1_500 }, admission }),
      );
      expect((await refusal(subject.admit(user, counterKind))).code).to.equal('too_many_concurrent');
      // Refused with the post (one round trip on one server): nothing is posted, nothing more is held.
      const redis = connection();
      const posted = await redis.xlen(client.names.mailbox(actor));
      const again = await refusal(subject.enqueueAdmitted(user, counterKind, (admission) => client.send({ actor, ownerId: user, type: 'add', payload: { n: 1 }, admission })));
      expect(again.code).to.equal('too_many_concurrent');
      expect(await redis.xlen(client.names.mailbox(actor)), 'the refused message was not posted').to.equal(posted);
      expect(posted).to.equal(1);
      expect(await subject.leasesHeld(user, 'counter')).to.equal(1);
      const events = await client.reply(sent.replyStream, { idleTimeoutMs: 20_000 });
      expect(events.map((e) => e.event)).to.include('reply');
      await pollUntil(async () => (await subject.leasesHeld(user, 'counter')) === 0, { timeoutMs: 10_000, what: 'the worker to release the lease' });
      const next = await subject.admit(user, counterKind);
      await subject.release(next.lease!);
    } finally {
      await workers.close();
      await client.close();
      await conn.close();
      await mongo.stop();
      await deleteRedisPrefix(names.prefix);
    }
  });
});
