import { connectMongo } from '../models/connection.js';
import { startWorkers } from '../actors/runtime/workers.js';
import { RedisNames } from '../queues/keys.js';
import { connectRedis } from '../queues/redis.js';
import type { AnyKind } from '../actors/runtime/contract.js';
import { MongoUnavailableError } from '../models/mongo-unavailable-error.js';
import { TroupeMetrics } from '../gateway/metrics.js';
import { startMetricsServer } from '../gateway/metrics-server.js';
import type { Config } from './config.js';
import { createLogger } from '../logging/logger.js';
import { ShutdownSequence } from './shutdown-sequence.js';
import { onShutdownSignal } from './shutdown-signal.js';
import { agentResources } from './agent-resources.js';
import { bindRedisToMongo, checkRedisServer } from './broker-checks.js';

export const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';

/** Gateways and workers started on their own must share one database: MONGODB_URI is required. */
export function sharedMongoUri(config: Config, command: string): string {
  if (config.mongo.uri) return config.mongo.uri;
  throw new MongoUnavailableError(
    `${command} needs MONGODB_URI: gateways and workers must share one database (run \`troupe mongo --dbpath DIR\` and point every process at it, or use \`troupe start\` for everything in one process)`,
  );
}

/**
 * `troupe worker`: BullMQ workers for the given kinds, until SIGINT/SIGTERM. A worker process shares
 * Redis and MongoDB with the gateways, so it needs MONGODB_URI (an embedded server of its own would
 * hold different data). With METRICS_PORT it serves its turn and commit metrics at GET /metrics there.
 */
export async function runWorker(config: Config, kinds: AnyKind[]): Promise<number> {
  const logger = createLogger(config.log);
  const uri = sharedMongoUri(config, 'troupe worker');
  const shutdown = new ShutdownSequence();
  const signalled = onShutdownSignal(logger);
  const mongo = await connectMongo({ uri, dbName: config.mongo.dbName, embedded: config.mongo.embedded, logger: logger.child({ component: 'mongo' }) });
  shutdown.add('mongo', () => mongo.stop());
  try {
    // The workers open their own connections; this one is for the start-up checks.
    const redisUrl = config.redis.url ?? LOCAL_REDIS_URL;
    const redisLogger = logger.child({ component: 'redis' });
    const redis = await connectRedis({ url: redisUrl, logger: redisLogger });
    shutdown.add('redis', () => redis.stop());
    await checkRedisServer(redis, config, redisLogger);
    const names = RedisNames.forRedis(redisUrl, config.redis.prefix, config.redis.partitions);
    await bindRedisToMongo(redis, mongo.connection, names);
    // Without an endpoint nobody would read the metrics: collect none.
    const endpoint = config.metrics.port === null ? undefined : { port: config.metrics.port, metrics: new TroupeMetrics() };
    const workers = await startWorkers({
      redisUrl,
      mongo: mongo.connection,
      kinds,
      ...(await agentResources(config, mongo.connection)),
      logger: logger.child({ component: 'worker' }),
      names,
      observer: endpoint?.metrics,
      storeOutageRetryMs: config.mongo.outageRetryMs,
      takeover: config.takeover,
      residents: config.worker.residents,
    });
    shutdown.add('workers', () => workers.close());
    if (endpoint) {
      const server = await startMetricsServer(endpoint.metrics, { host: config.http.host, port: endpoint.port, token: config.gateway.metricsToken, logger: logger.child({ component: 'metrics' }) });
      shutdown.add('metrics endpoint', () => server.close());
      logger.info({ metrics: `${server.url}/metrics` }, `worker metrics at ${server.url}/metrics`);
    }
  } catch (error) {
    await shutdown.run(logger);
    throw error;
  }
  const signal = await signalled.received;
  logger.info({ signal }, 'shutting down: finishing in-flight turns');
  return (await shutdown.run(logger)) ? 0 : 1;
}
