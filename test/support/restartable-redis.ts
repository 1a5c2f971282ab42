/**
 * A redis-server of a test's own that can be stopped and started again on the same port and data
 * directory, as an operator restarts Redis. Append-only persistence is on unless turned off, so what was
 * acknowledged before a stop (SIGTERM: Redis flushes the AOF as it exits) is there after the start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { pollUntil } from './async.js';
import { freePort, tempDir } from './troupe-mongo-process.js';

export interface RestartableRedis {
  url: string;
  /** SIGTERM and wait for the exit; the data directory stays. */
  stop(): Promise<void>;
  /** Starts the server again on the same port and directory, once it answers PING with its data loaded. */
  start(): Promise<void>;
  /** Everything the server printed (for failure messages). */
  output(): string;
  /** Stops the server if it runs and removes its data directory. */
  remove(): Promise<void>;
}

/** `persistence: false` runs without the append-only file: a restart then comes back empty, as a Redis that lost its data. */
export async function startRestartableRedis(options: { persistence?: boolean } = {}): Promise<RestartableRedis> {
  const port = await freePort();
  const dir = await tempDir('troupe-test-redis-restart');
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';

  const stop = async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    child = undefined;
  };

  const start = async () => {
    if (child) throw new Error('redis-server is already running');
    const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir.dir, '--save', '', '--appendonly', options.persistence === false ? 'no' : 'yes'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = server;
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    exited = new Promise((resolve) => server.once('exit', () => resolve()));
    await pollUntil(
      async () => {
        if (server.exitCode !== null) throw new Error(`redis-server exited: ${output}`);
        const probe = new Redis(url, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => null });
        probe.on('error', () => undefined);
        try {
          await probe.connect();
          // PING answers while the AOF is still loading; INFO says when the data is all there.
          return /loading:0/.test(await probe.info('persistence'));
        } finally {
          probe.disconnect();
        }
      },
      { timeoutMs: 15_000, what: `redis-server on port ${port}` },
    );
  };

  await start();
  return {
    url,
    stop,
    start,
    output: () => output,
    async remove() {
      await stop();
      await dir.remove();
    },
  };
}
