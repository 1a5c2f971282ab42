/**
 * `npm run bench:faults`, broker reset (issue 14, point 2): Redis restarted without its data while
 * clients wait. A redis-server of the bench's own (persistence off, free loopback port), `troupe mongo`,
 * and a worker and a gateway of the slow counter. Each round, every actor gets a slow message (its turn
 * sleeps, held in flight; the client follows it over SSE) and a second one queued behind it (the client
 * waits for the JSON answer), both with an Idempotency-Key; then Redis is restarted empty.
 *
 * Measured: how each waiting client was answered (by code), the time from Redis answering again to each
 * answer (p50/p99), and, after every client retried what was not answered with a reply (same key), what
 * was applied, lost and applied twice (from the actors' states).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createParser } from 'eventsource-parser';
import { Redis } from 'ioredis';
import { RedisNames } from '../../../queues/keys.js';
import type { Logger } from '../../../logging/logger.js';
import { benchPrefix, benchScript, createBenchUser, freePort, latencySummary, troupe, waitUntilReady, type BenchProcess } from '../troupe-processes.js';
import { SLOW_COUNTER, type SlowCounterState } from './slow-counter.js';

const ACTORS_PER_ROUND = 20;
/** Long enough that no held turn ends before the loss is noticed. */
const HOLD_MS = 3_000;
/** Bounds on every wait of the bench. */
const WAIT_MS = 60_000;

interface Answer {
  /** `reply` for an answer with a result, else the error code. */
  code: string;
  /** When the answer arrived (performance.now()). */
  at: number;
}

interface OwnRedis {
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  remove(): Promise<void>;
}

/** A redis-server on a free loopback port with persistence off: each start is an empty Redis. */
async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'troupe-bench-reset-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const stop = async () => {
    if (!child || child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  };
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      const up = await probe.connect().then(() => probe.ping(), () => undefined).finally(() => probe.disconnect());
      if (up === 'PONG') return;
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  await start();
  return { url, start, stop, remove: async () => (await stop(), await rm(dir, { recursive: true, force: true })) };
}

function slowCounterProcess(role: 'gateway' | 'worker', env: Record<string, string>): BenchProcess {
  return benchScript('scripts/bench/faults/slow-counter-process.ts', [role], env, { logLevel: 'warn' });
}

