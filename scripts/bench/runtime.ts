/**
 * `npm run bench:runtime`: troupe's request/reply path end to end (HTTP → gateway → mailbox → drain →
 * actor turn → MongoDB commit → reply stream → SSE) against a naive peer built with the same stack the
 * way one would without troupe (Koa → queue.add → waitUntilFinished; a BullMQ worker doing one
 * findOneAndUpdate), driven by the same load generator in interleaved rounds (A B A B …) on the same
 * Redis and MongoDB. Then the latency one sequential client feels, and raw BullMQ add+process jobs/s
 * as a second reference line.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../../logging/logger.js';
import { benchPrefix, createBenchUser, deleteBenchKeys, freePort, latencySummary, median, troupe, waitUntilReady } from './troupe-processes.js';
import { CpuMeter, localRedisPid } from './process-cpu.js';
import { GcMeter, type GcUse } from './process-gc.js';
import { actorsInTurn, allAnswered, runLoad, type LoadShape } from './request-load.js';
import { sequentialLatency } from './sequential-latency.js';
import { hopPercentiles, hopPercentilesApart, type ClientCall } from './hop-percentiles.js';
import { startNaivePeer } from './naive-peer.js';
import { measureMachineHops } from './machine-hops.js';

/** The load of interleaved rounds, shared by the runtime benches. */
export interface RoundsLoad {
  logger: Logger;
  /** Timed messages per round (and, in the default bench, raw BullMQ jobs). */
  messages?: number;
  /** Client loops, one request in flight each. */
  concurrency?: number;
  /** Distinct actors the loops share (fewer than loops: messages to one actor are in flight together). */
  actors?: number;
  /** Rounds of each system, interleaved. */
  rounds?: number;
  /** Untimed messages first, so every round is measured with warm code. */
  warmup?: number;
}

export interface RuntimeBenchOptions extends RoundsLoad {
  redisUrl: string;
  /** Sequential messages per answer mode in the latency section. */
  latencyMessages?: number;
  /** Write a V8 CPU profile of every troupe process here (for finding where the time goes). */
  profileDir?: string;
  /** Run the gateway with TRACE_HOPS and print where the sequential messages' milliseconds go. */
  traceHops?: boolean;
}

/** Targets of issue 15: troupe at least as fast as the peer, its tail no longer; one client's latency. */
const PEER_THROUGHPUT_RATIO_TARGET = 1.0;

const round = (n: number, digits = 3) => Number(n.toFixed(digits));

interface RoundResult {
  msgs_per_sec: number;
  p50_ms: number;
  p99_ms: number;
  cpu_ms_per_msg: Record<string, number>;
  /** troupe's processes only (read from their /metrics; the peer's processes have none). */
  gc?: Record<string, GcUse>;
  ordering_violations?: number;
}

/** One timed round of `messages` through a system, with the CPU each of its processes spent (and their GC, given a meter). */
async function timedRound(shape: LoadShape, messages: number, cpu: CpuMeter, gc?: GcMeter): Promise<RoundResult> {
  await gc?.begin();
  cpu.begin();
  const { latencies, seconds } = allAnswered(await runLoad(shape, messages), messages);
  const cpuPerMessage = cpu.perUnit(messages);
  const summary = latencySummary(latencies, [50, 99]);
  const result: RoundResult = { msgs_per_sec: Math.round(messages / seconds), p50_ms: summary.p50_ms, p99_ms: summary.p99_ms, cpu_ms_per_msg: cpuPerMessage };
  if (gc) result.gc = await gc.end();
  return result;
}

/**
 * troupe's round p99s split by whether its gateway or worker finished a mark-compact in the round: a
 * mark-compact stops a process for several milliseconds (plus incremental marking around it), and the
 * messages in flight then wait.
 */
