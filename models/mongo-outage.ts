/**
 * Whether an error means MongoDB could not be reached or cannot serve right now (down, restarting,
 * electing a primary), as opposed to a command it refused on its merits. The gateway answers such a
 * request `503 store_unavailable`; the runtime retries a turn that hit one (actors/runtime/store-outage.ts).
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
 * own errors, so a bare one is the store's.
 */
const SOCKET_FAILURE_CODES = new Set(['EPIPE', 'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

function isBareSocketFailure(error: Error): boolean {
  const { code, status } = error as Error & { code?: unknown; status?: unknown };
  // An HTTP error (a client's aborted upload) carries a status: that is the client's socket, not a dependency's.
  return typeof code === 'string' && SOCKET_FAILURE_CODES.has(code) && status === undefined;
}

/** `error` itself (not its causes) is MongoDB out of reach. */
export function isMongoOutage(error: Error): boolean {
  if (MONGO_UNREACHABLE.some((type) => error instanceof type) || isBareSocketFailure(error)) return true;
  if (error instanceof MongoServerError) return typeof error.code === 'number' && MONGO_NOT_NOW_CODES.has(error.code);
  // mongoose's own: no server selected, or a command held while disconnected until it gave up.
  return error.name === 'MongooseServerSelectionError' || (error.name === 'MongooseError' && error.message.includes('buffering timed out'));
}

/** `thrown` or one of its causes (a handler may wrap the driver's error) is MongoDB out of reach. */
export function causedByMongoOutage(thrown: unknown): boolean {
  let error = thrown;
  for (let depth = 0; error instanceof Error && depth < 5; depth++) {
    if (isMongoOutage(error)) return true;
    error = error.cause;
  }
  return false;
}
