import { setTimeout as delay } from 'node:timers/promises';

export interface PollOptions {
  /** Give up after this long (a bounded deadline, never an assertion on speed). */
  timeoutMs: number;
  /** Pause between two probes. */
  intervalMs?: number;
  /** What was awaited, for the error message. */
  what: string;
}

/**
 * Calls `probe` until it returns something other than `undefined`/`false`, and returns that value.
 * Throws with `what` in the message when the deadline passes first; the last probe error, if any,
 * is attached as the cause.
 */
export async function pollUntil<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs, intervalMs = 50, what }: PollOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: lastError });
    }
    await delay(intervalMs);
  }
}

/**
 * Awaits `promise`, but rejects with a clear message if it has not settled within `ms`
 * (used where a server that blocks instead of answering would otherwise hang the test).
 */
export async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const abort = new AbortController();
  const timer = delay(ms, undefined, { signal: abort.signal }).then(
    () => {
      throw new Error(`${what} did not settle within ${ms} ms`);
    },
    () => undefined as never,
  );
  try {
    return await Promise.race([promise, timer]);
  } finally {
    abort.abort();
  }
}

/** A promise with its resolve function, for hand-made barriers between concurrent tasks. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/**
 * How long a test lets `troupe start` take to be ready: a first start loads the MTG dataset, which on a
 * busy 2-core machine can take a minute or more. A ceiling for a wait keyed to readiness, never a sleep.
 */
export const STARTUP_BOUND_MS = 180_000;
