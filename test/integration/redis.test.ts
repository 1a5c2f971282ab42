import { expect } from 'chai';
import { pino } from 'pino';
import { connectRedis, isListening, RedisUnavailableError, type RedisConnection } from '../../queues/redis.js';
import { spawnRedisServer, type SpawnedRedisServer } from '../../queues/redis-server.js';
import { freePort, tempDir } from '../support/troupe-mongo-process.js';

const logger = pino({ level: 'silent' });

async function expectRedisUnavailable(attempt: Promise<unknown>): Promise<RedisUnavailableError> {
  try {
    await attempt;
  } catch (error) {
    expect(error).to.be.instanceOf(RedisUnavailableError);
    return error as RedisUnavailableError;
  }
  throw new Error('expected a RedisUnavailableError');
}

describe('Redis connection (real redis-server)', function () {
  this.timeout(20_000);
  const opened: Array<RedisConnection | SpawnedRedisServer | { stop(): Promise<void> }> = [];

  /** A data directory for a spawned server, removed after the test (never the checkout's .troupe/redis). */
  async function dataDir(): Promise<string> {
    const dir = await tempDir('troupe-redis-test');
    opened.unshift({ stop: dir.remove });
    return dir.dir;
  }

  afterEach(async () => {
    for (const resource of opened.splice(0).reverse()) await resource.stop();
  });

  it('connects to REDIS_URL when it is set', async () => {
    const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const redis = await connectRedis({ url, logger });
    opened.push(redis);
    expect(await redis.client.ping()).to.equal('PONG');
    expect(redis.spawnedServer).to.equal(undefined);
  });

  it('fails with a bounded number of attempts and names REDIS_URL when it is unreachable', async () => {
    const port = await freePort();
    const error = await expectRedisUnavailable(connectRedis({ url: `redis://:topsecret@127.0.0.1:${port}`, logger, connectAttempts: 2 }));
    expect(error.message).to.include(`REDIS_URL=redis://***@127.0.0.1:${port} is unreachable after 2 attempts`);
    expect(error.message).to.not.include('topsecret');
  });

  it('spawns redis-server when REDIS_URL is unset and nothing listens, and stops it again', async () => {
    const port = await freePort();
    const redis = await connectRedis({ logger, localPort: port, localDataDir: await dataDir() });
    opened.push(redis);
    expect(redis.spawnedServer).to.not.equal(undefined);
    expect(redis.url).to.equal(`redis://127.0.0.1:${port}`);
    await redis.client.set('troupe:test', 'value');
    expect(await redis.client.get('troupe:test')).to.equal('value');

    opened.pop();
    await redis.stop();
    expect(await isListening('127.0.0.1', port)).to.equal(false);
  });

  it('uses a server that already listens instead of spawning one', async () => {
    const port = await freePort();
    const server = await spawnRedisServer({ port, dir: await dataDir(), logger });
    opened.push(server);
    const redis = await connectRedis({ logger, localPort: port });
    opened.push(redis);
    expect(redis.spawnedServer).to.equal(undefined);
    expect(await redis.client.ping()).to.equal('PONG');
  });

  it('explains how to install Redis when redis-server is not on PATH', async () => {
    const port = await freePort();
    const error = await expectRedisUnavailable(
      connectRedis({ logger, localPort: port, localDataDir: await dataDir(), redisServerCommand: 'troupe-test-no-such-redis-server' }),
    );
    expect(error.message).to.include('`troupe-test-no-such-redis-server` is not on PATH');
    expect(error.message).to.include('apt-get install redis-server');
    expect(error.message).to.include('brew install redis');
    expect(error.message).to.include('REDIS_URL');
  });
});
