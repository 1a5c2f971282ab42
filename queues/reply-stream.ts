/**
 * Reply streams: one Redis Stream per request. Entries are `{ e: event name, d: JSON data }`; their ids
 * are the SSE ids, so a client resumes with Last-Event-ID. `done` and `error` end a stream.
 */
import type { RedisClient } from './redis-client.js';

export const TERMINAL_EVENTS = new Set(['done', 'error']);
/** Streams are trimmed to about this many entries and expire this long after their last entry. */
export const REPLY_STREAM_MAX_LEN = 10_000;
export const REPLY_STREAM_TTL_SECONDS = 60 * 60;

export interface ReplyEvent {
  /** Stream entry id (SSE id). */
  id: string;
  event: string;
  data: unknown;
}

/**
 * Lua that appends events to a reply stream (trimmed, its expiry renewed) and, when a channel is named,
 * publishes the new entries there as `[stream, [[id, event, data], ...]]`: the gateway that posted the
 * message hears its reply without reading the stream. Callers define ARGV as documented on `appendArgs`;
 * scripts that do more (the drain's turn finish) embed this function.
 */
export const APPEND_REPLIES_LUA = `
local function append_replies(stream, maxlen, ttl, channel, first, last)
  local ids = {}
  local entries = {}
  for i = first, last, 2 do
    local id = redis.call('XADD', stream, 'MAXLEN', '~', maxlen, '*', 'e', ARGV[i], 'd', ARGV[i + 1])
    ids[#ids + 1] = id
    entries[#entries + 1] = {id, ARGV[i], ARGV[i + 1]}
  end
  if #ids > 0 then
    redis.call('EXPIRE', stream, ttl)
    if channel ~= '' then redis.call('PUBLISH', channel, cjson.encode({stream, entries})) end
  end
  return ids
end`;

/** KEYS[1] stream; ARGV: maxlen, ttl, channel ('' for none), then event/data pairs. */
const APPEND = `${APPEND_REPLIES_LUA}
return append_replies(KEYS[1], ARGV[1], ARGV[2], ARGV[3], 4, #ARGV)`;

/** A stored event, data already JSON: what the scripts take. */
export const eventArgs = (events: Array<{ e: string; d: unknown }>): string[] => events.flatMap((ev) => [ev.e, JSON.stringify(ev.d ?? null)]);

interface ReplyCommands {
  troupeAppendReplies(stream: string, ...args: string[]): Promise<string[]>;
}

/**
 * Defines the reply commands on a connection; ioredis then calls them by SHA. Call it when the
 * connection is made, never lazily: a command defined in a tick whose commands ioredis is already
 * auto-pipelining is missing from that pipeline, and ioredis throws (redis/ioredis#1931).
 */
export function defineReplyCommands(redis: RedisClient): void {
  redis.defineCommand('troupeAppendReplies', { numberOfKeys: 1, lua: APPEND });
}

function replyCommands(redis: RedisClient): RedisClient & ReplyCommands {
  if (!('troupeAppendReplies' in redis)) throw new Error('reply commands are not defined on this Redis connection: call defineReplyCommands when it is made');
  return redis as RedisClient & ReplyCommands;
}

export async function publish(redis: RedisClient, stream: string, event: string, data: unknown, notify?: string): Promise<string> {
  const [id] = await publishAll(redis, stream, [{ e: event, d: data }], notify);
  return id;
}

/**
 * Appends several events atomically (one round trip; a reader sees them together), and tells the
 * `notify` channel about them (see APPEND_REPLIES_LUA).
 */
export async function publishAll(redis: RedisClient, stream: string, events: Array<{ e: string; d: unknown }>, notify?: string): Promise<string[]> {
  if (events.length === 0) return [];
  return replyCommands(redis).troupeAppendReplies(stream, String(REPLY_STREAM_MAX_LEN), String(REPLY_STREAM_TTL_SECONDS), notify ?? '', ...eventArgs(events));
}

export function toEvents(entries: Array<[string, string[]]>): ReplyEvent[] {
  return entries.map(([id, fields]) => {
    const f: Record<string, string> = {};
    for (let i = 0; i < fields.length; i += 2) f[fields[i]] = fields[i + 1];
    let data: unknown;
    try {
      data = JSON.parse(f.d ?? 'null');
    } catch {
      data = f.d;
    }
    return { id, event: f.e ?? 'message', data };
  });
}

/**
 * Reads a reply stream from after `lastId` ('0' = from the start) until a terminal event, the signal
 * aborts, or `idleTimeoutMs` passes with nothing new. Uses its own blocking connection.
 */
export async function* follow(
  redis: RedisClient,
  stream: string,
  options: { lastId?: string; signal?: AbortSignal; blockMs?: number; idleTimeoutMs?: number } = {},
): AsyncGenerator<ReplyEvent> {
  let lastId = options.lastId ?? '0';
  const blockMs = options.blockMs ?? 1000;
  let idleSince = Date.now();
  while (!options.signal?.aborted) {
    const res = (await redis.xread('COUNT', 100, 'BLOCK', blockMs, 'STREAMS', stream, lastId)) as Array<[string, Array<[string, string[]]>]> | null;
    if (options.signal?.aborted) return;
    if (!res) {
      if (options.idleTimeoutMs !== undefined && Date.now() - idleSince > options.idleTimeoutMs) return;
      continue;
    }
    idleSince = Date.now();
    for (const event of toEvents(res[0][1])) {
      lastId = event.id;
      yield event;
      if (TERMINAL_EVENTS.has(event.event)) return;
    }
  }
}

/** Everything a stream holds now (for JSON, non-streaming answers and tests). */
export async function readAll(redis: RedisClient, stream: string): Promise<ReplyEvent[]> {
  return toEvents((await redis.xrange(stream, '-', '+')) as Array<[string, string[]]>);
}
