/**
 * What the end-to-end benchmarks share: troupe processes started as an operator would (`troupe mongo`,
 * `worker`, `gateway`), a free port, readiness, a bench user, an MCP client, and percentiles.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createRedisClient, deleteMatchingKeys } from '../../queues/redis-client.js';
import { RedisNames } from '../../queues/keys.js';
import { PACKAGE_ROOT } from '../../models/package-root.js';

const repoRoot = PACKAGE_ROOT;

export interface BenchProcess {
  child: ChildProcess;
  output: () => string;
  waitFor: (text: string) => Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** How long a process may take to print what `waitFor` waits for. */
const WAIT_FOR_BOUND_MS = 60_000;

/** `node <nodeArgs>` in the repository with `env` over this process's environment, its output collected. */
export function benchProcess(nodeArgs: string[], env: Record<string, string>, options: { logLevel?: string } = {}): BenchProcess {
  const child = spawn(process.execPath, nodeArgs, {
    cwd: repoRoot,
    env: { ...process.env, ...env, LOG_LEVEL: options.logLevel ?? 'info', LOG_PRETTY: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const what = nodeArgs.filter((arg) => !arg.startsWith('-')).join(' ');
  return {
    child,
    output: () => output,
    waitFor: (text) =>
      new Promise((resolve, reject) => {
        const deadline = Date.now() + WAIT_FOR_BOUND_MS;
        const check = () => {
          if (output.includes(text)) {
            clearInterval(timer);
            resolve();
          } else if (child.exitCode !== null || Date.now() > deadline) {
            clearInterval(timer);
            reject(new Error(`${what} ${child.exitCode !== null ? 'exited' : `did not print within ${WAIT_FOR_BOUND_MS / 1000} s`} "${text}":\n${output}`));
          }
        };
        const timer = setInterval(check, 20);
      }),
  };
}

/**
 * The Node flags troupe's processes run with, as `npm start` and the Docker image (NODE_OPTIONS) run them:
 * a young generation of 64 MB semi-spaces (README, "Running troupe's processes").
 */
export const TROUPE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];

/** `troupe <args>` with `env` over this process's environment; `nodeArgs` e.g. a CPU profiler flag. */
export function troupe(args: string[], env: Record<string, string>, options: { logLevel?: string; nodeArgs?: string[] } = {}): BenchProcess {
  return benchProcess([...TROUPE_NODE_FLAGS, ...(options.nodeArgs ?? []), 'bin/troupe.js', ...args], env, options);
}

/** A benchmark's own process (a script under scripts/bench/, e.g. with a test kind), run from its source through tsx. */
export function benchScript(script: string, args: string[], env: Record<string, string>, options: { logLevel?: string } = {}): BenchProcess {
  return benchProcess(['--import', 'tsx', script, ...args], env, options);
}

/** Runs `troupe users create` and returns the printed API key. */
export async function createBenchUser(env: Record<string, string>): Promise<string> {
  const users = troupe(['users', 'create', `bench-${process.pid}`], env);
  await once(users.child, 'exit');
  const key = /trp_[A-Za-z0-9_-]+/.exec(users.output())?.[0];
  if (!key) throw new Error(`could not create the bench user:\n${users.output()}`);
  return key;
}

/** Polls /readyz (which needs a live worker for every kind) until 200; fails if a process exits. */
export async function waitUntilReady(url: string, children: BenchProcess[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const exited = children.find((c) => c.child.exitCode !== null);
    if (exited) throw new Error(`a troupe process exited while starting:\n${exited.output()}`);
    const ok = await fetch(url).then((r) => r.status === 200, () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${url} not ready within 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A REDIS_PREFIX of its own for one bench run: a Redis prefix is bound to the MongoDB database that
 * first used it, and each run starts a fresh one.
 */
export const benchPrefix = (name: string): string => `bench-${name}-${process.pid}-${randomBytes(3).toString('hex')}`;

/** Removes a bench run's keys and queues from the shared Redis once its processes are gone. */
export async function deleteBenchKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = createRedisClient(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    for (const pattern of [`${prefix}:*`, new RedisNames(prefix).queueKeysPattern()]) await deleteMatchingKeys(redis, pattern);
  } finally {
    redis.disconnect();
  }
}

/** The p-th percentile of ascending `sorted` (nearest rank). */
export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** p50 and p99 of `samples` (ms) to a hundredth, for hops (tenths of a millisecond); 0 when there are none. */
export function hopQuantiles(samples: number[]): { p50: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const hundredth = (n: number | undefined) => Math.round((n ?? 0) * 100) / 100;
  return { p50: hundredth(percentile(sorted, 50)), p99: hundredth(percentile(sorted, 99)) };
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Latency samples (ms) as `{p50_ms, p95_ms, …, max_ms}`, to 0.1 ms, for the percentiles asked. */
export function latencySummary(samples: number[], percentiles: number[] = [50, 95]): Record<string, number> {
  const sorted = [...samples].sort((a, b) => a - b);
  const tenth = (n: number) => Math.round(n * 10) / 10;
  return { ...Object.fromEntries(percentiles.map((p) => [`p${p}_ms`, tenth(percentile(sorted, p))])), max_ms: tenth(sorted.at(-1) ?? 0) };
}

export interface BenchTroupe {
  /** http://127.0.0.1:PORT */
  base: string;
  key: string;
  /** Where its MongoDB listens, and its database (for baselines measured beside it). */
  mongo: { uri: string; dbName: string };
  /** An MCP SDK client connected to /mcp over streamable HTTP with the bench user's key. */
  mcp: Client;
  /** What the gateway has logged so far (its hop traces, with `traceHops`). */
  gatewayOutput(): string;
  /** What the worker has logged so far (at warn: its warnings and errors). */
  workerOutput(): string;
  /** The processes' pids, for measuring their CPU. */
  pids: { gateway: number | undefined; worker: number | undefined; mongo: number | undefined };
  stop(): Promise<void>;
}

/**
 * A troupe as operators run it, for the MCP benchmarks: `troupe mongo` (embedded, memory), optionally
 * the MTG dataset, a bench user, one `troupe worker` and one `troupe gateway` (or, with `oneProcess`, one
 * `troupe start`), and a connected MCP client.
 */
export async function startBenchTroupe(options: {
  redisUrl: string;
  name: string;
  kindLimits: string;
  seedMtg?: boolean;
  env?: Record<string, string>;
  /** Node flags for the worker, gateway and mongo processes (e.g. a CPU profiler). */
  nodeArgs?: string[];
  /** Run the gateway with TRACE_HOPS (logging at info, so its hop lines are in `gatewayOutput`). */
  traceHops?: boolean;
  /**
   * Run the gateway and the workers in one `troupe start` process, as `npm start` does, instead of a
   * `troupe worker` and a `troupe gateway` (on the same `troupe mongo`, into which it loads the MTG dataset first).
   */
  oneProcess?: boolean;
}): Promise<BenchTroupe> {
  const [mongoPort, httpPort] = [await freePort(), await freePort()];
  const env = {
    REDIS_URL: options.redisUrl,
    MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
    MONGODB_DB: `bench_${options.name}_${process.pid}`,
    REDIS_PREFIX: benchPrefix(options.name),
    PORT: String(httpPort),
    HOST: '127.0.0.1',
    KIND_LIMITS: options.kindLimits,
    ...options.env,
  };
  const processes: ChildProcess[] = [];
  let mcp: Client | undefined;
  let gatewayOutput = () => '';
  const stop = async () => {
    await mcp?.close().catch(() => undefined);
    for (const p of processes) {
      if (p.exitCode === null && p.signalCode === null) {
        p.kill('SIGTERM');
        await once(p, 'exit');
      }
    }
    await deleteBenchKeys(options.redisUrl, env.REDIS_PREFIX).catch(() => undefined);
  };
  try {
    const mongo = troupe(['mongo', '--port', String(mongoPort)], env, { nodeArgs: options.nodeArgs });
    processes.push(mongo.child);
    await mongo.waitFor('listening');
    if (options.seedMtg) {
      const seed = troupe(['seed', 'mtg'], env);
      const [code] = (await once(seed.child, 'exit')) as [number | null];
      if (code !== 0) throw new Error(`troupe seed mtg failed:\n${seed.output()}`);
    }
    const key = await createBenchUser(env);
    const ownWorker = options.oneProcess ? undefined : troupe(['worker'], env, { logLevel: 'warn', nodeArgs: options.nodeArgs });
    const gateway = troupe([options.oneProcess ? 'start' : 'gateway'], options.traceHops ? { ...env, TRACE_HOPS: 'true' } : env, { logLevel: options.traceHops ? 'info' : 'warn', nodeArgs: options.nodeArgs });
    const worker = ownWorker ?? gateway;
    const servers = ownWorker ? [ownWorker, gateway] : [gateway];
    gatewayOutput = gateway.output;
    processes.push(...servers.map((s) => s.child));
    const base = `http://127.0.0.1:${httpPort}`;
    await waitUntilReady(`${base}/readyz`, servers);
    mcp = new Client({ name: `troupe-bench-${options.name}`, version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    const pids = { gateway: gateway.child.pid, worker: worker.child.pid, mongo: mongo.child.pid };
    return { base, key, mongo: { uri: env.MONGODB_URI, dbName: env.MONGODB_DB }, mcp, gatewayOutput: () => gatewayOutput(), workerOutput: worker.output, pids, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
