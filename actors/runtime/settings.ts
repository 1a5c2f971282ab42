/**
 * Timing of crash recovery's backstop. A worker process that dies is normally taken over within about
 * a second through its lapsed liveness key (liveness.ts, takeover-watch.ts). Behind that, a drain holds
 * its BullMQ lock for LOCK_DURATION_MS and renews it at half that; a worker that stops renewing (its
 * main thread hung for good, or fast takeover off) has its drain taken over by another worker's
 * stalled-job check, every STALLED_INTERVAL_MS: within about LOCK_DURATION_MS + STALLED_INTERVAL_MS
 * (≈ 7 s). Shorter values would let a worker whose event loop stalls that long be taken over while
 * still running (fencing makes that safe, at the cost of redone work).
 */
export const LOCK_DURATION_MS = 5_000;
export const STALLED_INTERVAL_MS = 2_000;
/** A drain job may be recovered from stalls many times: each recovery resumes the same mailbox. */
export const MAX_STALLED_COUNT = 1_000;
/** How often each worker announces itself (for /readyz) and looks for mailboxes with no drain job. */
export const HEARTBEAT_MS = 5_000;
/** A worker not heard from for this long no longer counts as live. */
export const WORKER_TTL_MS = 15_000;
export const DEFAULT_ACTOR_CONCURRENCY = 50;
/**
 * How long a drain that has emptied its actor's mailbox waits for the next message before it ends.
 * A message that arrives meanwhile is handled by the same drain, without a new BullMQ job. A drain
 * lingers only while the worker has a free drain slot, so another actor's drain waits behind lingering
 * ones for at most this long.
 */
export const DRAIN_LINGER_MS = 50;
/** A drainer key not refreshed for this long lapses (its worker died): posts add drain jobs again. */
export const DRAINER_TTL_MS = 10_000;
export const DEFAULT_SERVICE_CONCURRENCY = 8;
/** On shutdown, in-flight turns get this long to finish before their AbortSignal fires. */
export const SHUTDOWN_GRACE_MS = 10_000;
