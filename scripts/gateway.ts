import { connectMongo } from '../models/connection.js';
import type { AnyKind } from '../actors/runtime/contract.js';
import { RedisNames } from '../queues/keys.js';
import { connectRedis } from '../queues/redis.js';
import { bindRedisToMongo, checkRedisServer } from './broker-checks.js';
import type { Config } from './config.js';
import { createLogger } from '../logging/logger.js';
import { currentWebBuild } from './web-build.js';
import { serveGateway } from './serve-gateway.js';
import { ShutdownSequence } from './shutdown-sequence.js';
import { onShutdownSignal } from './shutdown-signal.js';
import { LOCAL_REDIS_URL, sharedMongoUri } from './worker.js';

/**
 * `troupe gateway`: the HTTP/MCP gateway alone (run several behind a load balancer; no affinity
 * needed). It shares Redis and MongoDB with the workers, so it needs MONGODB_URI.
 */
export async function runGateway(config: Config, kinds: AnyKind[]): Promise<number> {
  const logger = createLogger(config.log);
  const uri = sharedMongoUri(config, 'troupe gateway');
  const shutdown = new ShutdownSequence();
  const signalled = onShutdownSignal(logger);
  const redisUrl = config.redis.url ?? LOCAL_REDIS_URL;
  try {
    const redisLogger = logger.child({ component: 'redis' });
    const redis = await connectRedis({ url: redisUrl, logger: redisLogger });
    shutdown.add('redis', () => redis.stop());
    await checkRedisServer(redis, config, redisLogger);
    const mongo = await connectMongo({ uri, dbName: config.mongo.dbName, embedded: config.mongo.embedded, logger: logger.child({ component: 'mongo' }) });
    shutdown.add('mongo', () => mongo.stop());
    const names = RedisNames.forRedis(redisUrl, config.redis.prefix, config.redis.partitions);
    await bindRedisToMongo(redis, mongo.connection, names);
    // A gateway serves the web client as built (`npm run build`); it never builds in production.
    const webClientDir = await currentWebBuild();
    if (webClientDir === undefined) logger.warn('the web client is not built (npm run build): / says so; the APIs work');
    const gateway = await serveGateway({ config, logger, redis: redis.client, redisUrl, mongo: mongo.connection, kinds, names, webClientDir });
    shutdown.add('gateway', () => gateway.close());
    logger.info({ url: gateway.url, mcp: `${gateway.url}/mcp` }, `troupe gateway is up at ${gateway.url} (MCP at ${gateway.url}/mcp)`);
  } catch (error) {
    await shutdown.run(logger);
    throw error;
  }
  const signal = await signalled.received;
  logger.info({ signal }, 'shutting down');
  return (await shutdown.run(logger)) ? 0 : 1;
}
