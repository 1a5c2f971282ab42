/**
 * The Redis start-up guards with troupe as operators run it: `troupe start` refuses a Redis that may
 * evict keys (or only warns, with TROUPE_ALLOW_EVICTION=1) and warns when it persists nothing, and a
 * REDIS_PREFIX is bound to the MongoDB database that first used it, across `troupe worker` and
 * `troupe gateway` processes.
 */
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';
import { pollUntil, STARTUP_BOUND_MS, withDeadline } from '../support/async.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { copySeededDbpath } from '../support/seeded-dbpath.js';
import { EVICTING_UNPERSISTED_REDIS, startRedisServer, type RedisServerProcess } from '../support/redis-server-process.js';
import { freePort, tempDir } from '../support/troupe-mongo-process.js';
import { spawnTroupe, startTroupeMongo, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The `msg` of every JSON log line the process printed at `level` (40: warn). */
function logMessages(troupe: TroupeProcess, level: number): string[] {
  return troupe
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((entry) => entry.level === level)
    .map((entry) => entry.msg);
}

/** Resolves once `troupe` printed `text`; fails with its output if it exits first. */
async function waitForOutput(troupe: TroupeProcess, text: string, timeoutMs: number): Promise<void> {
  await pollUntil(
    () => {
      if (troupe.stdout().includes(text)) return true;
      if (troupe.exitStatus() !== undefined) throw new Error(`exited before printing "${text}":\n${troupe.stdout()}\n${troupe.stderr()}`);
      return false;
    },
    { timeoutMs, what: `"${text}"` },
  );
}

async function stopWithSigterm(troupe: TroupeProcess): Promise<void> {
  troupe.child.kill('SIGTERM');
  const status = await withDeadline(troupe.exited, 30_000, 'the process to exit after SIGTERM');
  expect(status, troupe.stderr()).to.deep.equal({ code: 0, signal: null });
}

async function exitedWithOneLine(troupe: TroupeProcess): Promise<string> {
  const status = await withDeadline(troupe.exited, 60_000, 'the refused process to exit');
  expect(status.code, troupe.stdout()).to.equal(1);
  const stderr = troupe.stderr().trim();
  expect(stderr.split('\n'), stderr).to.have.length(1);
  expect(stderr).to.not.match(/^\s+at /m);
  return stderr;
}

describe('Redis start-up guards (processes)', function () {
  this.timeout(STARTUP_BOUND_MS + 60_000);
  const spawned: TroupeProcess[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  const redisPrefix = `test-redis-guards-${process.pid}-${Date.now().toString(36)}`;

  afterEach(async () => {
    for (const troupe of spawned.splice(0)) await troupe.kill();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  after(async () => {
    await deleteRedisPrefix(redisPrefix, REDIS_URL);
  });

  describe('on a Redis that may evict keys and persists nothing', () => {
    let redis: RedisServerProcess;

    beforeEach(async () => {
      redis = await startRedisServer(EVICTING_UNPERSISTED_REDIS);
      cleanups.push(redis.stop);
    });

    it('troupe start refuses with one line naming the policy and what to set', async () => {
      const dbpath = await tempDir('troupe-redis-guards');
      cleanups.push(dbpath.remove);
      await copySeededDbpath(dbpath.dir);
      const start = spawnTroupe(['start'], troupeEnv({ REDIS_URL: redis.url, REDIS_PREFIX: redisPrefix, EMBEDDED_MONGO_DBPATH: dbpath.dir, PORT: '0', LOG_PRETTY: 'false' }));
      spawned.push(start);
      const line = await exitedWithOneLine(start);
      expect(line).to.equal(
        `troupe: Redis at ${redis.url} has maxmemory-policy allkeys-lru: it may evict BullMQ's keys, losing queued messages and jobs. ` +
          'Set maxmemory-policy noeviction on that server (redis.conf, or CONFIG SET maxmemory-policy noeviction), or TROUPE_ALLOW_EVICTION=1 to start anyway.',
      );
      expect(start.stdout()).to.not.include('connected to MongoDB');
    });

    it('troupe start with TROUPE_ALLOW_EVICTION=1 comes up, warning about eviction and about persistence', async () => {
      const dbpath = await tempDir('troupe-redis-guards');
      cleanups.push(dbpath.remove);
      await copySeededDbpath(dbpath.dir);
      const start = spawnTroupe(
        ['start'],
        troupeEnv({ REDIS_URL: redis.url, REDIS_PREFIX: redisPrefix, EMBEDDED_MONGO_DBPATH: dbpath.dir, PORT: '0', LOG_PRETTY: 'false', TROUPE_ALLOW_EVICTION: '1' }),
      );
      spawned.push(start);
      await waitForOutput(start, 'troupe is up', STARTUP_BOUND_MS);
      const warnings = logMessages(start, 40);
      expect(warnings.some((msg) => msg.includes('maxmemory-policy allkeys-lru') && msg.includes('starting anyway because TROUPE_ALLOW_EVICTION is set')), warnings.join('\n')).to.equal(true);
      expect(warnings.some((msg) => msg.includes('persistence off') && msg.includes('Set appendonly yes and appendfsync everysec')), warnings.join('\n')).to.equal(true);
      await stopWithSigterm(start);
    });
  });

  describe('one REDIS_PREFIX, two MongoDB databases', () => {
    let mongoUri: string;

    beforeEach(async () => {
      const mongoPort = await freePort();
      await startTroupeMongo(mongoPort, troupeEnv({}), spawned);
      mongoUri = `mongodb://127.0.0.1:${mongoPort}/?directConnection=true`;
    });

    const envFor = (database: string) => troupeEnv({ REDIS_URL, REDIS_PREFIX: redisPrefix, MONGODB_URI: mongoUri, MONGODB_DB: database, PORT: '0', LOG_PRETTY: 'false' });
    const startWorker = async (database: string) => {
      const worker = spawnTroupe(['worker'], envFor(database));
      spawned.push(worker);
      await waitForOutput(worker, 'workers started', 60_000);
      return worker;
    };

    it('the second deployment refuses to start; the first restarts, also after Redis lost the binding', async () => {
      await deleteRedisPrefix(redisPrefix, REDIS_URL);
      await stopWithSigterm(await startWorker('guards_a'));

      const gateway = spawnTroupe(['gateway'], envFor('guards_b'));
      spawned.push(gateway);
      const line = await exitedWithOneLine(gateway);
      expect(line).to.match(new RegExp(`^troupe: REDIS_PREFIX=${redisPrefix} belongs to another troupe deployment \\(\\S+\\) than MongoDB database guards_b \\(\\S+\\)`));
      expect(line).to.include(`Set a different REDIS_PREFIX for this deployment, or, if the other deployment is gone for good, delete the Redis key ${redisPrefix}:deployment.`);

      // The same database starts again on its own prefix.
      await stopWithSigterm(await startWorker('guards_a'));

      // Redis came back without its data: the first process to start writes the binding again.
      const redis = new Redis(REDIS_URL);
      cleanups.push(async () => void redis.disconnect());
      expect(await redis.del(`${redisPrefix}:deployment`)).to.equal(1);
      await stopWithSigterm(await startWorker('guards_a'));
      const mongo = new MongoClient(mongoUri);
      cleanups.push(() => mongo.close());
      const stored = await mongo.db('guards_a').collection<{ _id: string; deploymentId: string }>('troupe_deployment').findOne({ _id: 'deployment' });
      expect(await redis.get(`${redisPrefix}:deployment`)).to.equal(stored?.deploymentId);
    });
  });
});
