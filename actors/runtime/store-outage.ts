/**
 * What a turn does when MongoDB is out of reach (killed, restarting, electing a primary): it is not the
 * sender's fault and not the handler's, so the drain retries it, with backoff, instead of answering an
 * error. Only once the outage has lasted longer than the bound (STORE_OUTAGE_RETRY_SECONDS, default
 * 30 s) does the waiting client hear `store_unavailable`; the message stays in its mailbox for a later
 * drain. The bound runs from the first failure this process saw in the current outage, not from each
 * turn's: a drain that starts an hour into an outage tells its clients after one attempt, not 30 s later.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { causedByMongoOutage } from '../../models/mongo-outage.js';
import type { StoredEvent } from '../../models/actor-record.js';
import type { Logger } from './contract.js';

export const DEFAULT_STORE_OUTAGE_RETRY_MS = 30_000;
/** First pause between two attempts; doubled after each failure up to MAX_PAUSE_MS. */
const FIRST_PAUSE_MS = 100;
/**
 * How long one fence or commit may take before it is given up and tried again: far longer than either
 * takes (milliseconds), as long as the driver's server selection timeout.
 */
export const STORE_CALL_TIMEOUT_MS = 10_000;
/** Also the pause of a drain that gave up before the next drain of its actor tries again. */
const MAX_PAUSE_MS = 2_000;

/**
 * A store call that neither answered nor failed within its time: handled as an outage. Seen after a
 * kill -9 of the server: now and then a commit sent around the kill never settles (the driver keeps
 * waiting on it), and a drain awaiting it would hold its actor forever.
 */
export class StoreCallTimeout extends Error {
  constructor(ms: number) {
    super(`MongoDB did not answer within ${ms} ms`);
    this.name = 'StoreCallTimeout';
  }
}

/** The outage outlasted the bound: the turn was not applied and stays queued. */
export class StoreUnavailable extends Error {
  constructor(retryMs: number, options: { cause: unknown }) {
    super(`the database (MongoDB) has been unreachable for more than ${Math.round(retryMs / 1000)} s`, options);
    this.name = 'StoreUnavailable';
  }
}

/**
 * The terminal event a waiting client gets when the bound passes. A queued message (an actor's) was
 * posted and stays in its mailbox: resending it without an Idempotency-Key would apply it twice. A
 * service request was not run and may simply be sent again.
 */
export function storeUnavailableEvent(messageId: string, retryMs: number, queued: boolean): StoredEvent {
  const unreachable = `the database (MongoDB) has been unreachable for more than ${Math.round(retryMs / 1000)} s`;
  const message = queued
    ? `${unreachable}; the message is still queued and will be applied once the database is back. Follow its replies, or resend it only with the same Idempotency-Key`
    : `${unreachable}; the request was not run. Try again shortly`;
  return { e: 'error', d: { code: 'store_unavailable', message, details: { retryable: true, queued, messageId } } };
}

export class StoreOutage {
  /** When this process first failed to reach MongoDB in the current outage; undefined while it can. */
  private since: number | undefined;

  /**
   * `retryMs`: how long an outage may last before waiting clients are told. `logger`: told once when an
   * outage begins and once when it ends (with how long it lasted), not at every retry.
   */
  constructor(
    readonly retryMs: number = DEFAULT_STORE_OUTAGE_RETRY_MS,
    private readonly logger?: Pick<Logger, 'warn' | 'info'>,
  ) {}

  /** True while the last attempt through this policy failed for an outage (for logs and metrics). */
  get ongoing(): boolean {
    return this.since !== undefined;
  }

  /**
   * Runs `op`; while it fails because MongoDB is out of reach, waits and runs it again. Throws
   * StoreUnavailable once the outage is older than the bound, any other error at once, and the outage's
   * own error when `signal` aborts (the worker is stopping: the message is handed back, not answered).
   * Bounded: every pass either returns, throws, or waits, and the waits end with the bound.
   */
  async retry<T>(op: () => Promise<T>, options: { signal?: AbortSignal; attemptTimeoutMs?: number; onRetry?: (error: unknown, attempt: number) => void } = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        const value = options.attemptTimeoutMs === undefined ? await op() : await withTimeout(op(), options.attemptTimeoutMs);
        if (this.since !== undefined) {
          this.logger?.info({ outageMs: Date.now() - this.since }, 'MongoDB reachable again: turns commit again');
          this.since = undefined;
        }
        return value;
      } catch (error) {
        if (!(error instanceof StoreCallTimeout) && !causedByMongoOutage(error)) throw error;
        const now = Date.now();
        if (this.since === undefined) {
          this.since = now;
          this.logger?.warn({ err: error, retryMs: this.retryMs }, 'MongoDB out of reach: retrying turns until it is back (waiting clients are told store_unavailable after retryMs)');
        }
        if (options.signal?.aborted) throw error;
        if (now - this.since >= this.retryMs) throw new StoreUnavailable(this.retryMs, { cause: error });
        options.onRetry?.(error, attempt);
        const remaining = this.retryMs - (now - this.since);
        await this.pause(Math.min(remaining, backoff(attempt)), options.signal);
      }
    }
  }

  /** The pause of a drain that gave up, before its actor's next drain tries again (ends early on `signal`). */
  pauseAfterGivingUp(signal?: AbortSignal): Promise<void> {
    return this.pause(MAX_PAUSE_MS, signal);
  }

  private async pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    await delay(ms, undefined, { signal }).catch(() => undefined);
  }
}

/**
 * A call's result, or StoreCallTimeout after `ms`. The call itself goes on: safe for fencing and
 * commits, which are conditional (a late one that lands makes the next commit of a stale drain fail).
 */
async function withTimeout<T>(call: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreCallTimeout(ms)), ms);
  });
  try {
    return await Promise.race([call, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Exponential, with jitter so that the drains of many actors do not retry in step. */
function backoff(attempt: number): number {
  const ceiling = Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** Math.min(attempt - 1, 10));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}
