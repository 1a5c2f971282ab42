import type { Agent } from 'node:http';
import { request } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/**
 * One POST answered as SSE, read to its end; `onEvent` sees every event as it arrives. Rejects on a
 * non-200 answer, an `error` event, or a stream that ends without `done`. The load generators use
 * node:http with a keep-alive agent, not fetch: fetch's WHATWG streams cost more CPU per request than
 * the gateway itself, and this machine's cores are shared by every process in the run.
 */
export function postEventStream(agent: Agent, url: URL, key: string, body: string, onEvent: (event: EventSourceMessage) => void = () => undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), accept: 'text/event-stream' },
      },
      (res) => {
        res.setEncoding('utf8');
        if (res.statusCode !== 200) {
          let text = '';
          res.on('data', (c: string) => (text += c));
          res.on('end', () => reject(new Error(`POST ${url.pathname}: HTTP ${res.statusCode}: ${text}`)));
          return;
        }
        let finished = false;
        let failure: string | undefined;
        const parser = createParser({
          onEvent(e) {
            if (e.event === 'done') finished = true;
            if (e.event === 'error') failure = e.data;
            onEvent(e);
          },
        });
        res.on('data', (chunk: string) => parser.feed(chunk));
        res.on('end', () => {
          if (failure) reject(new Error(`error event: ${failure}`));
          else if (!finished) reject(new Error('the stream ended without done'));
          else resolve();
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
