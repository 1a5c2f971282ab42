/**
 * The load generators of the runtime benchmarks, shared so troupe and its peers are driven alike:
 * `concurrency` client loops over keep-alive node:http, each posting echo messages one after another
 * and waiting for each answer (SSE read to `done`, or a JSON body). node:http, not fetch: fetch's
 * WHATWG streams cost more CPU per request than the gateway itself on this machine's shared cores.
 */
import { Agent, request } from 'node:http';
import { postEventStream } from './event-stream-request.js';
import type { Logger } from '../../logging/logger.js';

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
  /**
   * The echo actor message n goes to. Loops take the next n as they become free, so the messages in
   * flight at any moment are consecutive ones.
   */
  actor: (n: number) => string;
  mode?: AnswerMode;
  /** Keep-alive connections to reuse across runs (the caller destroys it); by default each run has its own. */
  agent?: Agent;
}

/** Actor ids `<tag>-<n mod actors>`: `actors` distinct actors, shared by the loops in turn. */
export const actorsInTurn =
  (tag: string, actors: number) =>
  (n: number): string =>
    `${tag}-${n % actors}`;

/** What a long run logs every `everyMs`, so it shows life. */
export interface LoadProgress {
  logger: Logger;
  label: string;
  everyMs: number;
}

export interface LoadResult {
  /** Milliseconds per answered message, in completion order. */
  latencies: number[];
  seconds: number;
  /** Messages that failed (a non-200 answer, an `error` event, a broken stream), and the first reason. */
  errors: number;
  firstError?: string;
}

const BODY = JSON.stringify({ type: 'say', payload: { text: 'hello troupe bench' } });

/** Sends `total` echo messages through `shape.concurrency` loops; resolves with every latency, the wall time and the failures. */
export async function runLoad(shape: LoadShape, total: number, progress?: LoadProgress): Promise<LoadResult> {
  const agent = shape.agent ?? new Agent({ keepAlive: true, maxSockets: shape.concurrency });
  const send = shape.mode === 'json' ? postJson : postEventStream;
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;
  const started = performance.now();
  const ticker =
    progress &&
    setInterval(() => {
      const seconds = (performance.now() - started) / 1000;
      progress.logger.info({ phase: progress.label, done: latencies.length + errors, total, msgs_per_sec: Math.round(latencies.length / seconds) }, 'load running');
    }, progress.everyMs);
  try {
    await Promise.all(
      Array.from({ length: shape.concurrency }, async () => {
        while (next < total) {
          const url = new URL(`${shape.base}/actors/echo/${shape.actor(next)}/messages`);
          next += 1;
          const sentAt = performance.now();
          try {
            await send(agent, url, shape.key, BODY);
            latencies.push(performance.now() - sentAt);
          } catch (error) {
            errors += 1;
            firstError ??= error instanceof Error ? error.message : String(error);
          }
        }
      }),
    );
  } finally {
    clearInterval(ticker);
    if (!shape.agent) agent.destroy();
  }
  return { latencies, seconds: (performance.now() - started) / 1000, errors, firstError };
}

/** The run's result, or an error when any message failed (a benchmark of failures measures nothing). */
export function allAnswered(result: LoadResult, total: number): LoadResult {
  if (result.errors > 0) throw new Error(`${result.errors} of ${total} messages failed; the first: ${result.firstError}`);
  return result;
}
