/**
 * A redis-server of a test's own, started with the settings under test (eviction policy, persistence,
 * renamed commands) on a free loopback port, in a temporary directory removed by `stop()`.
 */
import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { pollUntil } from './async.js';
import { freePort, tempDir } from './troupe-mongo-process.js';

export interface RedisServerProcess {
  url: string;
  /** `127.0.0.1:PORT`. */
  address: string;
  pid: number | undefined;
  /** Everything the server printed (for failure messages). */
  output(): string;
  /** SIGTERM, waits for the exit, removes the data directory. */
  stop(): Promise<void>;
}

/** `redis-server --port P --bind 127.0.0.1 --dir TMP ...args`, once it answers PING. */
export async function startRedisServer(args: string[]): Promise<RedisServerProcess> {
  const port = await freePort();
  const dir = await tempDir('troupe-test-redis');
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir.dir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `redis://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await dir.remove();
  };
  try {
    await pollUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited: ${output}`);
        const probe = new Redis(url, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => null });
        probe.on('error', () => undefined);
        try {
          await probe.connect();
          return (await probe.ping()) === 'PONG';
        } finally {
          probe.disconnect();
        }
      },
      { timeoutMs: 10_000, what: `redis-server on port ${port}` },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, address: `127.0.0.1:${port}`, pid: child.pid, output: () => output, stop };
}

/** The settings a troupe must refuse or warn about: keys evicted under memory pressure, nothing persisted. */
export const EVICTING_UNPERSISTED_REDIS = ['--save', '', '--appendonly', 'no', '--maxmemory-policy', 'allkeys-lru'];
