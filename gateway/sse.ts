/**
 * The one module that writes Server-Sent Events for reply streams. It uses koa-sse-stream (the stack's
 * choice) and contains its problems:
 *
 * - its object mode writes `data: [object Object]`: every frame is handed over with `data` already a
 *   JSON string (only `event`/`id` ride beside it), heartbeats are comment strings;
 * - its middleware starts a global ping `setInterval` that is never cleared (the process cannot exit)
 *   and `console.log`s on every tick, keeps every open stream in an array, and makes the stream Koa's
 *   body (Koa then adds finish and error listeners of its own to each response). We use its writer
 *   class alone: the same frames and headers, none of that; heartbeats are ours, per stream, unref'd.
 *   Under load (32 concurrent SSE clients) the middleware's way had about 8 kB more of every message's
 *   objects survive into the old generation, freed only by mark-compacts (measured with the abort
 *   signals and ioredis pipelines, which do the same, out of the way);
 * - Koa 3 pipes a stream body with `stream.pipeline` and reports the "premature close" of every client
 *   disconnect to `app.onerror` (console.error by default): we pipe the writer to the socket ourselves
 *   (`ctx.respond = false`) and treat a disconnect as the normal end it is.
 *
 * Events carry the Redis Stream entry id as `id:`, so a client resumes with `Last-Event-ID` (header, or
 * `lastEventId` query parameter for clients without EventSource). A `done` or `error` event ends the
 * response; a client disconnect aborts the reader. Streams opened and events written are reported to
 * the request's `EventStreamObserver`, if it has one (metrics).
 *
 * A client that does not read as fast as events come is written to until more than its send buffer cap
 * (send-buffer-cap.ts) waits for it; then it is dropped with a warning, and resumes with Last-Event-ID
 * when it reads again. So one slow or hostile client costs at most the cap in memory.
 */
import type { Context } from 'koa';
import type { SseFrame, SseWriter } from 'koa-sse-stream';
import SseTransform from 'koa-sse-stream/lib/sse.js';
import { z } from 'zod';
import type { Logger } from '../actors/runtime/contract.js';
import { TERMINAL_EVENTS, type ReplyEvent } from '../queues/reply-stream.js';
import { ApiError, toErrorResponse } from './error-response.js';
import { SendBufferMeter, sendBufferCapOf } from './send-buffer-cap.js';

/** Default interval of heartbeat comments: below the 30-60 s idle timeouts of common proxies. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/** The `retry:` each stream announces: how long a client waits before it reconnects with Last-Event-ID. */
export const SSE_RETRY_MS = 2_000;
/** Longest an SSE response's opening waits for its first event, to leave in the same write. */
export const OPENING_HOLD_MS = 20;
/** Node clamps larger timer delays to 1 ms (and warns), which would make a "never" ping fire constantly. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** A Redis Stream entry id, the only thing `Last-Event-ID` may carry. */
export const LastEventId = z.string().regex(/^\d{1,20}-\d{1,20}$/, 'Last-Event-ID must be a reply stream entry id such as 1700000000000-0');

/** An event the writer sends; `id` is absent for events the gateway adds (they are not in the stream). */
export interface OutgoingEvent {
  event: string;
  id?: string;
  data: unknown;
}

/**
 * Why a stream ended: a terminal event was sent, the client left, the caller's signal stopped it, the
 * source ended (without a terminal event) or failed, or the client fell too far behind and was dropped.
 */
export type StreamEnd = 'terminal' | 'disconnected' | 'stopped' | 'source_ended' | 'source_failed' | 'dropped';

export interface StreamEventsOptions {
  /** The caller's own cancellation (e.g. server shutdown); the stream also stops when the client leaves. */
  signal?: AbortSignal;
  /** Interval of `: heartbeat` comments (ms); 0 turns them off. */
  heartbeatMs?: number;
  logger?: Logger;
  /** Told of each event as it is written (terminal ones included), e.g. to time a reply. */
  onEvent?: (event: OutgoingEvent) => void;
}

/**
 * Told of the SSE streams a request opens, for metrics. The metrics middleware puts one on
 * `ctx.state.eventStreams`; without one, streams are not observed.
 */
export interface EventStreamObserver {
  opened(): void;
  closed(): void;
  /** An event read from a Redis stream was written to the client; its entry id says when it was appended. */
  written(appendedAtMs: number): void;
}

export interface EventStream {
  /** Settles when the response is over (never rejects); a handler must not await it before returning. */
  finished: Promise<StreamEnd>;
}

// Abort reasons made once: abort() without a reason builds a DOMException with a stack trace per stream.
const STOPPED = Object.freeze({ name: 'AbortError', message: 'the event stream was stopped' });
const CLIENT_GONE = Object.freeze({ name: 'AbortError', message: 'the client disconnected' });

