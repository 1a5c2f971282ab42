/**
 * `npm run bench:faults` (takeover): how fast a live worker takes over a crashed worker's actors.
 * Real processes — `troupe mongo` and three worker processes hosting the slow counter — with messages
 * flowing to 30 actors; a worker with a turn in flight is killed with SIGKILL, again and again. The
 * takeover time of a kill is, per actor that was mid-turn on the killed worker, the time from the kill
 * until that actor's next turn commits on another worker (its reply reaches the client). The same is
 * measured with fast takeover off (TAKEOVER_CHECK_MS=0: BullMQ's lock expiry and stalled check only),
 * with fewer kills since each takes several seconds.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import mongoose from 'mongoose';
import { ActorClient } from '../../../actors/runtime/client.js';
import { loadConfig } from '../../config.js';
import * as settings from '../../../actors/runtime/settings.js';
import type { Logger } from '../../../logging/logger.js';
import { RedisNames } from '../../../queues/keys.js';
import { benchPrefix, benchScript, deleteBenchKeys, freePort, latencySummary, troupe, type BenchProcess } from '../troupe-processes.js';
import { CrashLoad, type CrashLoadResult } from './crash-load.js';
import { slowCounterKind } from './slow-counter.js';

const WORKERS = 3;
const LOAD = { actors: 30, sleepMs: 100, window: 2, maxPerActor: 100_000, replyIdleMs: 60_000 };
/** Longest wait for one kill's actors to commit elsewhere (fast takeover off needs about 7 s). */
const RESUME_BOUND_MS = 60_000;
const TAKEOVER_LINE = 'took over the jobs of a lapsed worker';

interface Run {
  kills: number;
  takeover: Record<string, number>;
  /** Kill → a live worker claimed the killed one and moved its jobs back (its log line; 1 ms clock). */
  claimed: Record<string, number> | null;
  samples: number;
  /** Kills whose worker a live one claimed through its lapsed liveness key. */
  kills_taken_over_by_liveness: number;
  /** Claims of a worker that had not been killed (a slow but live worker taken for dead). */
  takeovers_of_live_workers: number;
  load: CrashLoadResult;
}

export async function runTakeoverBench(options: { redisUrl: string; logger: Logger; kills: number }): Promise<Record<string, unknown>> {
  const { logger } = options;
  const kills = Math.max(1, options.kills);
  logger.info({ kills }, 'takeover bench: fast takeover (liveness keys)');
  const fast = await measure(options.redisUrl, logger, kills, {});
  const baselineKills = Math.max(3, Math.round(kills / 4));
  logger.info({ kills: baselineKills }, 'takeover bench: fast takeover off (BullMQ lock expiry + stalled check)');
  const old = await measure(options.redisUrl, logger, baselineKills, { TAKEOVER_CHECK_MS: '0' });
  return {
    node: process.version,
    processes: { workers: WORKERS, mongo: 'troupe mongo (embedded, memory)', load_generator: 'ActorClient in the bench process' },
    load: { actors: LOAD.actors, messages_outstanding_per_actor: LOAD.window, turn: `slow-counter, each turn waits ${LOAD.sleepMs} ms` },
    measured: 'per actor mid-turn on the killed worker: kill → its next turn committed on another worker (reply received)',
    // The workers inherit this environment: LIVENESS_* set here apply to them.
    settings: {
      ...loadConfig().takeover,
      lockDurationMs: settings.LOCK_DURATION_MS,
      stalledIntervalMs: settings.STALLED_INTERVAL_MS,
    },
    fast_takeover: fast,
    fast_takeover_off: old,
    target: { p99_under_ms: 1500, met: (fast.takeover.p99_ms ?? Infinity) < 1500 },
  };
}

