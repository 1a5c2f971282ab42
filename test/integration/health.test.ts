import { expect } from 'chai';
import { pino } from 'pino';
import { createGatewayApp } from '../../gateway/app.js';
import { startHttpServer, type RunningHttpServer } from '../../gateway/http-server.js';
import { mongoReadinessCheck, redisReadinessCheck } from '../../gateway/readiness.js';
import { connectMongo, type MongoConnection } from '../../models/connection.js';
import { connectRedis, type RedisConnection } from '../../queues/redis.js';

const logger = pino({ level: 'silent' });

describe('GET /readyz against real Redis and MongoDB', function () {
  this.timeout(30_000);
  let redis: RedisConnection;
  let mongo: MongoConnection;
  let http: RunningHttpServer;

  before(async () => {
    redis = await connectRedis({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', logger });
    // MONGODB_URI if set, otherwise a memory-only embedded server.
    mongo = await connectMongo({
      uri: process.env.MONGODB_URI,
      dbName: `troupe_health_test_${process.pid}`,
      embedded: { port: 0 },
      logger,
    });
    const app = createGatewayApp({
      logger,
      readinessChecks: { redis: redisReadinessCheck(redis.client), mongo: mongoReadinessCheck(mongo.connection) },
      readinessTimeoutMs: 1_000,
    });
    http = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
  });

  after(async () => {
    await http?.close();
    await mongo?.stop();
    await redis?.stop();
  });

  it('is ready when Redis answers PING and MongoDB answers ping', async () => {
    const response = await fetch(`${http.url}/readyz`);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ status: 'ready', checks: { redis: 'ok', mongo: 'ok' } });
  });

  it('is not ready, naming mongo, once the MongoDB connection is closed', async () => {
    await mongo.connection.close();
    const response = await fetch(`${http.url}/readyz`);
    expect(response.status).to.equal(503);
    const body = (await response.json()) as { status: string; checks: Record<string, string> };
    expect(body.status).to.equal('not_ready');
    expect(body.checks).to.deep.equal({ redis: 'ok', mongo: 'failed' });
  });
});
