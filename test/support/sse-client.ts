/**
 * A test client for Server-Sent Events: fetch + eventsource-parser (the parser EventSource polyfills
 * use), yielding events and comments in arrival order and keeping the raw text for assertions.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export type SseItem = { kind: 'event'; event: string; id?: string; data: string } | { kind: 'comment'; text: string };

export interface SseConnection {
  response: Response;
  /** Everything received so far, verbatim. */
  raw(): string;
  /** Items in arrival order; ends when the server ends the response (or the request is aborted). */
  items: AsyncGenerator<SseItem>;
  /** Disconnects (as a browser tab closing would). */
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  let raw = '';
  async function* items(): AsyncGenerator<SseItem> {
    if (!response.body) return;
    const queue: SseItem[] = [];
    const parser = createParser({
      onEvent: (m: EventSourceMessage) => queue.push({ kind: 'event', event: m.event ?? 'message', id: m.id, data: m.data }),
      onComment: (text) => queue.push({ kind: 'comment', text: text.trim() }),
    });
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    try {
      for (;;) {
        let chunk;
        try {
          chunk = await reader.read();
        } catch (err) {
          if (abort.signal.aborted) return;
          throw err;
        }
        if (chunk.done) break;
        const text = decoder.decode(chunk.value, { stream: true });
        raw += text;
        parser.feed(text);
        while (queue.length > 0) yield queue.shift()!;
      }
    } finally {
      reader.releaseLock();
    }
  }
  return { response, raw: () => raw, items: items(), close: () => abort.abort() };
}

/** Reads events (skipping comments) until the stream ends. */
export async function readEvents(connection: SseConnection): Promise<Array<Extract<SseItem, { kind: 'event' }>>> {
  const events: Array<Extract<SseItem, { kind: 'event' }>> = [];
  for await (const item of connection.items) if (item.kind === 'event') events.push(item);
  return events;
}