export function p99ByMarkCompact(rounds: Array<Pick<RoundResult, 'p99_ms' | 'gc'>>) {
  const compacted = (r: Pick<RoundResult, 'gc'>) => Object.values(r.gc ?? {}).some((use) => use.major > 0);
  return {
    what: "troupe's round p99s, split by whether its gateway or worker finished a mark-compact (V8's major GC, counted by troupe_nodejs_gc_duration_seconds on their /metrics) during the round",
    with_mark_compact_ms: rounds.filter(compacted).map((r) => r.p99_ms),
    without_ms: rounds.filter((r) => !compacted(r)).map((r) => r.p99_ms),
  };
}

function medians(rounds: RoundResult[]) {
  return {
    msgs_per_sec: median(rounds.map((r) => r.msgs_per_sec)),
    p50_ms: median(rounds.map((r) => r.p50_ms)),
    p99_ms: median(rounds.map((r) => r.p99_ms)),
  };
}

/**
 * Raw BullMQ on the same Redis: `concurrency` producers adding one job at a time (the shape of the
 * end-to-end run) and a no-op worker at concurrency 50, in this process. A warm-up run first, as the
 * end-to-end runs have one, so all are measured with warm code.
 */
async function rawBullmq(redisUrl: string, jobs: number, warmup: number, concurrency: number, cpu: CpuMeter) {
  const name = `troupe-bench-raw-${process.pid}`;
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(name, { connection });
  let completed = 0;
  let target = 0;
  let resolveAll: () => void = () => undefined;
  const workerConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const worker = new Worker(name, async () => null, { connection: workerConnection, concurrency: 50 });
  worker.on('completed', () => {
    completed += 1;
    if (completed === target) resolveAll();
  });
  await worker.waitUntilReady();
  const run = async (count: number) => {
    completed = 0;
    target = count;
    const all = new Promise<void>((r) => (resolveAll = r));
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) {
          next += 1;
          await queue.add('job', { n: next }, { removeOnComplete: true });
        }
      }),
    );
    await all;
  };
  await run(warmup);
  cpu.begin();
  const started = performance.now();
  await run(jobs);
  const seconds = (performance.now() - started) / 1000;
  const cpuMsPerJob = cpu.perUnit(jobs);
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
  workerConnection.disconnect();
  return { jobs, seconds: round(seconds), jobs_per_sec: Math.round(jobs / seconds), cpu_ms_per_job: cpuMsPerJob };
}

