/**
 * Reply streams: one Redis Stream per request. Entries are `{ e: event name, d: JSON data }`; their ids
 * are the SSE ids, so a client resumes with Last-Event-ID. `done` and `error` end a stream.
 */
import type { Redis } from 'ioredis';

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

export async function publish(redis: Redis, stream: string, event: string, data: unknown): Promise<string> {
  const [id] = await publishAll(redis, stream, [{ e: event, d: data }]);
  return id;
}

/** Appends several events atomically (one round trip; a reader sees them together). */
export async function publishAll(redis: Redis, stream: string, events: Array<{ e: string; d: unknown }>): Promise<string[]> {
  const multi = redis.multi();
  for (const ev of events) multi.xadd(stream, 'MAXLEN', '~', String(REPLY_STREAM_MAX_LEN), '*', 'e', ev.e, 'd', JSON.stringify(ev.d ?? null));
  multi.expire(stream, REPLY_STREAM_TTL_SECONDS);
  const results = (await multi.exec()) as Array<[Error | null, string]>;
  return results.slice(0, events.length).map(([, id]) => id);
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
  redis: Redis,
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
export async function readAll(redis: Redis, stream: string): Promise<ReplyEvent[]> {
  return toEvents((await redis.xrange(stream, '-', '+')) as Array<[string, string[]]>);
}
