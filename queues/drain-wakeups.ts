/**
 * Wake-ups for lingering drains. A drain that has emptied its actor's mailbox may stay a moment
 * (request/reply clients send their next message soon after the answer); meanwhile the actor's
 * drainer key names this worker's channel, and a post publishes the actor's key there instead of
 * adding a drain job. One subscriber per worker process serves all its drains.
 *
 * A wake-up is only a shortcut: a drain that misses one still reads the mailbox when its linger ends,
 * and leaving is atomic with that read (see Mailboxes.leave), so no message waits for a drain that
 * is gone.
 *
 * A wake-up can arrive between a drain's last read and its wait (the post landed just after the read):
 * it is kept briefly, and the wait that follows returns at once instead of sleeping through its linger —
 * if it was heard after that read was sent. One heard before it is for a message the read returned.
 */
import { createRedisClient, type RedisClient } from './redis-client.js';

/** How long an early wake-up counts, and how many are kept: a drain waits right after its read. */
const EARLY_WAKE_KEPT_MS = 1_000;
const EARLY_WAKES_KEPT = 10_000;

export class DrainWakeups {
  private readonly subscriber: RedisClient;
  private readonly waiting = new Map<string, Set<(woken: boolean) => void>>();
  /** Wake-ups nobody waited for yet (actor key -> when heard), oldest first; kept EARLY_WAKE_KEPT_MS. */
  private readonly early = new Map<string, number>();
  private subscribed = false;
  private live = false;
  private closed = false;

  constructor(redisUrl: string, readonly channel: string) {
    this.subscriber = createRedisClient(redisUrl, { maxRetriesPerRequest: null, connectionName: channel });
    this.subscriber.on('message', (_channel: string, actorKey: string) => {
      const waiters = this.waiting.get(actorKey);
      if (waiters) for (const done of [...waiters]) done(true);
      else this.keepEarly(actorKey);
    });
    this.subscriber.on('close', () => {
      this.live = false;
    });
    this.subscriber.on('ready', () => {
      if (this.subscribed) this.live = true;
    });
    this.subscriber.subscribe(channel).then(
      () => {
        this.subscribed = true;
        this.live = !this.closed;
      },
      () => undefined,
    );
  }

  /** True while wake-ups arrive: only then may a drain linger and name this channel. */
  get listening(): boolean {
    return this.live && !this.closed;
  }

  /**
   * Resolves true when a post wakes `actorKey`, false after `ms` or when `signal` aborts. `readAt`
   * (performance.now()): when the drain sent its last read of the mailbox.
   */
  wait(actorKey: string, ms: number, readAt: number, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted || this.closed) return Promise.resolve(false);
    const heard = this.early.get(actorKey);
    if (heard !== undefined) {
      this.early.delete(actorKey);
      if (heard >= readAt && performance.now() - heard < EARLY_WAKE_KEPT_MS) return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      let set = this.waiting.get(actorKey);
      if (!set) this.waiting.set(actorKey, (set = new Set()));
      const done = (woken: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        set.delete(done);
        if (set.size === 0 && this.waiting.get(actorKey) === set) this.waiting.delete(actorKey);
        resolve(woken);
      };
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), ms);
      signal?.addEventListener('abort', onAbort, { once: true });
      set.add(done);
    });
  }

  private keepEarly(actorKey: string) {
    const now = performance.now();
    this.early.delete(actorKey);
    this.early.set(actorKey, now);
    for (const [key, at] of this.early) {
      if (now - at < EARLY_WAKE_KEPT_MS && this.early.size <= EARLY_WAKES_KEPT) break;
      this.early.delete(key);
    }
  }

  async close() {
    this.closed = true;
    this.live = false;
    for (const set of [...this.waiting.values()]) for (const done of [...set]) done(false);
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}
