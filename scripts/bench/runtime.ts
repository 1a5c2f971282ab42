/**
 * `npm run bench:runtime`: request/reply throughput and latency end to end — HTTP → gateway → BullMQ →
 * actor → Redis Stream → SSE, with one gateway and one worker process — against raw BullMQ add+process
 * jobs/s on the same Redis, measured in the same run.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Agent } from 'node:http';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { postEventStream } from './event-stream-request.js';
import type { Logger } from '../../logging/logger.js';
import { createBenchUser, freePort, percentile, troupe, waitUntilReady } from './troupe-processes.js';
import { CpuMeter, localRedisPid } from './process-cpu.js';

export interface RuntimeBenchOptions {
  redisUrl: string;
  logger: Logger;
  /** Timed request/reply messages (and raw jobs). */
  messages?: number;
  /** Requests in flight at once (each loop talks to its own actor). */
  concurrency?: number;
  warmup?: number;
  /** Write a V8 CPU profile of every troupe process here (for finding where the time goes). */
  profileDir?: string;
}

/** One POST answered as SSE, read until `done`; resolves with the latency in ms. */
async function requestReply(agent: Agent, url: URL, key: string, body: string): Promise<number> {
  const started = performance.now();
  await postEventStream(agent, url, key, body);
  return performance.now() - started;
}

/**
 * Raw BullMQ on the same Redis: `concurrency` producers adding one job at a time (the shape of the
 * end-to-end run) and a no-op worker at concurrency 50, in this process. A warm-up run first, as the
 * end-to-end run has one, so both are measured with warm code.
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

const round = (n: number, digits = 3) => Number(n.toFixed(digits));

export async function runRuntimeBench({ redisUrl, logger, messages = 10_000, concurrency = 32, warmup = 1_000, profileDir }: RuntimeBenchOptions) {
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const [mongoPort, httpPort] = [await freePort(), await freePort()];
  const mongoUri = `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`;
  const env = { REDIS_URL: redisUrl, MONGODB_URI: mongoUri, MONGODB_DB: `bench_${process.pid}`, PORT: String(httpPort), HOST: '127.0.0.1', KIND_LIMITS: `echo:rate=100000000/60,concurrent=100000` };
  const processes: ChildProcess[] = [];
  try {
    const mongo = troupe(['mongo', '--port', String(mongoPort)], env, { nodeArgs });
    processes.push(mongo.child);
    await mongo.waitFor('listening');
    const key = await createBenchUser(env);
    // Request logs off during the run (warn level): the figure is about the pipeline, not log I/O.
    // Every kind gets a worker (readiness needs one per kind); only echo receives messages.
    const worker = troupe(['worker'], env, { logLevel: 'warn', nodeArgs });
    processes.push(worker.child);
    const gateway = troupe(['gateway'], env, { logLevel: 'warn', nodeArgs });
    processes.push(gateway.child);
    const base = `http://127.0.0.1:${httpPort}`;
    await waitUntilReady(`${base}/readyz`, [worker, gateway]);
    logger.info({ messages, concurrency }, 'end-to-end run');

    const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
    const body = JSON.stringify({ type: 'say', payload: { text: 'hello troupe bench' } });
    const runLoad = async (total: number, tag: string) => {
      const latencies: number[] = [];
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async (_, loop) => {
          const url = new URL(`${base}/actors/echo/bench-${tag}-${loop}/messages`);
          while (next < total) {
            next += 1;
            latencies.push(await requestReply(agent, url, key, body));
          }
        }),
      );
      return { latencies, seconds: (performance.now() - started) / 1000 };
    };
    await runLoad(warmup, `warm${process.pid}`);
    const redisPid = localRedisPid(Number(new URL(redisUrl).port || 6379));
    const cpu = new CpuMeter({ gateway: gateway.child.pid, worker: worker.child.pid, mongo: mongo.child.pid, redis: redisPid, load_generator: process.pid });
    cpu.begin();
    const { latencies, seconds } = await runLoad(messages, `run${process.pid}`);
    const cpuMsPerMessage = cpu.perUnit(messages);
    agent.destroy();
    latencies.sort((a, b) => a - b);
    const e2e = {
      messages,
      concurrency,
      seconds: round(seconds),
      msgs_per_sec: Math.round(messages / seconds),
      p50_ms: round(percentile(latencies, 50), 1),
      p99_ms: round(percentile(latencies, 99), 1),
      max_ms: round(latencies[latencies.length - 1], 1),
      cpu_ms_per_msg: cpuMsPerMessage,
    };
    logger.info({ jobs: messages }, 'raw BullMQ run');
    const raw = await rawBullmq(redisUrl, messages, warmup, concurrency, new CpuMeter({ redis: redisPid, bullmq_process: process.pid }));
    const ratio = round(e2e.msgs_per_sec / raw.jobs_per_sec);
    return {
      node: process.version,
      path: 'HTTP POST (Accept: text/event-stream) → gateway → mailbox (Redis Stream) → drain (a BullMQ job, or the actor\'s lingering drain woken over pub/sub) → echo actor turn (MongoDB group commit) → reply stream + pub/sub → SSE',
      processes: { gateways: 1, workers: 1, mongo: 'troupe mongo (embedded, memory)' },
      end_to_end: e2e,
      raw_bullmq: { ...raw, producers: concurrency, worker_concurrency: 50 },
      ratio_e2e_vs_raw: ratio,
      acceptance: { e2e_at_least_40pct_of_raw_bullmq: ratio >= 0.4 },
    };
  } finally {
    for (const p of processes.reverse()) {
      if (p.exitCode === null) {
        p.kill('SIGTERM');
        await once(p, 'exit');
      }
    }
  }
}
