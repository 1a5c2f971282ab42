/**
 * A real Redis Cluster of the test's own on loopback: `masters` redis-server processes started with
 * `--cluster-enabled yes`, joined by `redis-cli --cluster create --cluster-replicas 0 --cluster-yes`,
 * each in its own temporary directory removed by `stop()`.
 *
 * Why a real cluster instead of a single redis-server: a cluster refuses what a single server accepts
 * (multi-key commands and Lua scripts whose keys hash to different slots, keys served by another node),
 * so only a cluster shows whether troupe's keys and scripts are cluster-safe.
 *
 * Readiness is polled (PING, then CLUSTER INFO and CLUSTER NODES on every node) against one bounded
 * deadline; a failure names what was awaited and carries every node's output. A start that fails
 * half-way stops what it had started before rethrowing.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { Cluster, Redis, type ClusterOptions } from 'ioredis';
import { pollUntil } from './async.js';
import { findExecutable } from './executables.js';
import { tempDir } from './troupe-mongo-process.js';

export interface RedisClusterNodeAddress {
  host: string;
  port: number;
}

export interface RedisClusterHandle {
  /** The masters' client addresses, in start order. */
  nodes: RedisClusterNodeAddress[];
  /** `redis+cluster://127.0.0.1:P1,127.0.0.1:P2,...`: every node as a seed. */
  url: string;
  /** The redis-server processes' pids, in the order of `nodes`. */
  pids: number[];
  /** Each node's temporary directory (its nodes.conf), in the order of `nodes`; removed by `stop()`. */
  dirs: string[];
  /** Everything the nodes (and `redis-cli --cluster create`) printed, for failure messages. */
  output(): string;
  /** SIGTERM every node, await the exits (SIGKILL after a bound), remove the directories. Idempotent. */
  stop(): Promise<void>;
}

export interface StartRedisClusterOptions {
  /** Number of masters (no replicas); `redis-cli --cluster create` needs at least 3. Default 3. */
  masters?: number;
  /** Bound for the whole start: every node answering, the cluster formed and agreed. Default 30 s. */
  timeoutMs?: number;
  /** `--cluster-node-timeout`. Small, so a failure test sees a node declared failed quickly; not so small that a busy CI machine fails a node spuriously. Default 3000 ms. */
  nodeTimeoutMs?: number;
}

/** Every slot of a Redis Cluster. */
export const CLUSTER_SLOTS = 16384;
/** A cluster node listens for its peers on its client port + 10000 (the cluster bus). */
const BUS_PORT_OFFSET = 10_000;
/**
 * Client ports are picked in [12000, 22000), so bus ports fall in [22000, 32000): the two ranges do not
 * overlap, and both stay below Linux's default ephemeral range (32768+), where outgoing connections and
 * `listen(0)` ports of other tests land.
 */
const PORT_RANGE = { from: 12_000, to: 22_000 };
/** How many times one node is retried on other ports when its ports were taken between the check and its bind. */
const BIND_ATTEMPTS = 5;
const STOP_BOUND_MS = 5_000;
const OUTPUT_LIMIT = 32 * 1024;


async function redisBinaries(): Promise<{ server: string; cli: string }> {
  // Debian's redis-server package puts both in /usr/bin.
  const [server, cli] = await Promise.all([findExecutable('redis-server', ['/usr/bin']), findExecutable('redis-cli', ['/usr/bin'])]);
  const missing = [server === undefined ? 'redis-server' : undefined, cli === undefined ? 'redis-cli' : undefined].filter((name) => name !== undefined);
  if (server === undefined || cli === undefined) {
    throw new Error(
      `the Redis Cluster test harness needs ${missing.join(' and ')} (Redis 7), not found on PATH or in /usr/bin: ` +
        'install it with `apt-get install -y redis-server` (as .ci/run does) or `brew install redis`',
    );
  }
  return { server, cli };
}

/** Whether `port` can be bound on 127.0.0.1 right now. */
function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A client port whose bus port is free too, and that no other node of this cluster uses. */
async function freeClusterPort(taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    if (taken.has(port)) continue;
    if ((await canBind(port)) && (await canBind(port + BUS_PORT_OFFSET))) return port;
  }
  throw new Error(`no free pair of ports (P, P+${BUS_PORT_OFFSET}) found for a cluster node in [${PORT_RANGE.from}, ${PORT_RANGE.to})`);
}

interface ClusterNodeProcess {
  port: number;
  dir: string;
  child: ChildProcess;
  exited: Promise<void>;
  output(): string;
}

/** Spawned, and not yet exited (a child whose spawn failed has no pid and never runs). */
function isRunning(child: ChildProcess): boolean {
  return child.pid !== undefined && child.exitCode === null && child.signalCode === null;
}

/** A throwaway client for one probe: no retries, no offline queue, so a dead node fails fast. */
function probeClient(port: number): Redis {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  client.on('error', () => undefined);
  return client;
}

