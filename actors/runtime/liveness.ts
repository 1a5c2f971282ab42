/**
 * A worker process's liveness key, renewed from a worker thread with its own Redis connection. A turn
 * that keeps the main event loop busy (a long computation, a GC pause, a slow synchronous library) does
 * not delay the renewal, so the key lapses only when the process is gone — or cut off from Redis for
 * longer than the TTL, where fencing keeps its late work harmless. Each renewal also rewrites the
 * process's registry entry (which BullMQ workers it runs), so a process taken over by mistake is
 * registered again at its next beat.
 *
 * The thread runs a few lines of plain JavaScript (eval) that load ioredis by absolute path: troupe
 * runs its TypeScript through tsx, whose loader does not reach worker threads, and the same code must
 * work from the compiled dist/ too.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from './contract.js';
import type { LivenessEntry } from '../../queues/liveness-registry.js';
import { redisTarget } from '../../queues/redis-client.js';

/** How fast a crashed worker's actors are taken over (LIVENESS_TTL_MS, LIVENESS_RENEW_MS, TAKEOVER_CHECK_MS). */
export interface TakeoverSettings {
  /** A liveness key not renewed for this long lapses: its process counts as dead. */
  livenessTtlMs: number;
  /** How often the thread renews it (at most a third of the TTL). */
  livenessRenewMs: number;
  /** How often this process looks for lapsed ones (0: never; BullMQ's stalled check still recovers). */
  checkMs: number;
}

export const DEFAULT_TAKEOVER_SETTINGS: TakeoverSettings = { livenessTtlMs: 800, livenessRenewMs: 200, checkMs: 100 };

export interface LivenessOptions {
  redisUrl: string;
  workerId: string;
  /** The liveness key and the registry hash (RedisNames.alive / liveness). */
  aliveKey: string;
  registryKey: string;
  entry: LivenessEntry;
  ttlMs: number;
  renewMs: number;
  logger: Logger;
}

/** Messages from the thread: the first beat landed, renewals started or stopped failing, unregistered. */
type BeatMessage = { kind: 'beating' } | { kind: 'failing'; error: string } | { kind: 'recovered' } | { kind: 'stopped' };

const BEAT_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { Redis, Cluster } = require(workerData.ioredis);
const { redisUrl, target, workerId, aliveKey, registryKey, entry, ttlMs, renewMs } = workerData;
// No offline queue: a renewal that cannot go now is worthless later.
const nodeOptions = { maxRetriesPerRequest: 0, connectionName: 'troupe-liveness' };
const redis =
  target.kind === 'cluster'
    ? new Cluster(target.nodes, { enableOfflineQueue: false, scaleReads: 'master', redisOptions: { ...nodeOptions, username: target.username, password: target.password, tls: target.tls ? {} : undefined } })
    : new Redis(redisUrl, { ...nodeOptions, enableOfflineQueue: false });
redis.on('error', () => undefined);
let failing = false;
let first = true;
const beat = () =>
  redis.multi().set(aliveKey, '1', 'PX', ttlMs).hset(registryKey, workerId, entry).exec().then(
    () => {
      if (first) parentPort.postMessage({ kind: 'beating' });
      else if (failing) parentPort.postMessage({ kind: 'recovered' });
      first = false;
      failing = false;
    },
    (error) => {
      if (!failing) parentPort.postMessage({ kind: 'failing', error: String(error && error.message) });
      failing = true;
    },
  );
redis.once('ready', beat);
const timer = setInterval(() => { if (redis.status === 'ready') beat(); }, renewMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  // Same connection, so this runs after any renewal still in flight.
  redis.multi().hdel(registryKey, workerId).del(aliveKey).exec().catch(() => undefined).finally(() => {
    redis.disconnect();
    parentPort.postMessage({ kind: 'stopped' });
  });
});
`;

/** Longest wait for the thread's first beat, and for its goodbye on stop (Redis unreachable). */
const HANDSHAKE_BOUND_MS = 5_000;

export class LivenessBeat {
  private thread: Worker | undefined;
  private stopping = false;

  private constructor(private readonly options: LivenessOptions) {}

  /** Starts the thread; resolves after its first renewal (or, if Redis does not answer, after a bound). */
  static async start(options: LivenessOptions): Promise<LivenessBeat> {
    const beat = new LivenessBeat(options);
    const first = await beat.spawn();
    if (!first) options.logger.warn({ workerId: options.workerId }, 'liveness key not written yet; fast takeover of this worker waits for Redis');
    return beat;
  }

  /** Stops renewing and removes the key and the registry entry (after this, the process counts as gone). */
  async stop(): Promise<void> {
    this.stopping = true;
    const thread = this.thread;
    if (!thread) return;
    await this.until(thread, 'stopped', () => thread.postMessage('stop'));
    await thread.terminate();
  }

  /** Resolves true when the first beat landed, false after HANDSHAKE_BOUND_MS. */
  private spawn(): Promise<boolean> {
    const { logger, workerId } = this.options;
    const { redisUrl, aliveKey, registryKey, entry, ttlMs, renewMs } = this.options;
    const thread = new Worker(BEAT_THREAD, {
      eval: true,
      workerData: { redisUrl, target: redisTarget(redisUrl), workerId, aliveKey, registryKey, entry: JSON.stringify(entry), ttlMs, renewMs, ioredis: createRequire(import.meta.url).resolve('ioredis') },
    });
    // The thread never keeps the process alive: the workers' own connections do, until close.
    thread.unref();
    this.thread = thread;
    thread.on('message', (message: BeatMessage) => {
      if (message.kind === 'failing') logger.warn({ workerId, error: message.error }, 'liveness renewal failing; other workers may take this one over');
      if (message.kind === 'recovered') logger.info({ workerId }, 'liveness renewal recovered');
    });
    thread.on('error', (err) => logger.error({ err, workerId }, 'liveness thread failed'));
    thread.on('exit', () => {
      // A thread that died on its own is replaced; without it this live worker would be taken over.
      if (!this.stopping && this.thread === thread) setTimeout(() => !this.stopping && void this.spawn(), this.options.renewMs).unref();
    });
    return this.until(thread, 'beating');
  }

  private until(thread: Worker, kind: BeatMessage['kind'], send?: () => void): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        thread.off('message', onMessage);
        thread.off('exit', onExit);
        resolve(ok);
      };
      const onMessage = (message: BeatMessage) => message.kind === kind && done(true);
      const onExit = () => done(false);
      const timer = setTimeout(() => done(false), HANDSHAKE_BOUND_MS);
      thread.on('message', onMessage);
      thread.on('exit', onExit);
      send?.();
    });
  }
}
