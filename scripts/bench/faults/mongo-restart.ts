/**
 * `npm run bench:faults`, MongoDB restarts (issue 14, point 4): `troupe mongo --dbpath DIR` killed
 * with SIGKILL under load and started again on the same port and dbpath, `restarts` times, while a
 * `troupe worker` and a `troupe gateway` serve clients that each send to their own echo actor, one
 * message at a time, without pause.
 *
 * Measured: messages sent, posted (given a message id), applied (the actors' counts once every mailbox
 * is empty), lost and applied twice; how every request was answered (`reply` or the error code); and the
 * recovery time, from the restarted server accepting connections until each client's waiting message
 * is answered (its turn committed), as p50/p99 over every client and restart.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { RedisNames } from '../../../queues/keys.js';
import type { Logger } from '../../../logging/logger.js';
import { benchPrefix, createBenchUser, deleteBenchKeys, freePort, latencySummary, troupe, waitUntilReady, type BenchProcess } from '../troupe-processes.js';

const CLIENTS = 8;
/** How long the server stays down each time: a restart, not a long outage (that is the retry bound's case). */
const DOWN_MS = 1_000;
/** Replies every client must have had between two restarts. */
const REPLIES_BETWEEN_RESTARTS = 3;
/** Bounds on every wait of the bench. */
const WAIT_MS = 120_000;
/** The default retry bound (STORE_OUTAGE_RETRY_SECONDS) the worker runs with. */
const RETRY_SECONDS = 30;

interface Answer {
  /** `reply`, or the error code. */
  code: string;
  posted: boolean;
  count?: number;
  sentAt: number;
  answeredAt: number;
}

async function until(what: string, probe: () => boolean | Promise<boolean>, detail: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`mongo-restart bench: timed out waiting for ${what}\n${detail()}`);
    await delay(50);
  }
}

