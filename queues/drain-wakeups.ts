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
 *
 * When the posted entry was all the mailbox held (and was never applied), the wake-up carries it:
 * `actor key \n entry id \n envelope`. The drain then runs it without reading the mailbox, unless it
 * has committed that entry already (a wake-up heard late; see `entryAfter`).
 */
import type { MailboxEntry } from './mailbox.js';
import { createRedisClient, type RedisClient } from './redis-client.js';
import { compareIds } from './reply-reader.js';

/** What woke a drain: the posted entry, when the wake-up carried it (else the drain reads its mailbox). */
export interface Woken {
  entry: MailboxEntry | undefined;
}

/** How long an early wake-up counts, and how many are kept: a drain waits right after its read. */
const EARLY_WAKE_KEPT_MS = 1_000;
const EARLY_WAKES_KEPT = 10_000;

export class DrainWakeups {
  private readonly subscriber: RedisClient;
  private readonly waiting = new Map<string, Set<(woken: Woken | undefined) => void>>();
  /** Wake-ups nobody waited for yet (actor key -> when heard, and what), oldest first; kept EARLY_WAKE_KEPT_MS. */
  private readonly early = new Map<string, { at: number; woken: Woken }>();
  private subscribed = false;
  private live = false;
  private closed = false;

  constructor(redisUrl: string, readonly channel: string) {
    this.subscriber = createRedisClient(redisUrl, { maxRetriesPerRequest: null, connectionName: channel });
    this.subscriber.on('message', (_channel: string, message: string) => {
      const { actorKey, woken } = parseWake(message);
      const waiters = this.waiting.get(actorKey);
      if (waiters) for (const done of [...waiters]) done(woken);
      else this.keepEarly(actorKey, woken);
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
   * Resolves when a post wakes `actorKey`, with what the wake-up carried; undefined after `ms` or when
   * `signal` aborts. `readAt` (performance.now()): when the drain sent its last read of the mailbox.
   */
  wait(actorKey: string, ms: number, readAt: number, signal?: AbortSignal): Promise<Woken | undefined> {
    if (signal?.aborted || this.closed) return Promise.resolve(undefined);
    const heard = this.early.get(actorKey);
    if (heard !== undefined) {
      this.early.delete(actorKey);
      if (heard.at >= readAt && performance.now() - heard.at < EARLY_WAKE_KEPT_MS) return Promise.resolve(heard.woken);
    }
    return new Promise((resolve) => {
      let set = this.waiting.get(actorKey);
      if (!set) this.waiting.set(actorKey, (set = new Set()));
      const done = (woken: Woken | undefined) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        set.delete(done);
        if (set.size === 0 && this.waiting.get(actorKey) === set) this.waiting.delete(actorKey);
        resolve(woken);
      };
      const onAbort = () => done(undefined);
      const timer = setTimeout(() => done(undefined), ms);
      signal?.addEventListener('abort', onAbort, { once: true });
      set.add(done);
    });
  }

  private keepEarly(actorKey: string, woken: Woken) {
    const now = performance.now();
    this.early.delete(actorKey);
    this.early.set(actorKey, { at: now, woken });
    for (const [key, { at }] of this.early) {
      if (now - at < EARLY_WAKE_KEPT_MS && this.early.size <= EARLY_WAKES_KEPT) break;
      this.early.delete(key);
    }
  }

  async close() {
    this.closed = true;
    this.live = false;
    for (const set of [...this.waiting.values()]) for (const done of [...set]) done(undefined);
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}

/** A wake-up message: the actor's key, then (when the post's entry came with it) its entry id and envelope. */
function parseWake(message: string): { actorKey: string; woken: Woken } {
  const first = message.indexOf('\n');
  if (first < 0) return { actorKey: message, woken: { entry: undefined } };
  const second = message.indexOf('\n', first + 1);
  if (second < 0) return { actorKey: message.slice(0, first), woken: { entry: undefined } };
  const entry: MailboxEntry = { entryId: message.slice(first + 1, second), envelope: message.slice(second + 1), applied: null, appliedChecked: true };
  return { actorKey: message.slice(0, first), woken: { entry } };
}

/**
 * The entry a wake-up carried, if the drain has not committed it yet (`appliedSeq`: the last entry it
 * committed). A wake-up heard late may carry an entry the drain has since read and run the usual way;
 * then (or when a recreated mailbox restarted its ids lower) the drain reads its mailbox instead.
 */
export function entryAfter(woken: Woken, appliedSeq: string): MailboxEntry | undefined {
  const entry = woken.entry;
  return entry !== undefined && compareIds(entry.entryId, appliedSeq) > 0 ? entry : undefined;
}