export async function runBrokerResetBench(options: { redisUrl: string; logger: Logger; resets: number }): Promise<Record<string, unknown>> {
  const { logger, resets } = options;
  const redis = await ownRedis();
  const names = new RedisNames(benchPrefix('reset'));
  const [mongoPort, httpPort] = [await freePort(), await freePort()];
  const env = {
    REDIS_URL: redis.url,
    REDIS_PREFIX: names.prefix,
    MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
    MONGODB_DB: `bench_reset_${process.pid}`,
    PORT: String(httpPort),
    HOST: '127.0.0.1',
  };
  const base = `http://127.0.0.1:${httpPort}`;
  const processes: BenchProcess[] = [];
  const probe = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  probe.on('error', () => undefined);
  try {
    const mongo = troupe(['mongo', '--port', String(mongoPort)], env);
    processes.push(mongo);
    await mongo.waitFor('listening');
    const key = await createBenchUser(env);
    processes.push(slowCounterProcess('worker', env), slowCounterProcess('gateway', env));
    await waitUntilReady(`${base}/readyz`, processes.slice(1));
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };

    const body = (seq: number, sleepMs?: number) => JSON.stringify({ type: 'add', payload: { seq, ...(sleepMs ? { sleepMs } : {}) } });
    const url = (actor: string) => `${base}/actors/${SLOW_COUNTER}/${actor}/messages`;

    const postJson = async (actor: string, seq: number, idempotencyKey: string, sleepMs?: number): Promise<Answer> => {
      const res = await fetch(url(actor), { method: 'POST', headers: { ...headers, 'idempotency-key': idempotencyKey }, body: body(seq, sleepMs) });
      const json = (await res.json()) as { error?: { code?: string } };
      return { code: res.ok ? 'reply' : (json.error?.code ?? `http_${res.status}`), at: performance.now() };
    };
    const postSse = async (actor: string, seq: number, idempotencyKey: string, sleepMs: number, onStarted: () => void): Promise<Answer> => {
      const res = await fetch(url(actor), { method: 'POST', headers: { ...headers, accept: 'text/event-stream', 'idempotency-key': idempotencyKey }, body: body(seq, sleepMs) });
      let code = 'no_answer';
      const parser = createParser({
        onEvent: (e) => {
          if (e.event === 'started') onStarted();
          if (e.event === 'done') code = 'reply';
          if (e.event === 'error') code = (JSON.parse(e.data) as { code?: string }).code ?? 'error';
        },
      });
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
      return { code, at: performance.now() };
    };

    const answeredWith: Record<string, number> = {};
    const retriesAnsweredWith: Record<string, number> = {};
    const recoveryMs: number[] = [];
    const count = (tally: Record<string, number>, code: string) => (tally[code] = (tally[code] ?? 0) + 1);
    let sent = 0;
    let applied = 0;
    let lost = 0;
    let appliedTwice = 0;

    for (let round = 0; round < resets; round++) {
      const actors = Array.from({ length: ACTORS_PER_ROUND }, (_, i) => `r${round}-a${i}`);
      let started = 0;
      const held = actors.map((a) => postSse(a, 0, `${a}-0`, HOLD_MS, () => (started += 1)));
      await waitFor(() => started === actors.length, 'every held turn to start');
      const queued = actors.map((a) => postJson(a, 1, `${a}-1`));
      await waitFor(async () => (await Promise.all(actors.map((a) => probe.xlen(names.mailbox({ kind: SLOW_COUNTER, id: a }))))).every((n) => n === 2), 'every second message to be posted');
      sent += actors.length * 2;

      await redis.stop();
      await redis.start();
      const back = performance.now();
      const answers = await Promise.all([...held, ...queued]);
      for (const a of answers) {
        count(answeredWith, a.code);
        recoveryMs.push(a.at - back);
      }

      // Retries with the same Idempotency-Key of what was not answered with a reply.
      const retried = await Promise.all(
        actors.map(async (a, i) => {
          const first = answers[i]!.code === 'reply' ? undefined : await postJson(a, 0, `${a}-0`, HOLD_MS);
          const second = answers[actors.length + i]!.code === 'reply' ? undefined : await postJson(a, 1, `${a}-1`);
          return [first, second].filter((x): x is Answer => x !== undefined);
        }),
      );
      for (const a of retried.flat()) count(retriesAnsweredWith, a.code);

      for (const a of actors) {
        const res = await fetch(`${base}/actors/${SLOW_COUNTER}/${a}`, { headers: { 'x-api-key': key } });
        const seen = res.ok ? ((await res.json()) as { state: SlowCounterState }).state.seen : [];
        for (const seq of [0, 1]) {
          const times = seen.filter((s) => s === seq).length;
          if (times === 0) lost += 1;
          else applied += 1;
          if (times > 1) appliedTwice += 1;
        }
      }
      logger.info({ round: round + 1, of: resets }, 'broker reset round done');
    }

    return {
      resets,
      actors_per_reset: ACTORS_PER_ROUND,
      held_turn_ms: HOLD_MS,
      messages_sent: sent,
      applied,
      lost,
      applied_twice: appliedTwice,
      waiting_clients_answered_with: answeredWith,
      retries_answered_with: retriesAnsweredWith,
      redis_back_to_every_waiter_answered: latencySummary(recoveryMs, [50, 99]),
      note: 'each held turn (SSE, in flight at the reset) and each queued message (JSON) retried once with its Idempotency-Key after broker_reset',
    };
  } finally {
    probe.disconnect();
    for (const p of processes.reverse()) {
      if (p.child.exitCode === null) {
        const exited = once(p.child, 'exit');
        p.child.kill('SIGTERM');
        await exited;
      }
    }
    await redis.remove();
  }
}

/** Polls `ready` every 20 ms, for at most WAIT_MS. */
async function waitFor(ready: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