/** The resume point of a request: `Last-Event-ID` header first (a reconnecting EventSource sets it), else `?lastEventId=`. */
export function lastEventIdOf(ctx: Context): string | undefined {
  const header = ctx.get('last-event-id');
  const query = ctx.query.lastEventId;
  const raw = header !== '' ? header : Array.isArray(query) ? query[query.length - 1] : query;
  if (raw === undefined || raw === '') return undefined;
  const parsed = LastEventId.safeParse(raw);
  if (!parsed.success) {
    throw new ApiError(400, 'bad_request', parsed.error.issues[0]?.message ?? 'invalid Last-Event-ID', { lastEventId: raw.slice(0, 100) });
  }
  return parsed.data;
}

/** The terminal `error` event for something thrown mid-stream; server faults do not leak their message. */
export function errorEventOf(thrown: unknown): OutgoingEvent {
  const { body } = toErrorResponse(thrown);
  return { event: 'error', data: body.error };
}

/** A frame whose `data` is a JSON string, never an object (see the module comment). */
export function frameOf(event: OutgoingEvent): SseFrame {
  // A line break in a field would end the frame early; actor event names are plain words anyway.
  const frame: SseFrame = { event: event.event.replace(/[\r\n]/g, ' '), data: JSON.stringify(event.data ?? null) };
  if (event.id !== undefined) frame.id = event.id.replace(/[\r\n]/g, '');
  return frame;
}

type EventSource = AsyncIterable<ReplyEvent | OutgoingEvent>;

/**
 * Answers the request with an SSE stream of `events`, and returns at once (Koa must not wait for the
 * stream). Prefer passing a function: it receives a signal that aborts when the client disconnects (or
 * `options.signal` aborts), to hand to the reader, e.g. `(signal) => client.replies(stream, { signal })`.
 * Call this only after every check that may answer with a JSON error: from here on, errors become a
 * terminal `error` event.
 */
export async function streamEvents(
  ctx: Context,
  events: EventSource | ((signal: AbortSignal) => EventSource),
  options: StreamEventsOptions = {},
): Promise<EventStream> {
  // The writer sets the SSE headers, which a started response cannot take: a programming error, said
  // loudly. From here on the response is ours (Koa writes nothing of it).
  if (ctx.res.headersSent) throw new Error('streamEvents: the response has already started');
  ctx.status = 200;
  const writer = new SseTransform(ctx);

  // One controller per stream (each costs allocations the GC feels under load): the client leaving or
  // the caller's signal aborts it; `clientLeft` tells the two apart. No listener of the stream's is
  // left on either signal once it ends: one on a long-lived caller's signal would pile up, and one on
  // `stop` would keep the request's objects reachable for as long as the signal lives.
  const stop = new AbortController();
  let clientLeft = false;
  let pumped = false;
  const stopOnCallerAbort = () => stop.abort(STOPPED);
  if (options.signal?.aborted) stop.abort(STOPPED);
  else options.signal?.addEventListener('abort', stopOnCallerAbort, { once: true });
  const { res } = ctx;
  ctx.respond = false;
  // No flushHeaders(): the writer's opening `:ok` comment is already queued, and the headers leave in
  // the same write as it — one write fewer per stream, and the client still hears at once.
  // Our own pipe: Koa's would report every client disconnect ("premature close") to app.onerror.
  // A plain pipe, not stream.pipeline: pipeline makes an AbortController and a DOMException per
  // response, a measurable cost per message; the response's 'close' is all we need to watch.
  // The opening (headers, `:ok`, the retry hint) is held until the first event or OPENING_HOLD_MS, so
  // a quick answer leaves in one write with it instead of three (each a syscall on both ends).
  res.cork();
  let holding = true;
  const release = () => {
    if (!holding) return;
    holding = false;
    clearTimeout(openingTimer);
    setImmediate(() => res.uncork());
  };
  const openingTimer = setTimeout(release, OPENING_HOLD_MS);
  writer.pipe(res);
  writer.send({ retry: SSE_RETRY_MS, data: ':reconnect with Last-Event-ID' });
  // Counted open until the response closes (a client that left already is never counted).
  const observer = res.closed ? undefined : (ctx.state as { eventStreams?: EventStreamObserver }).eventStreams;
  observer?.opened();
  // Listen to the response's 'close', not the request's: Node 20 closes a request once its body is read.
  res.once('close', () => {
    observer?.closed();
    clientLeft = true;
    clearInterval(heartbeat);
    // After a terminal event nothing reads the source any more: an abort would only cost an event.
    if (!pumped) stop.abort(CLIENT_GONE);
    if (!writer.writableFinished) writer.destroy();
  });

  // Looked up only when there is something to log: the request's logger is made on first use.
  const logger = () => options.logger ?? (ctx.state as { logger?: Logger }).logger;
  const cap = sendBufferCapOf(ctx);
  const meter = new SendBufferMeter(res.socket);
  let dropped = false;
  /** Drops the client once more than the cap waits for it; true when it has been dropped. */
  const tooFarBehind = (): boolean => {
    if (dropped) return true;
    const queued = meter.queued();
    if (queued <= cap) return false;
    dropped = true;
    // The path names the stream (a message, batch or feed); ids and paths only, never headers.
    logger()?.warn({ requestId: (ctx.state as { requestId?: string }).requestId, stream: ctx.path, queuedBytes: queued, capBytes: cap }, 'SSE client too far behind: dropped (it resumes with Last-Event-ID)');
    res.destroy();
    return true;
  };

  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const beat = () => {
    if (writer.destroyed) return;
    writer.send(':heartbeat');
    meter.add(':heartbeat');
    tooFarBehind();
  };
  const heartbeat = heartbeatMs > 0 ? setInterval(beat, Math.min(heartbeatMs, MAX_TIMER_DELAY_MS)) : undefined;
  heartbeat?.unref();

  const source = typeof events === 'function' ? events(stop.signal) : events;
  const send = (frame: SseFrame) => {
    writer.send(frame);
    meter.add(frame);
  };
  const finished = pump(writer, res, source, stop.signal, logger, observer, send, tooFarBehind, release, options.onEvent)
    .then((end): StreamEnd => {
      pumped = true;
      if (dropped) return 'dropped';
      // Stopped by the caller (e.g. shutdown) with the client still there: end without a terminal event,
      // so an EventSource reconnects with Last-Event-ID (to this or another gateway) and loses nothing.
      if (end === 'stopped' && !clientLeft) writer.sendEnd(':closing');
      return clientLeft && end === 'stopped' ? 'disconnected' : end;
    })
    .finally(() => {
      clearInterval(heartbeat);
      clearTimeout(openingTimer);
      options.signal?.removeEventListener('abort', stopOnCallerAbort);
    });
  return { finished };
}