export async function runRuntimeBench({
  redisUrl,
  logger,
  messages = 10_000,
  concurrency = 32,
  actors = 16,
  rounds = 5,
  warmup = 1_000,
  latencyMessages = 1_000,
  profileDir,
  traceHops = false,
}: RuntimeBenchOptions) {
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const [mongoPort, httpPort, peerPort, workerMetricsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const prefix = benchPrefix('runtime');
  const mongoUri = `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`;
  const dbName = `bench_${process.pid}`;
  const env = {
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    MONGODB_URI: mongoUri,
    MONGODB_DB: dbName,
    PORT: String(httpPort),
    HOST: '127.0.0.1',
    KIND_LIMITS: `echo:rate=100000000/60,concurrent=100000`,
    TRACE_HOPS: String(traceHops),
  };
  const processes: ChildProcess[] = [];
  let peer: Awaited<ReturnType<typeof startNaivePeer>> | undefined;
  try {
    const mongo = troupe(['mongo', '--port', String(mongoPort)], env, { nodeArgs });
    processes.push(mongo.child);
    await mongo.waitFor('listening');
    const key = await createBenchUser(env);
    // Request logs off during the run (warn level): the figure is about the pipeline, not log I/O. Hop
    // traces are info lines, so a traced gateway logs at info, request lines included: a traced run's
    // latency is the slower for it, though where its time goes is still told right.
    // Every kind gets a worker (readiness needs one per kind); only echo receives messages.
    const worker = troupe(['worker'], { ...env, METRICS_PORT: String(workerMetricsPort) }, { logLevel: 'warn', nodeArgs });
    processes.push(worker.child);
    const gateway = troupe(['gateway'], env, { logLevel: traceHops ? 'info' : 'warn', nodeArgs });
    processes.push(gateway.child);
    const base = `http://127.0.0.1:${httpPort}`;
    await waitUntilReady(`${base}/readyz`, [worker, gateway]);
    peer = await startNaivePeer({ redisUrl, mongoUri, dbName, port: peerPort, queueName: `${prefix}-naive-peer` });

    const redisPid = localRedisPid(Number(new URL(redisUrl).port || 6379));
    const shapes = {
      troupe: { base, key, concurrency, actor: actorsInTurn(`troupe-${process.pid}`, actors) },
      peer: { base: peer.base, key, concurrency, actor: actorsInTurn(`peer-${process.pid}`, actors) },
    };
    const cpus = {
      troupe: new CpuMeter({ gateway: gateway.child.pid, worker: worker.child.pid, mongo: mongo.child.pid, redis: redisPid, load_generator: process.pid }),
      peer: new CpuMeter({ gateway: peer.gatewayPid, worker: peer.workerPid, mongo: mongo.child.pid, redis: redisPid, load_generator: process.pid }),
    };
    const warmUp = async (count: number) => {
      allAnswered(await runLoad(shapes.troupe, count), count);
      allAnswered(await runLoad(shapes.peer, count), count);
    };
    logger.info({ warmup }, 'warming up troupe and the naive peer');
    await warmUp(warmup);

    logger.info({ messages: latencyMessages }, 'sequential latency (one client, one actor)');
    const traceFrom = gateway.output().length;
    const { troupe: latency, peer: peerLatency, troupeCalls } = await sequentialLatency({ troupe: { base, key }, peer: { base: peer.base, key } }, latencyMessages, Math.min(200, latencyMessages), `latency-${process.pid}`, cpus);
    const traced = traceHops ? gateway.output().slice(traceFrom) : undefined;
    const hops = traced === undefined ? undefined : sequentialHops(traced, troupeCalls);
    logger.info('one hop between processes on this machine, for reference');
    const machineHops = await measureMachineHops({ redisUrl, mongoUri });

    // Warmed again under load: the sequential section and the hops in between leave the concurrent
    // path colder (the first round after them cost both sides more CPU per message than the rest), and
    // the processes' heaps smaller than the load needs. With 1,000 messages here, troupe's gateway ran
    // 2-3 mark-compacts in the first round and its worker 3-4, growing their heaps back (0-2 and 0-3 in
    // the later rounds), and that round's p99 stood apart: 37.8-45.1 ms in six runs, against a median of
    // 25.8 in the others. So at least a round's worth.
    const roundsWarmup = Math.max(warmup, messages);
    logger.info({ warmup: roundsWarmup }, 'warming up troupe and the naive peer for the rounds');
    await warmUp(roundsWarmup);

    const troupeGc = new GcMeter({ gateway: `${base}/metrics`, worker: `http://127.0.0.1:${workerMetricsPort}/metrics` });
    const troupeRounds: RoundResult[] = [];
    const peerRounds: RoundResult[] = [];
    for (let r = 1; r <= rounds; r++) {
      logger.info({ round: r, of: rounds, messages, concurrency, actors }, 'troupe round');
      troupeRounds.push(await timedRound(shapes.troupe, messages, cpus.troupe, troupeGc));
      logger.info({ round: r, of: rounds }, 'naive peer round');
      const violationsBefore = await peer.orderingViolations();
      const peerRound = await timedRound(shapes.peer, messages, cpus.peer);
      peerRounds.push({ ...peerRound, ordering_violations: (await peer.orderingViolations()) - violationsBefore });
    }
    const troupeMedian = medians(troupeRounds);
    const peerMedian = medians(peerRounds);
    const ratio = round(troupeMedian.msgs_per_sec / peerMedian.msgs_per_sec, 2);

    logger.info({ jobs: messages }, 'raw BullMQ run');
    const raw = await rawBullmq(redisUrl, messages, warmup, concurrency, new CpuMeter({ redis: redisPid, bullmq_process: process.pid }));
    return {
      node: process.version,
      load: { messages_per_round: messages, rounds, order: 'troupe, peer, troupe, peer, …', warmup_before_rounds: roundsWarmup, client_loops: concurrency, actors, in_flight_per_actor: concurrency / actors, answer: 'SSE' },
      troupe: {
        path: 'HTTP POST (Accept: text/event-stream) → gateway (API key, rate limit + concurrency lease) → mailbox (Redis Stream) → drain (a BullMQ job, or the actor\'s lingering drain woken over pub/sub) → echo actor turn → conditional MongoDB commit (fenced) → reply stream + pub/sub → SSE',
        gives: ['per-actor order', 'fencing (one drain per actor)', 'at-most-once application (applied markers)', 'resumable replies (Last-Event-ID)', 'per-user rate and concurrency limits'],
        processes: { gateways: 1, workers: 1, mongo: 'troupe mongo (embedded, memory)' },
        rounds: troupeRounds,
        median: troupeMedian,
        p99_by_mark_compact: p99ByMarkCompact(troupeRounds),
      },
      naive_peer: {
        path: 'HTTP POST → Koa (API key with a cache) → queue.add + job.waitUntilFinished(queueEvents) → BullMQ worker (concurrency 50): findOneAndUpdate $inc upsert → one-event SSE',
        gives: ['no per-actor order (concurrent messages to one actor may run out of order)', 'no fencing', 'no resumable replies', 'no limits'],
        processes: { gateways: 1, workers: 1, mongo: 'the same troupe mongo' },
        rounds: peerRounds,
        median: peerMedian,
        ordering_violations: peerRounds.reduce((sum, r) => sum + (r.ordering_violations ?? 0), 0),
      },
      troupe_vs_peer: {
        msgs_per_sec_ratio: ratio,
        p99_ms: { troupe: troupeMedian.p99_ms, peer: peerMedian.p99_ms },
        // Of the round pairs (a troupe round, then the peer's): in how many troupe's p99 was at most the peer's, its msgs/s at least.
        pairs: { rounds, troupe_p99_at_most_peer: troupeRounds.filter((t, i) => t.p99_ms <= peerRounds[i].p99_ms).length, troupe_msgs_per_sec_at_least_peer: troupeRounds.filter((t, i) => t.msgs_per_sec >= peerRounds[i].msgs_per_sec).length },
      },
      latency: { ...latency, ...(hops ? { hops_ms: hops } : {}), naive_peer: { json: peerLatency.json, sse: peerLatency.sse }, machine_hops: machineHops },
      raw_bullmq: {
        ...raw,
        producers: concurrency,
        worker_concurrency: 50,
        note: 'a no-op job loop in one process: no HTTP, no MongoDB, no reply; a reference line, not a target',
        ratio_troupe_vs_raw: round(troupeMedian.msgs_per_sec / raw.jobs_per_sec),
      },
      acceptance: {
        troupe_msgs_per_sec_at_least_peer: ratio >= PEER_THROUGHPUT_RATIO_TARGET,
        troupe_p99_at_most_peer: troupeMedian.p99_ms <= peerMedian.p99_ms,
        sequential_json_latency_within_targets: latency.json_meets_targets,
        sequential_sse_latency_within_targets: latency.sse_meets_targets,
      },
    };
  } finally {
    await peer?.stop().catch((err: unknown) => logger.warn({ err }, 'stopping the naive peer failed'));
    for (const p of processes.reverse()) {
      if (p.exitCode === null && p.signalCode === null) {
        p.kill('SIGTERM');
        await once(p, 'exit');
      }
    }
    await deleteBenchKeys(redisUrl, prefix).catch(() => undefined);
  }
}

/** The traced sequential messages' hops: all of them (warm-up included), and the timed ones, each block's first apart. */
function sequentialHops(traced: string, calls: { blocks: ClientCall[]; firstAfterPause: ClientCall[] }) {
  const { apart, rest } = hopPercentilesApart(traced, calls.blocks, calls.firstAfterPause);
  return { ...hopPercentiles(traced), timed: { what: "the timed messages only, each block's first (sent after a pause) apart from the others", first_after_pause: apart, others: rest } };
}
