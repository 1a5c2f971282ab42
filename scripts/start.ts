import { startWorkers } from '../actors/runtime/workers.js';
import type { AnyKind } from '../actors/runtime/contract.js';
import { RedisNames } from '../queues/keys.js';
import { connectMongo } from '../models/connection.js';
import { connectRedis } from '../queues/redis.js';
import { bindRedisToMongo, checkRedisServer } from './broker-checks.js';
import type { Config } from './config.js';
import { writeEmbeddedMongoAddress } from './embedded-mongo-address.js';
import { loadMtgDatasetOnStart } from './load-mtg-dataset.js';
import { announceLocalLogin } from './local-login.js';
import { createLogger } from '../logging/logger.js';
import { ShutdownSequence } from './shutdown-sequence.js';
import { onShutdownSignal } from './shutdown-signal.js';
import { ensureWebBuild } from './web-build.js';
import { serveGateway } from './serve-gateway.js';
import { agentResources } from './agent-resources.js';
import { TroupeMetrics } from '../gateway/metrics.js';

/**
 * `troupe start`: logger -> Redis (+ its settings checked) -> Mongo (+ the prefix bound to it, the MTG dataset on first start) -> workers for every kind -> gateway (HTTP + MCP). Resolves with the exit code once a
 * SIGINT/SIGTERM has shut everything down in reverse order. Start-up errors are thrown.
 */
export async function runStart(config: Config, kinds: AnyKind[]): Promise<number> {
  const logger = createLogger(config.log);
  const shutdown = new ShutdownSequence();
  const signalled = onShutdownSignal(logger);
  // npm start serves the web client, built when missing or older than its sources. The build (esbuild,
  // then brotli and gzip in the thread pool) runs beside the rest of the start-up, the first start's
  // MTG load included, and is awaited just before the gateway serves it.
  const webBuild = ensureWebBuild((line) => logger.info({ component: 'web' }, line));
  webBuild.catch(() => undefined);

  try {
    const redisLogger = logger.child({ component: 'redis' });
    const redis = await connectRedis({ url: config.redis.url, localDataDir: config.redis.localDataDir, logger: redisLogger });
    shutdown.add('redis', () => redis.stop());
    await checkRedisServer(redis, config, redisLogger);
    throwIfSignalled(signalled);

    const mongo = await connectMongo({
      uri: config.mongo.uri,
      dbName: config.mongo.dbName,
      embedded: config.mongo.embedded,
      logger: logger.child({ component: 'mongo' }),
    });
    shutdown.add('mongo', () => mongo.stop());
    if (mongo.embeddedServer) {
      // Lets `troupe users ...` name this server's URI while we hold the journal's lock.
      shutdown.add('embedded mongo address', await writeEmbeddedMongoAddress(config.mongo.embedded.dbpath, mongo.uri));
    }
    const names = RedisNames.forRedis(redis.url, config.redis.prefix, config.redis.partitions);
    await bindRedisToMongo(redis, mongo.connection, names);
    throwIfSignalled(signalled);
    // Before the workers: the meta tools answer from this data. Takes seconds, and only on the first start.
    await loadMtgDatasetOnStart(mongo.connection, logger.child({ component: 'seed' }));
    throwIfSignalled(signalled);

    // Agents call this process's own gateway, whose URL is known once it listens (PORT may be 0).
    const ownGateway: { url?: string } = {};
    const agents = await agentResources(config, mongo.connection, () => ownGateway.url);
    // One registry: the gateway's /metrics also serves what the workers in this process record.
    const metrics = new TroupeMetrics();
    const workers = await startWorkers({ redisUrl: redis.url, mongo: mongo.connection, kinds, ...agents, logger: logger.child({ component: 'worker' }), names, observer: metrics, storeOutageRetryMs: config.mongo.outageRetryMs, takeover: config.takeover, residents: config.worker.residents });
    shutdown.add('workers', () => workers.close());
    const web = await webBuild;
    const gateway = await serveGateway({ config, logger, redis: redis.client, redisUrl: redis.url, mongo: mongo.connection, kinds, names, webClientDir: web.dir, metrics });
    shutdown.add('gateway', () => gateway.close());
    ownGateway.url = gateway.url;

    logger.info(
      { healthz: `${gateway.url}/healthz`, readyz: `${gateway.url}/readyz`, mcp: `${gateway.url}/mcp` },
      `troupe is up: health at ${gateway.url}/healthz, readiness at ${gateway.url}/readyz, MCP at ${gateway.url}/mcp`,
    );
    await announceLocalLogin({ users: gateway.users, baseUrl: gateway.url, logger, createLocalUser: config.nodeEnv !== 'production' });
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
