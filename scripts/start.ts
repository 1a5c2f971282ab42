import { createGatewayApp } from '../gateway/app.js';
import { startHttpServer } from '../gateway/http-server.js';
import { mongoReadinessCheck, redisReadinessCheck } from '../gateway/readiness.js';
import { connectMongo } from '../models/connection.js';
import { connectRedis } from '../queues/redis.js';
import type { Config } from './config.js';
import { createLogger } from './logger.js';
import { ShutdownSequence } from './shutdown-sequence.js';
import { onShutdownSignal } from './shutdown-signal.js';

/**
 * `troupe start`: logger -> Redis -> Mongo -> HTTP. Resolves with the exit code once a
 * SIGINT/SIGTERM has shut everything down in reverse order. Start-up errors are thrown.
 */
export async function runStart(config: Config): Promise<number> {
  const logger = createLogger(config.log);
  const shutdown = new ShutdownSequence();
  const signalled = onShutdownSignal(logger);

  try {
    const redis = await connectRedis({ url: config.redis.url, logger: logger.child({ component: 'redis' }) });
    shutdown.add('redis', () => redis.stop());
    throwIfSignalled(signalled);

    const mongo = await connectMongo({
      uri: config.mongo.uri,
      dbName: config.mongo.dbName,
      embedded: config.mongo.embedded,
      logger: logger.child({ component: 'mongo' }),
    });
    shutdown.add('mongo', () => mongo.stop());
    throwIfSignalled(signalled);

    const app = createGatewayApp({
      logger: logger.child({ component: 'gateway' }),
      readinessChecks: { redis: redisReadinessCheck(redis.client), mongo: mongoReadinessCheck(mongo.connection) },
    });
    const http = await startHttpServer(app, config.http);
    shutdown.add('http', () => http.close());

    logger.info(
      { healthz: `${http.url}/healthz`, readyz: `${http.url}/readyz` },
      `troupe is up: health at ${http.url}/healthz, readiness at ${http.url}/readyz`,
    );
  } catch (error) {
    await shutdown.run(logger);
    if (error instanceof SignalledDuringStart) return 0;
    throw error;
  }

  const signal = await signalled.received;
  logger.info({ signal }, 'shutting down');
  const clean = await shutdown.run(logger);
  logger.info({ clean }, 'stopped');
  return clean ? 0 : 1;
}

class SignalledDuringStart extends Error {}

function throwIfSignalled(signalled: { signal: NodeJS.Signals | undefined }): void {
  if (signalled.signal !== undefined) throw new SignalledDuringStart(`received ${signalled.signal} while starting`);
}
