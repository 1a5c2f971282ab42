import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { Logger } from '../logging/logger.js';
import { RedisUnavailableError } from './redis-unavailable-error.js';

export const REDIS_INSTALL_HINT =
  'Install Redis (Debian/Ubuntu: `apt-get install redis-server`; macOS: `brew install redis`) ' +
  'or set REDIS_URL to a running Redis (e.g. REDIS_URL=redis://127.0.0.1:6379).';

/** Where a spawned redis-server keeps its append-only file unless told otherwise (REDIS_DATA_DIR), beside the embedded Mongo's `.troupe/mongo`. */
export const DEFAULT_LOCAL_REDIS_DIR = '.troupe/redis';

export interface SpawnRedisServerOptions {
  port: number;
  /** Data directory (created if missing); relative paths resolve against the working directory. */
  dir: string;
  logger: Logger;
  /** Executable to run; looked up on PATH. */
  command?: string;
  /** How long to wait for the server to answer PING. */
  readyTimeoutMs?: number;
}

/** A redis-server child process owned by this process. */
export interface SpawnedRedisServer {
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts a redis-server for development and waits until it answers PING (which it does only once it
 * has replayed its append-only file). Redis is the broker: accepted messages live only there, so the
 * server keeps an AOF in `dir` (fsync every second: at most a second of writes lost to a power cut)
 * and never evicts keys. The child runs in its own process group so that Ctrl-C in a terminal reaches
 * only troupe, which then stops it last, after everything that still talks to it.
 */
export async function spawnRedisServer({
  port,
  dir,
  logger,
  command = 'redis-server',
  readyTimeoutMs = 10_000,
}: SpawnRedisServerOptions): Promise<SpawnedRedisServer> {
  const dataDir = resolve(dir);
  await mkdir(dataDir, { recursive: true }).catch((error: unknown) => {
    throw new RedisUnavailableError(`could not create the redis-server data directory ${dataDir} (REDIS_DATA_DIR): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  });
  const args = [
    ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dataDir],
    // The AOF is the persistence; RDB snapshots on top of it would only add fork pauses.
    ...['--appendonly', 'yes', '--appendfsync', 'everysec', '--save', ''],
    ...['--maxmemory-policy', 'noeviction'],
  ];
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const url = `redis://127.0.0.1:${port}`;

  let output = '';
  const keepOutput = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keepOutput);
  child.stderr?.on('data', keepOutput);

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const spawnFailure = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') {
        reject(new RedisUnavailableError(`REDIS_URL is not set, nothing listens on 127.0.0.1:${port}, and \`${command}\` is not on PATH. ${REDIS_INSTALL_HINT}`, { cause: error }));
      } else {
        reject(new RedisUnavailableError(`could not start \`${command}\`: ${error.message}. ${REDIS_INSTALL_HINT}`, { cause: error }));
      }
    });
  });
  spawnFailure.catch(() => undefined);

  // If troupe dies without running its shutdown, do not leave the child behind.
  const killOnExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  process.once('exit', killOnExit);

  const earlyExit = exited.then(({ code, signal }) => {
    throw new RedisUnavailableError(
      `\`${command}\` exited (${signal ?? `code ${code}`}) before answering PING on port ${port}:\n${output.trim()}`,
    );
  });
  earlyExit.catch(() => undefined);

  const stopPolling = new AbortController();
  try {
    await Promise.race([spawnFailure, earlyExit, waitForPing(url, readyTimeoutMs, stopPolling.signal)]);
  } catch (error) {
    stopPolling.abort();
    await stopChild(child, exited);
    process.removeListener('exit', killOnExit);
    throw error;
  }
  logger.info({ pid: child.pid, url, dir: dataDir }, 'started redis-server');

  return {
    url,
    pid: child.pid,
    async stop() {
      await stopChild(child, exited);
      process.removeListener('exit', killOnExit);
      logger.info({ pid: child.pid }, 'stopped redis-server');
    },
  };
}

async function waitForPing(url: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  // The server needs a moment after spawn before it accepts connections: poll until the deadline.
  while (Date.now() < deadline && !signal.aborted) {
    const client = new Redis(url, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', (error: Error) => {
      lastError = error;
    });
    try {
      await client.connect();
      if ((await client.ping()) === 'PONG') return;
    } catch (error) {
      lastError ??= error;
    } finally {
      client.disconnect();
    }
    await delay(50);
  }
  throw new RedisUnavailableError(`redis-server did not answer PING within ${timeoutMs} ms`, { cause: lastError });
}

async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}