/** One node's view of the cluster from CLUSTER NODES, reduced to what all nodes must agree on. */
function clusterView(clusterNodes: string): { lines: string[]; problems: string[] } {
  const lines: string[] = [];
  const problems: string[] = [];
  for (const line of clusterNodes.trim().split('\n')) {
    // <id> <ip:port@cport[,hostname]> <flags> <master> <ping-sent> <pong-recv> <config-epoch> <link-state> <slot>...
    const [id, address, flags, , , , , linkState, ...slots] = line.trim().split(' ');
    if (id === undefined || address === undefined || flags === undefined) continue;
    const flagList = flags.split(',').filter((flag) => flag !== 'myself');
    const bad = flagList.filter((flag) => ['fail', 'fail?', 'handshake', 'noaddr'].includes(flag));
    if (bad.length > 0) problems.push(`${address} is ${bad.join(',')}`);
    if (!flagList.includes('master')) problems.push(`${address} is not a master (${flags})`);
    if (linkState !== 'connected') problems.push(`${address} link ${linkState ?? 'unknown'}`);
    lines.push([id, address.split('@')[0], flagList.sort().join(','), ...slots.sort()].join(' '));
  }
  return { lines: lines.sort(), problems };
}

/**
 * Starts a cluster of `masters` masters on 127.0.0.1 and resolves once every node reports
 * `cluster_state:ok` with all 16384 slots assigned and all nodes agree on who owns what.
 */
