import { createConnection } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { maskUrlCredentials } from '../logging/mask-url-credentials.js';
import type { Logger } from '../logging/logger.js';
import { DEFAULT_LOCAL_REDIS_DIR, spawnRedisServer, type SpawnedRedisServer } from './redis-server.js';
import { RedisUnavailableError } from './redis-unavailable-error.js';
import { createRedisClient, type RedisClient } from './redis-client.js';

export { RedisUnavailableError } from './redis-unavailable-error.js';

export const LOCAL_REDIS_HOST = '127.0.0.1';
export const LOCAL_REDIS_PORT = 6379;

export interface RedisConnectionOptions {
  /** REDIS_URL (one server, or `redis+cluster://` seed nodes); when absent, use 127.0.0.1:6379 or spawn redis-server there. */
  url?: string;
  logger: Logger;
  /** Connection attempts before giving up at start-up. */
  connectAttempts?: number;
  /** Executable used when a local server has to be spawned. */
  redisServerCommand?: string;
  localPort?: number;
  /** Data directory of a spawned redis-server (REDIS_DATA_DIR). */
  localDataDir?: string;
}

export interface RedisConnection {
  client: RedisClient;
  url: string;
  /** The redis-server troupe started itself, if it had to. */
  spawnedServer: SpawnedRedisServer | undefined;
  /** Closes the client, then stops the spawned server (if any). */
  stop(): Promise<void>;
}

export async function connectRedis({
  url,
  logger,
  connectAttempts = 5,
  redisServerCommand,
  localPort = LOCAL_REDIS_PORT,
  localDataDir = DEFAULT_LOCAL_REDIS_DIR,
}: RedisConnectionOptions): Promise<RedisConnection> {
  if (url !== undefined) {
    const client = await openRedisClient(url, connectAttempts, logger).catch((error: unknown) => {
      throw new RedisUnavailableError(
        `REDIS_URL=${maskUrlCredentials(url)} is unreachable after ${connectAttempts} attempts (${describe(error)}). ` +
          'Start Redis there, fix REDIS_URL, or unset it to use a local redis-server.',
        { cause: error },
      );
    });
    return redisConnection(client, url, undefined, logger);
  }

  const localUrl = `redis://${LOCAL_REDIS_HOST}:${localPort}`;
  let spawnedServer: SpawnedRedisServer | undefined;
  if (!(await isListening(LOCAL_REDIS_HOST, localPort))) {
    logger.info({ port: localPort }, 'REDIS_URL is not set and nothing listens on the Redis port; spawning redis-server');
    try {
      spawnedServer = await spawnRedisServer({ port: localPort, dir: localDataDir, logger, command: redisServerCommand });
    } catch (error) {
      // Another process may have started one in the meantime (e.g. two `npm start`s at once): use it.
      if (!(await isListening(LOCAL_REDIS_HOST, localPort))) throw error;
    }
  }
  try {
    const client = await openRedisClient(localUrl, connectAttempts, logger);
    return redisConnection(client, localUrl, spawnedServer, logger);
  } catch (error) {
    await spawnedServer?.stop();
    throw new RedisUnavailableError(
      `REDIS_URL is not set and ${LOCAL_REDIS_HOST}:${localPort} does not answer as Redis (${describe(error)}). ` +
        'Stop whatever listens there or set REDIS_URL.',
      { cause: error },
    );
  }
}

function redisConnection(
  client: RedisClient,
  url: string,
  spawnedServer: SpawnedRedisServer | undefined,
  logger: Logger,
): RedisConnection {
  logger.info({ url: maskUrlCredentials(url), spawned: spawnedServer !== undefined }, 'connected to Redis');
  return {
    client,
    url,
    spawnedServer,
    async stop() {
      await closeRedisClient(client);
      await spawnedServer?.stop();
    },
  };
}

/**
 * Connects with a bounded number of attempts. Once connected, the client reconnects on its own for
 * as long as the process runs: a Redis restart must not take troupe down.
 */
async function openRedisClient(url: string, attempts: number, logger: Logger): Promise<RedisClient> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let connected = false;
    let connectionError: Error | undefined;
    const client = createRedisClient(url, {
      lazyConnect: true,
      connectTimeout: 2_000,
      // Commands issued in the same tick leave in one write (the gateway's limit checks, readiness).
      enableAutoPipelining: true,
      retryStrategy: (times) => (connected ? Math.min(times * 100, 2_000) : null),
    });
    client.on('error', (error: Error) => {
      connectionError = error;
      if (connected) logger.warn({ err: error }, 'Redis connection error');
    });
    try {
      await client.connect();
      await client.ping();
      connected = true;
      return client;
    } catch (error) {
      lastError = connectionError ?? error;
      client.disconnect();
      logger.debug({ attempt, attempts, err: lastError }, 'Redis connection attempt failed');
      if (attempt < attempts) await delay(Math.min(200 * 2 ** (attempt - 1), 2_000));
    }
  }
  throw lastError;
}

async function closeRedisClient(client: RedisClient): Promise<void> {
  if (client.status === 'end') return;
  // QUIT waits for pending replies, but would wait forever for a server that is already gone.
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), 1_000);
  });
  const quit = client.quit().then(
    () => true,
    () => false,
  );
  const quitInTime = await Promise.race([quit, timedOut]);
  clearTimeout(timer);
  if (!quitInTime) client.disconnect();
}

/** True when something accepts TCP connections on host:port. */
export function isListening(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const finish = (listening: boolean) => {
      socket.destroy();
      resolve(listening);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
