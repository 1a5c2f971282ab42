/**
 * Notices that Redis has lost its data (restarted without persistence, flushed, or replaced by an empty
 * server): every mailbox entry, drain job and reply stream of the moment is gone, so whoever waits on
 * one must be told instead of waiting for a reply that cannot come.
 *
 * A random epoch is kept at `PREFIX:broker-epoch`. It never changes while Redis keeps its data. Each
 * watcher remembers the epoch it saw and compares it every BROKER_EPOCH_CHECK_MS and after every
 * reconnect: a key that is gone is written again (the first watcher to see it wins), and one that holds
 * another epoch than remembered was written again by another process. Either way the data was lost.
 *
 * Why not `PREFIX:deployment`: every process writes that same value again at start, so a worker that
 * started after the loss would hide it from the gateways.
 */
import { randomUUID } from 'node:crypto';
import { createRedisClient, type RedisClient } from './redis-client.js';
import type { Logger } from '../logging/logger.js';
import type { RedisNames } from './keys.js';

/** How often the epoch is compared; a loss is noticed within this plus one reconnect attempt. */
export const BROKER_EPOCH_CHECK_MS = 500;
/** The longest pause between reconnect attempts of the watcher's connection (ioredis's default is 2 s). */
const MAX_RECONNECT_DELAY_MS = 250;

/** Returns the epoch the key holds, setting it to ARGV[1] first if it holds none (GET and SET NX as one step). */
const CLAIM_SCRIPT = `
local held = redis.call('GET', KEYS[1])
if held then return held end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
`;

export const brokerEpochKey = (names: RedisNames): string => `${names.prefix}:broker-epoch`;

export interface BrokerEpochOptions {
  logger: Logger;
  /** Runs once per loss noticed, before the next comparison. */
  onReset: () => Promise<void>;
  intervalMs?: number;
}

export class BrokerEpochWatcher {
  private readonly redis: RedisClient;
  private epoch?: string;
  private timer?: ReturnType<typeof setInterval>;
  private checking?: Promise<void>;
  private closed = false;
  /** Losses noticed since start. */
  resets = 0;

  constructor(
    redisUrl: string,
    private readonly key: string,
    private readonly options: BrokerEpochOptions,
  ) {
    // No offline queue: a comparison while Redis is down fails at once, and the next tick tries again.
    this.redis = createRedisClient(redisUrl, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectionName: key,
      retryStrategy: (attempt) => Math.min(attempt * 50, MAX_RECONNECT_DELAY_MS),
    });
    // Down and reconnecting is an expected state here; the gateway's other clients report outages.
    this.redis.on('error', () => undefined);
    this.redis.on('ready', () => void this.check());
  }

  /** Reads (or sets) the epoch, then compares it periodically. */
  async start(): Promise<void> {
    await this.redis.connect();
    this.epoch = await this.claim();
    this.timer = setInterval(() => void this.check(), this.options.intervalMs ?? BROKER_EPOCH_CHECK_MS);
    this.timer.unref();
  }

  /** One comparison at a time: a tick during a slow one (or its onReset) joins it. */
  check(): Promise<void> {
    this.checking ??= this.compare().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async claim(): Promise<string> {
    return (await this.redis.eval(CLAIM_SCRIPT, 1, this.key, randomUUID())) as string;
  }

  private async compare(): Promise<void> {
    if (this.closed || this.epoch === undefined) return;
    let held: string;
    try {
      held = await this.claim();
    } catch {
      return;
    }
    if (held === this.epoch || this.closed) return;
    this.epoch = held;
    this.resets += 1;
    this.options.logger.warn({ key: this.key }, 'Redis came back without its data (the broker epoch changed): answering waiting requests with broker_reset');
    await this.options.onReset().catch((error: unknown) => this.options.logger.error({ err: error }, 'recovering from the Redis data loss failed'));
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.checking;
    this.redis.disconnect();
  }
}
