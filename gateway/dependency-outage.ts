/**
 * A request that failed because Redis (the broker) or MongoDB (the store) is unreachable is answered
 * `503` with `Retry-After` and `broker_unavailable` / `store_unavailable`, never as a server bug: the
 * client did nothing wrong and may simply try again. `toErrorResponse` and the MCP handlers ask here.
 */
import { isMongoOutage } from '../models/mongo-outage.js';
import { isRedisOutage } from '../queues/redis-outage.js';

/** Long enough for a Redis restart or a MongoDB election to finish; the same as the SSE reconnect delay. */
export const OUTAGE_RETRY_AFTER_SECONDS = 2;

export interface DependencyOutage {
  status: 503;
  code: 'broker_unavailable' | 'store_unavailable';
  message: string;
  details: { retryable: true };
  retryAfterSeconds: number;
}

export const OUTAGE_CODES: ReadonlySet<string> = new Set<DependencyOutage['code']>(['broker_unavailable', 'store_unavailable']);

const BROKER: DependencyOutage = {
  status: 503,
  code: 'broker_unavailable',
  message: 'the message broker (Redis) cannot be reached right now; try again shortly, with the same Idempotency-Key if you sent one',
  details: { retryable: true },
  retryAfterSeconds: OUTAGE_RETRY_AFTER_SECONDS,
};

const STORE: DependencyOutage = {
  status: 503,
  code: 'store_unavailable',
  message: 'the database (MongoDB) cannot be reached right now; try again shortly',
  details: { retryable: true },
  retryAfterSeconds: OUTAGE_RETRY_AFTER_SECONDS,
};

/** The outage behind `thrown` (or one of its causes), if it is one. */
export function dependencyOutageOf(thrown: unknown): DependencyOutage | undefined {
  let error = thrown;
  for (let depth = 0; error instanceof Error && depth < 5; depth++) {
    if (isRedisOutage(error)) return BROKER;
    if (isMongoOutage(error)) return STORE;
    error = error.cause;
  }
  return undefined;
}