async function measure(redisUrl: string, logger: Logger, kills: number, extraEnv: Record<string, string>): Promise<Run> {
  const mongoPort = await freePort();
  const env = {
    REDIS_URL: redisUrl,
    MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
    MONGODB_DB: `bench_takeover_${process.pid}`,
    REDIS_PREFIX: benchPrefix('takeover'),
    ...extraEnv,
  };
  const processes: ChildProcess[] = [];
  let conn: mongoose.Connection | undefined;
  let client: ActorClient | undefined;
  const workers: BenchProcess[] = [];
  const startWorker = async () => {
    const w = workerProcess(env);
    processes.push(w.child);
    workers.push(w);
    await w.waitFor('workers started');
    return w;
  };
  try {
    const mongo = troupe(['mongo', '--port', String(mongoPort)], env);
    processes.push(mongo.child);
    await mongo.waitFor('listening');
    conn = await mongoose.createConnection(env.MONGODB_URI, { dbName: env.MONGODB_DB }).asPromise();
    client = new ActorClient(redisUrl, conn, [slowCounterKind], new RedisNames(env.REDIS_PREFIX));
    const live = await Promise.all(Array.from({ length: WORKERS }, startWorker));
    const load = new CrashLoad(client, { runId: `takeover-${process.pid}-${Date.now()}`, ...LOAD });
    load.start();
    const samples: number[] = [];
    const killed: Array<{ pid: number; at: number }> = [];
    try {
      for (let k = 0; k < kills; k++) {
        const victim = await until(() => live.find((w) => load.runningOn(w.child.pid!).length > 0), 30_000, 'a worker with a turn in flight');
        const pid = victim.child.pid!;
        const resumed = load.runningOn(pid).map((t) => load.nextCommitElsewhere(t.actor, pid));
        const killedAt = performance.now();
        victim.child.kill('SIGKILL');
        killed.push({ pid, at: Date.now() });
        live.splice(live.indexOf(victim), 1);
        const commits = await bounded(Promise.all(resumed), RESUME_BOUND_MS, `the actors of killed worker ${pid} to resume`);
        const times = commits.map((c) => c.at - killedAt);
        samples.push(...times);
        logger.info({ kill: k + 1, actors: times.length, maxMs: Math.round(Math.max(...times)) }, 'takeover bench: kill measured');
        // Replaced after the measurement, as an orchestrator would restart it: its start-up does not
        // compete with the takeover for CPU.
        live.push(await startWorker());
      }
    } finally {
      await load.stop();
    }
    const result = await load.result();
    const claims = workers.flatMap((w) => takeoverClaims(w.output()));
    const claimOf = (pid: number) => claims.find((c) => c.pid === pid);
    const claimed = killed.flatMap((k) => (claimOf(k.pid) ? [claimOf(k.pid)!.at - k.at] : []));
    return {
      kills,
      takeover: latencySummary(samples, [50, 99]),
      claimed: claimed.length ? latencySummary(claimed, [50, 99]) : null,
      samples: samples.length,
      kills_taken_over_by_liveness: claimed.length,
      takeovers_of_live_workers: claims.filter((c) => !killed.some((k) => k.pid === c.pid)).length,
      load: result,
    };
  } finally {
    await client?.close().catch(() => undefined);
    await conn?.close().catch(() => undefined);
    for (const p of processes.reverse()) await stopProcess(p);
    await deleteBenchKeys(redisUrl, env.REDIS_PREFIX).catch(() => undefined);
  }
}

/** A worker process hosting the slow counter, its output collected (info level: the readiness line and takeover lines). */
function workerProcess(env: Record<string, string>): BenchProcess {
  return benchScript('scripts/bench/faults/takeover-worker.ts', [], env, { logLevel: 'info' });
}

/** The workers a process claimed through their lapsed liveness keys: pid (worker ids are host:pid:random) and when (ms). */
function takeoverClaims(output: string): Array<{ pid: number; at: number }> {
  return output
    .split('\n')
    .filter((line) => line.includes(TAKEOVER_LINE))
    .map((line) => JSON.parse(line) as { lapsedWorker?: unknown; time: number })
    .map((line) => ({ pid: Number(String(line.lapsedWorker).split(':')[1]), at: line.time }));
}

async function stopProcess(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  p.kill('SIGTERM');
  const timer = setTimeout(() => p.kill('SIGKILL'), 15_000);
  await once(p, 'exit');
  clearTimeout(timer);
}

/** Polls `probe` every 10 ms until it returns a value, or fails after `ms`. */
async function until<T>(probe: () => T | false | undefined | Promise<T | false | undefined>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`takeover bench: no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`takeover bench: waited ${ms} ms for ${what}`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