export async function runMongoRestartBench(options: { redisUrl: string; logger: Logger; restarts: number }): Promise<Record<string, unknown>> {
  const { redisUrl, logger, restarts } = options;
  const [mongoPort, httpPort] = [await freePort(), await freePort()];
  const dbpath = await mkdtemp(path.join(os.tmpdir(), 'troupe-bench-mongo-restart-'));
  const names = new RedisNames(benchPrefix('mongo-restart'));
  const env = {
    REDIS_URL: redisUrl,
    MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
    MONGODB_DB: `bench_mongo_restart_${process.pid}`,
    REDIS_PREFIX: names.prefix,
    PORT: String(httpPort),
    HOST: '127.0.0.1',
    KIND_LIMITS: 'echo:rate=none,concurrent=none',
    STORE_OUTAGE_RETRY_SECONDS: String(RETRY_SECONDS),
  };
  const base = `http://127.0.0.1:${httpPort}`;
  const processes: BenchProcess[] = [];
  let mongo: BenchProcess | undefined;
  const startMongo = async () => {
    mongo = troupe(['mongo', '--port', String(mongoPort), '--host', '127.0.0.1', '--dbpath', dbpath], env, { logLevel: 'warn' });
    processes.push(mongo);
    // It logs at warn and above only: wait until it accepts connections.
    await until('troupe mongo to listen', async () => {
      if (mongo!.child.exitCode !== null) throw new Error(`troupe mongo exited:\n${mongo!.output()}`);
      return canConnect(mongoPort);
    });
  };
  let running = true;
  try {
    await startMongo();
    const key = await createBenchUser(env);
    const worker = troupe(['worker'], env, { logLevel: 'warn' });
    const gateway = troupe(['gateway'], env, { logLevel: 'warn' });
    processes.push(worker, gateway);
    await waitUntilReady(`${base}/readyz`, [worker, gateway]);

    const answers: Answer[][] = Array.from({ length: CLIENTS }, () => []);
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const body = JSON.stringify({ type: 'say', payload: { text: 'hi' } });
    const send = async (actor: string): Promise<Answer> => {
      const sentAt = performance.now();
      try {
        const res = await fetch(`${base}/actors/echo/${actor}/messages`, { method: 'POST', headers, body });
        const json = (await res.json()) as { reply?: { count?: number }; error?: { code?: string } };
        const code = res.status === 200 && json.reply ? 'reply' : (json.error?.code ?? `http_${res.status}`);
        return { code, posted: res.headers.get('x-message-id') !== null, count: json.reply?.count, sentAt, answeredAt: performance.now() };
      } catch {
        return { code: 'connection_failed', posted: false, sentAt, answeredAt: performance.now() };
      }
    };
    // Each client: one message at a time until told to stop (bounded by the restarts' own bounds).
    const clients = Promise.all(
      answers.map(async (mine, index) => {
        while (running) mine.push(await send(`mongo-restart-${index}`));
      }),
    );

    const state = () =>
      [
        ...answers.map((mine, i) => `client ${i}: ${mine.length} answers, last ${JSON.stringify(mine.at(-1))}`),
        ...processes.slice(-3).map((p) => p.output().split('\n').slice(-6).join('\n').slice(-3000)),
      ].join('\n');
    const recoveries: number[] = [];
    const serverStarts: number[] = [];
    for (let restart = 0; restart < restarts; restart++) {
      const before = answers.map((mine) => mine.length);
      await until('replies before the kill', () => answers.every((mine, i) => mine.slice(before[i]).filter((a) => a.code === 'reply').length >= REPLIES_BETWEEN_RESTARTS), state);
      const exited = once(mongo!.child, 'exit');
      mongo!.child.kill('SIGKILL');
      await exited;
      await delay(DOWN_MS);
      const starting = performance.now();
      await startMongo();
      const restartedAt = performance.now();
      serverStarts.push(restartedAt - starting);
      // Each client's first answer after the restart is the message it was waiting on (or sent since).
      const after = answers.map((mine) => mine.length);
      await until('every client answered after the restart', () => answers.every((mine, i) => mine.slice(after[i]).some((a) => a.answeredAt >= restartedAt)), state);
      for (const [i, mine] of answers.entries()) {
        const first = mine.slice(after[i]).find((a) => a.answeredAt >= restartedAt)!;
        recoveries.push(first.answeredAt - restartedAt);
      }
    }
    running = false;
    await clients;

    // Messages answered store_unavailable stay queued: let every mailbox empty before counting.
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
    try {
      await until('every mailbox to empty', async () => {
        const lengths = await Promise.all(answers.map((_, i) => redis.xlen(names.mailbox({ kind: 'echo', id: `mongo-restart-${i}` }))));
        return lengths.every((n) => n === 0);
      });
    } finally {
      redis.disconnect();
    }
    let posted = 0;
    let applied = 0;
    let lost = 0;
    let appliedTwice = 0;
    for (const [i, mine] of answers.entries()) {
      const postedHere = mine.filter((a) => a.posted).length;
      const res = await fetch(`${base}/actors/echo/mongo-restart-${i}`, { headers: { 'x-api-key': key } });
      const count = ((await res.json()) as { state?: { count?: number } }).state?.count ?? 0;
      posted += postedHere;
      applied += count;
      lost += Math.max(0, postedHere - count);
      // A count answered twice, or more applied than posted.
      const counts = mine.flatMap((a) => (a.count === undefined ? [] : [a.count]));
      appliedTwice += Math.max(counts.length - new Set(counts).size, count - postedHere, 0);
    }
    const all = answers.flat();
    const answered: Record<string, number> = {};
    for (const a of all) answered[a.code] = (answered[a.code] ?? 0) + 1;
    const result = {
      restarts,
      clients: CLIENTS,
      down_ms: DOWN_MS,
      store_outage_retry_seconds: RETRY_SECONDS,
      messages: { sent: all.length, posted, applied, lost, applied_twice: appliedTwice },
      answered,
      recovery_after_restart: latencySummary(recoveries, [50, 99]),
      server_start: latencySummary(serverStarts, [50, 99]),
    };
    logger.info({ bench: 'mongo-restart', ...result }, 'mongo restart bench done');
    return result;
  } finally {
    running = false;
    for (const p of processes) {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        const exited = once(p.child, 'exit');
        p.child.kill('SIGTERM');
        await Promise.race([exited, delay(20_000).then(() => p.child.kill('SIGKILL'))]);
      }
    }
    await deleteBenchKeys(redisUrl, names.prefix).catch(() => undefined);
    await rm(dbpath, { recursive: true, force: true });
  }
}

/** Whether something accepts TCP connections on the loopback port. */
function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