/** Writes events until a terminal one; 'stopped' when the signal ended it (client gone or caller's abort). */
async function pump(
  writer: SseWriter,
  res: Context['res'],
  events: EventSource,
  signal: AbortSignal,
  logger: () => Logger | undefined,
  observer: EventStreamObserver | undefined,
  send: (frame: SseFrame) => void,
  tooFarBehind: () => boolean,
  releaseOpening: () => void,
  onEvent: ((event: OutgoingEvent) => void) | undefined,
): Promise<StreamEnd | 'stopped'> {
  try {
    for await (const event of events) {
      if (signal.aborted) return 'stopped';
      releaseOpening();
      onEvent?.(event);
      const appendedAt = observer ? appendedAtMs(event.id) : undefined;
      if (TERMINAL_EVENTS.has(event.event)) {
        writer.sendEnd(frameOf(event));
        if (appendedAt !== undefined) observer?.written(appendedAt);
        return 'terminal';
      }
      corkForThisTurn(res);
      send(frameOf(event));
      if (appendedAt !== undefined) observer?.written(appendedAt);
      if (tooFarBehind()) return 'dropped';
    }
    if (signal.aborted) return 'stopped';
    // Never silence: a source that stops without an answer still ends with a clear error.
    writer.sendEnd(frameOf({ event: 'error', data: { code: 'stream_ended', message: 'the reply stream ended without a result', details: {} } }));
    return 'source_ended';
  } catch (thrown) {
    if (signal.aborted) return 'stopped';
    logger()?.error({ err: thrown }, 'event stream failed');
    writer.sendEnd(frameOf(errorEventOf(thrown)));
    return 'source_failed';
  }
}

const STREAM_ENTRY_ID = /^(\d{1,15})-\d{1,20}$/;

/** The millisecond time in a Redis stream entry id (`1700000000000-0`); undefined for events without one. */
function appendedAtMs(id: string | undefined): number | undefined {
  const ms = id === undefined ? undefined : STREAM_ENTRY_ID.exec(id)?.[1];
  return ms === undefined ? undefined : Number(ms);
}

/**
 * Events that arrive together (one Redis read) go out in one write: the socket is corked until the
 * event loop has moved on, then Node writes everything queued at once.
 */
function corkForThisTurn(res: Context['res']) {
  if (res.writableCorked) return;
  res.cork();
  setImmediate(() => res.uncork());
}

/** What a route needs from the actor client to stream one reply stream. */
export interface ReplySource {
  replies(stream: string, options: { lastEventId?: string; signal?: AbortSignal; idleTimeoutMs?: number }): AsyncIterable<ReplyEvent>;
}

/** Streams one reply stream, resuming after the request's Last-Event-ID. */
export async function streamReplies(
  ctx: Context,
  client: ReplySource,
  replyStream: string,
  options: StreamEventsOptions & { idleTimeoutMs?: number } = {},
): Promise<EventStream> {
  const lastEventId = lastEventIdOf(ctx);
  return streamEvents(ctx, (signal) => client.replies(replyStream, { lastEventId, signal, idleTimeoutMs: options.idleTimeoutMs }), options);
}