export async function startRedisCluster(options: StartRedisClusterOptions = {}): Promise<RedisClusterHandle> {
  const masters = options.masters ?? 3;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 3_000;
  if (!Number.isInteger(masters) || masters < 3) throw new Error(`a Redis Cluster needs at least 3 masters, got ${masters}`);
  const binaries = await redisBinaries();
  const deadline = Date.now() + timeoutMs;
  const remaining = () => Math.max(1, deadline - Date.now());

  const nodes: ClusterNodeProcess[] = [];
  const dirs: Array<{ dir: string; remove(): Promise<void> }> = [];
  let createOutput = '';

  // A test process that exits without calling stop() (an uncaught error, process.exit) must not leave
  // redis-servers behind: kill them synchronously as it exits. A SIGKILLed test process cannot do this.
  const killOnExit = () => {
    for (const node of nodes) if (isRunning(node.child)) node.child.kill('SIGKILL');
  };
  process.on('exit', killOnExit);

  const output = () =>
    [
      ...nodes.map((node) => `--- redis-server 127.0.0.1:${node.port} (pid ${node.child.pid ?? '?'}) ---\n${node.output()}`),
      ...(createOutput === '' ? [] : [`--- redis-cli --cluster create ---\n${createOutput}`]),
    ].join('\n');

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await Promise.all(
        nodes.map(async ({ child, exited }) => {
          if (!isRunning(child)) return;
          child.kill('SIGTERM');
          let timer: NodeJS.Timeout | undefined;
          const bounded = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), STOP_BOUND_MS)));
          const result = await Promise.race([exited.then(() => 'exited' as const), bounded]);
          clearTimeout(timer);
          if (result === 'timeout') {
            child.kill('SIGKILL');
            await exited;
          }
        }),
      );
      process.off('exit', killOnExit);
      await Promise.all(dirs.map((dir) => dir.remove()));
    })();
    return stopping;
  };

  /** Spawns one node and waits for PING; resolves undefined when its ports were taken meanwhile (retry). */
  const startNode = async (port: number, dir: string): Promise<ClusterNodeProcess | undefined> => {
    const child = spawn(
      binaries.server,
      [
        '--port', String(port),
        '--bind', '127.0.0.1',
        '--dir', dir,
        '--daemonize', 'no',
        '--cluster-enabled', 'yes',
        '--cluster-config-file', 'nodes.conf',
        '--cluster-node-timeout', String(nodeTimeoutMs),
        '--save', '',
        '--appendonly', 'no',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let text = '';
    const append = (chunk: Buffer) => {
      text = (text + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
    };
    child.stdout!.on('data', append);
    child.stderr!.on('data', append);
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      // A failed spawn (ENOENT, EACCES) is an 'error' event and no 'exit': nothing will run to await.
      child.once('error', (error) => {
        append(Buffer.from(`spawn failed: ${error.message}\n`));
        if (child.pid === undefined) resolve();
      });
    });
    const node: ClusterNodeProcess = { port, dir, child, exited, output: () => text };
    nodes.push(node);
    try {
      await pollUntil(
        async () => {
          if (!isRunning(child)) throw new Error(`redis-server on port ${port} exited`);
          const probe = probeClient(port);
          try {
            await probe.connect();
            return (await probe.ping()) === 'PONG';
          } finally {
            probe.disconnect();
          }
        },
        { timeoutMs: remaining(), what: `redis-server on 127.0.0.1:${port} to answer PING` },
      );
      return node;
    } catch (error) {
      if (!isRunning(child) && /Address already in use|Failed listening on port/i.test(text)) {
        // Another process bound the port (or its bus port) after our check: try other ports.
        nodes.splice(nodes.indexOf(node), 1);
        return undefined;
      }
      throw error;
    }
  };

  try {
    const taken = new Set<number>();
    for (let index = 0; index < masters; index++) {
      let node: ClusterNodeProcess | undefined;
      for (let attempt = 0; attempt < BIND_ATTEMPTS && node === undefined; attempt++) {
        const port = await freeClusterPort(taken);
        taken.add(port);
        // A fresh directory per attempt: a node that failed to bind may have written its nodes.conf.
        const dir = await tempDir('troupe-test-redis-cluster');
        dirs.push(dir);
        node = await startNode(port, dir.dir);
      }
      if (node === undefined) throw new Error(`redis-server could not bind free ports after ${BIND_ATTEMPTS} attempts`);
    }

    // Assigns the slots evenly (0-5460, 5461-10922, 10923-16383 for 3 masters) and MEETs the nodes;
    // it returns once the nodes' configurations agree, but each node still has to reach cluster_state:ok.
    createOutput = await new Promise<string>((resolve, reject) => {
      execFile(
        binaries.cli,
        ['--cluster', 'create', ...nodes.map((node) => `127.0.0.1:${node.port}`), '--cluster-replicas', '0', '--cluster-yes'],
        { timeout: remaining(), killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024 },
        (error, stdout, stderr) => {
          const text = `${stdout}${stderr}`;
          if (error) {
            createOutput = text;
            const why = error.killed ? 'it did not finish before the deadline' : error.message.split('\n')[0];
            reject(new Error(`redis-cli --cluster create failed (${why})`));
          } else resolve(text);
        },
      );
    });

    const probes = nodes.map((node) => probeClient(node.port));
    try {
      await Promise.all(probes.map((probe) => probe.connect()));
      let lastProblem = '';
      await pollUntil(
        async () => {
          for (const node of nodes) if (!isRunning(node.child)) throw new Error(`redis-server on port ${node.port} exited`);
          const infos = await Promise.all(probes.map((probe) => probe.cluster('INFO')));
          for (const [index, info] of infos.entries()) {
            const field = (name: string) => new RegExp(`^${name}:(\\S+)`, 'm').exec(info)?.[1];
            const port = nodes[index]!.port;
            if (field('cluster_state') !== 'ok') {
              lastProblem = `127.0.0.1:${port} cluster_state:${field('cluster_state')}`;
              return false;
            }
            if (field('cluster_slots_assigned') !== String(CLUSTER_SLOTS) || field('cluster_slots_ok') !== String(CLUSTER_SLOTS)) {
              lastProblem = `127.0.0.1:${port} slots assigned ${field('cluster_slots_assigned')}, ok ${field('cluster_slots_ok')}`;
              return false;
            }
            if (field('cluster_known_nodes') !== String(masters) || field('cluster_size') !== String(masters)) {
              lastProblem = `127.0.0.1:${port} knows ${field('cluster_known_nodes')} nodes, size ${field('cluster_size')}`;
              return false;
            }
          }
          const views = (await Promise.all(probes.map((probe) => probe.cluster('NODES')))).map((text) => clusterView(String(text)));
          const problems = views.flatMap((view, index) => view.problems.map((problem) => `127.0.0.1:${nodes[index]!.port} sees ${problem}`));
          if (problems.length > 0) {
            lastProblem = problems.join('; ');
            return false;
          }
          const first = views[0]!.lines.join('\n');
          if (views.some((view) => view.lines.join('\n') !== first) || views[0]!.lines.length !== masters) {
            lastProblem = `the nodes disagree on CLUSTER NODES:\n${views.map((view) => view.lines.join('\n')).join('\n--\n')}`;
            return false;
          }
          return true;
        },
        { timeoutMs: remaining(), what: 'every cluster node to report cluster_state:ok with all slots assigned and agreeing CLUSTER NODES' },
      ).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}${lastProblem === '' ? '' : ` (last: ${lastProblem})`}`, { cause: error });
      });
    } finally {
      for (const probe of probes) probe.disconnect();
    }
  } catch (error) {
    await stop();
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`could not start a Redis Cluster of ${masters} masters: ${message}\n${output()}`, { cause: error });
  }

  const addresses = nodes.map((node) => ({ host: '127.0.0.1', port: node.port }));
  return {
    nodes: addresses,
    url: `redis+cluster://${addresses.map(({ host, port }) => `${host}:${port}`).join(',')}`,
    pids: nodes.map((node) => node.child.pid!),
    dirs: nodes.map((node) => node.dir),
    output,
    stop,
  };
}

/**
 * An ioredis `Cluster` on the harness's nodes, once it is ready (slots loaded). The defaults suit a
 * test: a cluster that went away fails commands after a few bounded retries instead of queueing them
 * for ever. Pass BullMQ's needs (`maxRetriesPerRequest: null` in `redisOptions`) through `options`.
 */
export async function connectRedisCluster(cluster: Pick<RedisClusterHandle, 'nodes'>, options: ClusterOptions = {}): Promise<Cluster> {
  const client = new Cluster(
    cluster.nodes.map(({ host, port }) => ({ host, port })),
    {
      lazyConnect: true,
      clusterRetryStrategy: (times) => (times > 10 ? null : Math.min(100 * times, 1_000)),
      ...options,
      redisOptions: { connectTimeout: 2_000, maxRetriesPerRequest: 3, ...options.redisOptions },
    },
  );
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return client;
}
