/**
 * Redis as a broker that keeps what it accepted: the redis-server troupe spawns persists to an
 * append-only file, a server that may evict keys is refused (or only warned about), one that persists
 * nothing is warned about, and a REDIS_PREFIX is bound to the MongoDB deployment that first used it.
 */
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { pino } from 'pino';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { deploymentIdOf } from '../../models/deployment.js';
import { bindRedisPrefix } from '../../queues/deployment-binding.js';
import { RedisNames } from '../../queues/keys.js';
import { connectRedis } from '../../queues/redis.js';
import { RedisMisconfiguredError } from '../../queues/redis-misconfigured-error.js';
import { checkRedisSettings } from '../../queues/redis-settings.js';
import { EVICTING_UNPERSISTED_REDIS, startRedisServer } from '../support/redis-server-process.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { freePort, tempDir } from '../support/troupe-mongo-process.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A logger whose lines (parsed) land in `lines`. */
function capturingLogger(): { logger: pino.Logger; lines: Array<{ level: number; msg: string }> } {
  const lines: Array<{ level: number; msg: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as { level: number; msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

const WARN = 40;
const DEBUG = 20;

async function refusal(attempt: Promise<unknown>): Promise<RedisMisconfiguredError> {
  try {
    await attempt;
  } catch (error) {
    expect(error).to.be.instanceOf(RedisMisconfiguredError);
    return error as RedisMisconfiguredError;
  }
  throw new Error('expected a RedisMisconfiguredError');
}

describe('Redis start-up guards', function () {
  this.timeout(30_000);
  const cleanups: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  describe('the redis-server troupe spawns', () => {
    it('keeps an append-only file (fsync every second) in .troupe/redis under the data directory, never evicts, and keeps data across a restart', async () => {
      const root = await tempDir('troupe-redis-data');
      cleanups.push(root.remove);
      const dataDir = join(root.dir, '.troupe', 'redis');
      const port = await freePort();
      const { logger, lines } = capturingLogger();

      const first = await connectRedis({ logger, localPort: port, localDataDir: dataDir });
      cleanups.push(() => first.stop());
      expect(first.spawnedServer).to.not.equal(undefined);
      expect(await first.client.config('GET', 'appendonly')).to.deep.equal(['appendonly', 'yes']);
      expect(await first.client.config('GET', 'appendfsync')).to.deep.equal(['appendfsync', 'everysec']);
      expect(await first.client.config('GET', 'maxmemory-policy')).to.deep.equal(['maxmemory-policy', 'noeviction']);
      expect(await first.client.config('GET', 'dir')).to.deep.equal(['dir', dataDir]);
      await checkRedisSettings(first.client, { url: first.url, allowEviction: false, logger });
      expect(lines.filter((line) => line.level >= WARN)).to.deep.equal([]);

      await first.client.set('troupe-test:kept', 'across a restart');
      await first.stop();
      const second = await connectRedis({ logger, localPort: port, localDataDir: dataDir });
      cleanups.push(() => second.stop());
      expect(second.spawnedServer).to.not.equal(undefined);
      expect(await second.client.get('troupe-test:kept')).to.equal('across a restart');
    });
  });

  describe('maxmemory-policy and persistence', () => {
    let server: Awaited<ReturnType<typeof startRedisServer>>;
    let client: Redis;

    beforeEach(async () => {
      server = await startRedisServer(EVICTING_UNPERSISTED_REDIS);
      client = new Redis(server.url);
      cleanups.push(server.stop, async () => void client.disconnect());
    });

    it('refuses a server that may evict keys, naming the policy and what to set', async () => {
      const { logger } = capturingLogger();
      const error = await refusal(checkRedisSettings(client, { url: server.url, allowEviction: false, logger }));
      expect(error.message).to.include(`Redis at ${server.url} has maxmemory-policy allkeys-lru`);
      expect(error.message).to.include('maxmemory-policy noeviction');
      expect(error.message).to.include('TROUPE_ALLOW_EVICTION=1');
      expect(error.message).to.not.include('\n');
    });

    it('with eviction allowed, starts with one warning for eviction and one for persistence', async () => {
      const { logger, lines } = capturingLogger();
      await checkRedisSettings(client, { url: server.url, allowEviction: true, logger });
      const warnings = lines.filter((line) => line.level === WARN).map((line) => line.msg);
      expect(warnings).to.have.length(2);
      expect(warnings[0]).to.include('maxmemory-policy allkeys-lru').and.include('TROUPE_ALLOW_EVICTION').and.include('Set maxmemory-policy noeviction');
      expect(warnings[1]).to.include('persistence off').and.include('Set appendonly yes and appendfsync everysec');
    });

    it('does not warn about persistence when RDB snapshots are on', async () => {
      await client.config('SET', 'maxmemory-policy', 'noeviction');
      await client.config('SET', 'save', '3600 1');
      const { logger, lines } = capturingLogger();
      await checkRedisSettings(client, { url: server.url, allowEviction: false, logger });
      expect(lines.filter((line) => line.level >= WARN)).to.deep.equal([]);
    });
  });

  it('skips the checks with a debug line when CONFIG is renamed away, as on managed services', async () => {
    const server = await startRedisServer([...EVICTING_UNPERSISTED_REDIS, '--rename-command', 'CONFIG', '']);
    const client = new Redis(server.url);
    cleanups.push(server.stop, async () => void client.disconnect());
    const { logger, lines } = capturingLogger();
    await checkRedisSettings(client, { url: server.url, allowEviction: false, logger });
    expect(lines.map((line) => line.level)).to.deep.equal([DEBUG]);
    expect(lines[0]!.msg).to.include('skipping the maxmemory-policy and persistence checks');
  });

  describe('binding REDIS_PREFIX to a MongoDB deployment', () => {
    let mongo: EmbeddedMongo;
    let redis: Redis;
    const names = new RedisNames(`test-binding-${process.pid}-${Date.now().toString(36)}`);
    const databases: Record<string, mongoose.Connection> = {};

    before(async () => {
      mongo = await startEmbeddedMongo({ port: 0 });
      redis = new Redis(REDIS_URL);
      for (const name of ['deploy_a', 'deploy_b']) databases[name] = await mongoose.createConnection(mongo.uri, { dbName: name }).asPromise();
    });

    after(async () => {
      await deleteRedisPrefix(names.prefix, REDIS_URL);
      redis.disconnect();
      for (const connection of Object.values(databases)) await connection.close();
      await mongo.stop();
    });

    const identity = async (name: string) => ({ deploymentId: await deploymentIdOf(databases[name]!), database: name });

    it('gives each database one id, even to processes asking at once', async () => {
      const ids = await Promise.all(Array.from({ length: 5 }, () => deploymentIdOf(databases.deploy_a!)));
      expect(new Set(ids).size).to.equal(1);
      expect(await deploymentIdOf(databases.deploy_a!)).to.equal(ids[0]);
      expect(await deploymentIdOf(databases.deploy_b!)).to.not.equal(ids[0]);
    });

    it('claims a free prefix, refuses another database on it naming both, and lets its own database restart', async () => {
      const a = await identity('deploy_a');
      await bindRedisPrefix(redis, names, a);
      expect(await redis.get(names.deployment())).to.equal(a.deploymentId);

      const b = await identity('deploy_b');
      const error = await refusal(bindRedisPrefix(redis, names, b));
      expect(error.message).to.include(`REDIS_PREFIX=${names.prefix}`);
      expect(error.message).to.include('MongoDB database deploy_b');
      expect(error.message).to.include('Set a different REDIS_PREFIX');
      expect(error.message).to.include(a.deploymentId).and.include(b.deploymentId);

      await bindRedisPrefix(redis, names, a);
      expect(await redis.get(names.deployment())).to.equal(a.deploymentId);
    });

    it('refuses a process that spreads actors over another number of partitions, saying how to agree', async () => {
      const a = await identity('deploy_a');
      await bindRedisPrefix(redis, names, a);
      expect(await redis.get(names.partitionCount())).to.equal(String(names.partitions));
      const other = new RedisNames(names.prefix, names.partitions * 2);
      const error = await refusal(bindRedisPrefix(redis, other, a));
      expect(error.message).to.include(`REDIS_PARTITIONS=${names.partitions * 2}`).and.include(`Set REDIS_PARTITIONS=${names.partitions}`);
      await bindRedisPrefix(redis, names, a);
    });

    it('writes the id again when Redis lost it', async () => {
      const a = await identity('deploy_a');
      await bindRedisPrefix(redis, names, a);
      await redis.del(names.deployment());
      await bindRedisPrefix(redis, names, a);
      expect(await redis.get(names.deployment())).to.equal(a.deploymentId);
    });
  });
});
