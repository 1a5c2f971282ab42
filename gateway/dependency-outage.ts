/**
 * A request that failed because Redis (the broker) or MongoDB (the store) is unreachable is answered
 * `503` with `Retry-After` and `broker_unavailable` / `store_unavailable`, never as a server bug: the
 * client did nothing wrong and may simply try again. `toErrorResponse` and the MCP handlers ask here.
 */
import {
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoStalePrimaryError,
  MongoTopologyClosedError,
} from 'mongodb';
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

/**
 * The driver's errors for "no server to talk to" (MongoNetworkError covers its subclasses: timeouts and
 * the pool cleared under an operation by another one's network error).
 */
const MONGO_UNREACHABLE = [MongoNetworkError, MongoServerSelectionError, MongoNotConnectedError, MongoTopologyClosedError, MongoServerClosedError, MongoStalePrimaryError];

/** Server codes for "not now": shutting down, stepping down, no primary, network trouble between members. */
const MONGO_NOT_NOW_CODES = new Set([6, 7, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436]);

/**
 * Socket failures the MongoDB driver sometimes lets through unwrapped (a command written to a connection
 * the server has just closed fails with a bare EPIPE). ioredis never does: it rejects commands with its
 * own errors, and the gateway makes no other outbound connections, so a bare one is the store's.
 */
const SOCKET_FAILURE_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

function isBareSocketFailure(error: Error): boolean {
  const { code, status } = error as Error & { code?: unknown; status?: unknown };
  // An HTTP error (a client's aborted upload) carries a status: that is the client's socket, not a dependency's.
  return typeof code === 'string' && SOCKET_FAILURE_CODES.has(code) && status === undefined;
}

function isMongoOutage(error: Error): boolean {
  if (MONGO_UNREACHABLE.some((type) => error instanceof type) || isBareSocketFailure(error)) return true;
  if (error instanceof MongoServerError) return typeof error.code === 'number' && MONGO_NOT_NOW_CODES.has(error.code);
  // mongoose's own: no server selected, or a command held while disconnected until it gave up.
  return error.name === 'MongooseServerSelectionError' || (error.name === 'MongooseError' && error.message.includes('buffering timed out'));
}

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
