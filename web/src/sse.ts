/**
 * Server-Sent Events over fetch: EventSource cannot send an Authorization header. One module for
 * every stream the client reads (replies, game feeds, run and upload progress):
 * - the server's `retry:` sets the reconnect delay;
 * - after a dropped connection it reconnects with `Last-Event-ID`, so no event is lost or repeated
 *   (a message's reply stream is resumed at `GET /replies/:messageId`, a feed at its own URL);
 * - it reports its state ("connecting", "open", "reconnecting", "closed") for the UI to show.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { authHeaders, failureOf, type ApiFailure } from './api.js';

export interface StreamEvent {
  event: string;
  id?: string;
  /** The event's JSON `data:`, parsed (or the raw text when it is not JSON). */
  data: unknown;
}

export type StreamStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface EventStreamOptions {
  path: string;
  /** A POST that starts the stream (sending a message); reconnects then follow its reply stream. */
  body?: unknown;
  headers?: Record<string, string>;
  onEvent: (event: StreamEvent) => void;
  onStatus?: (status: StreamStatus) => void;
  /** Events after which the stream is complete. Default: `done` and `error`. */
  terminal?: readonly string[];
  signal?: AbortSignal;
}

export interface EventStreamHandle {
  /** Settles when a terminal event arrived (or the stream was closed); rejects on a refusal. */
  finished: Promise<void>;
  close(): void;
}

const DEFAULT_RETRY_MS = 2_000;
const MAX_RETRY_MS = 30_000;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

function parseData(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function openEventStream(options: EventStreamOptions): EventStreamHandle {
  const stop = new AbortController();
  options.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const terminal = new Set(options.terminal ?? ['done', 'error']);
  const setStatus = (status: StreamStatus) => options.onStatus?.(status);

  const run = async (): Promise<void> => {
    let lastEventId: string | undefined;
    let retryMs = DEFAULT_RETRY_MS;
    let failures = 0;
    // A POST starts the stream once; every reconnect reads the message's reply stream instead.
    let path = options.path;
    let body = options.body;
    setStatus('connecting');
    while (!stop.signal.aborted) {
      let ended = false;
      try {
        const headers = authHeaders({ accept: 'text/event-stream', ...options.headers });
        if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
        if (body !== undefined) headers['content-type'] = 'application/json';
        const response = await fetch(path, {
          method: body === undefined ? 'GET' : 'POST',
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: stop.signal,
        });
        // A refusal (bad input, limits, unknown id) is final: no reconnect would change it.
        if (!response.ok) throw Object.assign(await failureOf(response), { final: true });
        const messageId = response.headers.get('x-message-id');
        if (body !== undefined && messageId) {
          path = `/replies/${encodeURIComponent(messageId)}`;
          body = undefined;
        }
        setStatus('open');
        failures = 0;
        const parser = createParser({
          onEvent: (message: EventSourceMessage) => {
            if (message.id) lastEventId = message.id;
            const event = message.event ?? 'message';
            options.onEvent({ event, id: message.id, data: parseData(message.data) });
            if (terminal.has(event)) ended = true;
          },
          onRetry: (ms: number) => {
            retryMs = ms;
          },
        });
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
        while (!ended) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
        if (ended) {
          await reader.cancel().catch(() => undefined);
          setStatus('closed');
          return;
        }
      } catch (error) {
        if (stop.signal.aborted) break;
        if ((error as { final?: boolean }).final) {
          setStatus('closed');
          throw error as ApiFailure;
        }
      }
      // The connection dropped before the stream ended: wait as the server asked, then resume.
      setStatus('reconnecting');
      failures += 1;
      await sleep(Math.min(retryMs * 2 ** Math.max(0, failures - 1), MAX_RETRY_MS), stop.signal);
    }
    setStatus('closed');
  };

  return { finished: run(), close: () => stop.abort() };
}
