/**
 * The load generators of the runtime benchmarks, shared so troupe and its peers are driven alike:
 * `concurrency` client loops over keep-alive node:http, each posting echo messages one after another
 * and waiting for each answer (SSE read to `done`, or a JSON body). node:http, not fetch: fetch's
 * WHATWG streams cost more CPU per request than the gateway itself on this machine's shared cores.
 */
import { Agent, request } from 'node:http';
import { postEventStream } from './event-stream-request.js';

export type AnswerMode = 'sse' | 'json';

/** One POST answered with a JSON body; rejects on a non-200 status. */
export function postJson(agent: Agent, url: URL, key: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), accept: 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`POST ${url.pathname}: HTTP ${res.statusCode}: ${text}`))));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export interface LoadShape {
  /** http://host:port of the gateway under test. */
  base: string;
  key: string;
  /** Client loops, each with one request in flight. */
  concurrency: number;
  /** Distinct actors the loops share: message n of loop l goes to actor (l + n·concurrency) mod actors. */
  actors: number;
  /** Tells this run's actors apart from other runs' (actor ids are `<tag>-<n>`). */
  tag: string;
  mode?: AnswerMode;
}

export interface LoadResult {
  /** Milliseconds per message, in completion order. */
  latencies: number[];
  seconds: number;
}

const BODY = JSON.stringify({ type: 'say', payload: { text: 'hello troupe bench' } });

/** Sends `total` echo messages through `shape.concurrency` loops; resolves with every latency and the wall time. */
export async function runLoad(shape: LoadShape, total: number): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: shape.concurrency });
  const urls = Array.from({ length: Math.min(shape.actors, total) }, (_, n) => new URL(`${shape.base}/actors/echo/${shape.tag}-${n}/messages`));
  const send = shape.mode === 'json' ? postJson : postEventStream;
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: shape.concurrency }, async () => {
        while (next < total) {
          const n = next++;
          const sentAt = performance.now();
          await send(agent, urls[n % urls.length], shape.key, BODY);
          latencies.push(performance.now() - sentAt);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return { latencies, seconds: (performance.now() - started) / 1000 };
}
