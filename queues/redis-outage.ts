/**
 * Whether an error means Redis could not be reached or cannot serve right now (down, restarting, still
 * loading its data after a restart), as opposed to a command Redis refused on its merits. ioredis and
 * BullMQ both surface ioredis's errors; they are recognised by name and message because several
 * copies of ioredis's error classes may be loaded.
 */

/** ioredis's messages for a command that never got an answer because the connection is gone. */
const CONNECTION_LOST_MESSAGES = new Set([
  'Connection is closed.',
  'Command aborted due to connection close',
  "Stream isn't writeable and enableOfflineQueue options is false",
]);

/** Redis's own replies for "not now": loading its dataset, busy with a script, no writable primary, ... */
const NOT_NOW_REPLY = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|READONLY|MISCONF|OOM)\b/;

export function isRedisOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // The client gave up retrying while disconnected (maxRetriesPerRequest).
  if (error.name === 'MaxRetriesPerRequestError') return true;
  if (CONNECTION_LOST_MESSAGES.has(error.message)) return true;
  return error.name === 'ReplyError' && NOT_NOW_REPLY.test(error.message);
}
