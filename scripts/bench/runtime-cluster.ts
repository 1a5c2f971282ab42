/**
 * `npm run bench:runtime -- --cluster`: troupe end to end (HTTP POST → gateway → mailbox → drain →
 * echo actor turn → MongoDB commit → reply stream → SSE, the load shape of `bench:runtime`) on one
 * Redis server and on a Redis Cluster of three masters, in interleaved rounds (single, cluster, single,
 * cluster, …). Both Redis targets are fresh redis-server processes the bench starts on loopback with
 * the same persistence settings (none), so the two are comparable; each gets a troupe of its own (one
 * `troupe mongo`, one worker, one gateway), and REDIS_PARTITIONS applies to both alike: the only
 * difference is the topology. Per round: msgs/s, p50/p99, CPU per message of every process (each
 * cluster node's too), the Redis commands per message, and how busy the machine's cores were.
 *
 * The cluster comes from the test harness (test/support/redis-cluster.ts): this bench is dev tooling
 * run from a checkout, where the harness and redis-server/redis-cli (Redis 7) are at hand.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { Redis } from 'ioredis';
import { DEFAULT_PARTITIONS } from '../../queues/keys.js';
import { startRedisCluster } from '../../test/support/redis-cluster.js';
import { startRedisServer } from '../../test/support/redis-server-process.js';
import { CpuMeter } from './process-cpu.js';
import { actorsInTurn, allAnswered, runLoad, type LoadShape } from './request-load.js';
import { latencySummary, median, startBenchTroupe, type BenchTroupe } from './troupe-processes.js';
import type { RoundsLoad } from './runtime.js';

export interface RuntimeClusterBenchOptions extends RoundsLoad {
  /** Masters of the cluster (no replicas). */
  masters?: number;
}

type TargetName = 'single' | 'cluster';

interface RedisNode {
  /** host:port */
  address: string;
  pid: number | undefined;
  /** A connection of the bench's own, for INFO. */
  client: Redis;
}

interface Target {
  name: TargetName;
  troupe: BenchTroupe;
  nodes: RedisNode[];
  shape: LoadShape;
}

interface RoundResult {
  round: number;
  msgs_per_sec: number;
  p50_ms: number;
  p99_ms: number;
  /** CPU ms per message: gateway, worker, mongo, redis (every node's together), load_generator, total. */
  cpu_ms_per_msg: Record<string, number>;
  redis_cpu_ms_per_msg_per_node: Record<string, number>;
  /** Commands the Redis server(s) ran per message (INFO stats, script-internal calls included). */
  redis_commands_per_msg: number;
  redis_commands_per_msg_per_node: Record<string, number>;
  /** Redis CPU per command run (every node's together), in µs. */
  redis_cpu_us_per_command: number;
  /** Socket reads Redis made per message, and commands per read (commands as INFO stats counts them, a script's inner calls included: comparable between targets). */
  redis_reads_per_msg: number;
  redis_commands_per_read: number;
  /** Cores' worth of CPU over the round: this target's processes with the load generator, the other target's (idle) processes, everything else on the machine. */
  cores_busy: { measured_processes: number; other_target_idle: number; rest_of_machine: number; machine: number };
}

const KIND_LIMITS = 'echo:rate=100000000/60,concurrent=100000';
const LOG_LINES_KEPT = 20;
const LOG_LINE_CHARS = 400;

const round = (n: number, digits = 3) => Number(n.toFixed(digits));

/** `field:value` lines of an INFO section. */
function infoFields(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

/** Commands run so far, and socket reads that brought them (INFO stats): commands per read is how much arrives pipelined. */
async function commandsProcessed(node: RedisNode): Promise<{ commands: number; reads: number }> {
  const stats = infoFields(await node.client.info('stats'));
  return { commands: Number(stats.total_commands_processed), reads: Number(stats.total_reads_processed) };
}

/**
 * Errors the node answered (INFO errorstats), the commands that failed or were rejected (INFO
 * commandstats), and the connections it took: ioredis sends CLIENT SETINFO (lib-name, lib-ver) on every
 * connection, which Redis before 7.2 answers with two ERRs, counted in errorstats but under no command.
 * A cluster's redirections and refusals would show here as MOVED, ASK, CROSSSLOT, CLUSTERDOWN, TRYAGAIN.
 */
async function redisErrors(node: RedisNode) {
  const errorstats = Object.fromEntries(Object.entries(infoFields(await node.client.info('errorstats'))).map(([name, value]) => [name.replace(/^errorstat_/, ''), value]));
  const failing: Record<string, string> = {};
  for (const [name, value] of Object.entries(infoFields(await node.client.info('commandstats')))) {
    const failed = Number(/failed_calls=(\d+)/.exec(value)?.[1] ?? 0);
    const rejected = Number(/rejected_calls=(\d+)/.exec(value)?.[1] ?? 0);
    if (failed > 0 || rejected > 0) failing[name.replace(/^cmdstat_/, '')] = `failed_calls=${failed},rejected_calls=${rejected}`;
  }
  const stats = infoFields(await node.client.info('stats'));
  const clients = infoFields(await node.client.info('clients'));
  return { errorstats, failing_commands: failing, connections_received: Number(stats.total_connections_received), connected_clients_now: Number(clients.connected_clients) };
}

/** Busy and elapsed clock ticks of the whole machine (the `cpu` line of /proc/stat); undefined off Linux. */
function machineTicks(): { busy: number; all: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const [, ...fields] = line.trim().split(/\s+/);
    // user nice system idle iowait irq softirq steal (guest time is inside user already)
    const values = fields.slice(0, 8).map(Number);
    const all = values.reduce((a, b) => a + b, 0);
    return { busy: all - values[3] - values[4], all };
  } catch {
    return undefined;
  }
}

/** One timed round of `messages` through `target`, the other target idle beside it. */
async function timedRound(n: number, target: Target, other: Target, messages: number): Promise<RoundResult> {
  const redisName = (node: RedisNode) => `redis ${node.address}`;
  const meter = new CpuMeter({
    gateway: target.troupe.pids.gateway,
    worker: target.troupe.pids.worker,
    mongo: target.troupe.pids.mongo,
    ...Object.fromEntries(target.nodes.map((node) => [redisName(node), node.pid])),
    load_generator: process.pid,
  });
  const idle = new CpuMeter({ ...other.troupe.pids, ...Object.fromEntries(other.nodes.map((node) => [redisName(node), node.pid])) });
  const commandsBefore = await Promise.all(target.nodes.map(commandsProcessed));
  const machineBefore = machineTicks();
  meter.begin();
  idle.begin();
  const { latencies, seconds } = allAnswered(await runLoad(target.shape, messages), messages);
  const cpu = meter.perUnit(messages);
  const idleCpu = idle.perUnit(messages);
  const machineAfter = machineTicks();
  const commandsAfter = await Promise.all(target.nodes.map(commandsProcessed));

  const perNode = Object.fromEntries(target.nodes.map((node) => [node.address, cpu[redisName(node)] ?? 0]));
  const commandsPerNode = Object.fromEntries(target.nodes.map((node, i) => [node.address, round((commandsAfter[i].commands - commandsBefore[i].commands) / messages, 2)]));
  const reads = target.nodes.reduce((sum, _node, i) => sum + commandsAfter[i].reads - commandsBefore[i].reads, 0);
  const msgsPerSec = messages / seconds;
  const cores = (msPerMessage: number) => round((msPerMessage * msgsPerSec) / 1000, 2);
  const machine = machineBefore && machineAfter ? round((machineAfter.busy - machineBefore.busy) / (machineAfter.all - machineBefore.all) * os.cpus().length, 2) : NaN;
  const measured = cores(cpu.total);
  const otherIdle = cores(idleCpu.total);
  const summary = latencySummary(latencies, [50, 99]);
  const redisMs = Object.values(perNode).reduce((a, b) => a + b, 0);
  const commandsPerMessage = Object.values(commandsPerNode).reduce((a, b) => a + b, 0);
  return {
    round: n,
    msgs_per_sec: Math.round(msgsPerSec),
    p50_ms: summary.p50_ms,
    p99_ms: summary.p99_ms,
    cpu_ms_per_msg: {
      gateway: cpu.gateway,
      worker: cpu.worker,
      mongo: cpu.mongo,
      redis: round(redisMs),
      load_generator: cpu.load_generator,
      total: cpu.total,
    },
    redis_cpu_ms_per_msg_per_node: perNode,
    redis_commands_per_msg: round(commandsPerMessage, 2),
    redis_commands_per_msg_per_node: commandsPerNode,
    redis_cpu_us_per_command: round((redisMs * 1000) / commandsPerMessage, 2),
    redis_reads_per_msg: round(reads / messages, 2),
    redis_commands_per_read: round((commandsPerMessage * messages) / reads, 2),
    cores_busy: { measured_processes: measured, other_target_idle: otherIdle, rest_of_machine: Number.isNaN(machine) ? NaN : round(Math.max(0, machine - measured - otherIdle), 2), machine },
  };
}

/** The median of every figure over the rounds (the mean of the middle two for an even count). */
function medians(rounds: RoundResult[]) {
  const of = (pick: (r: RoundResult) => number, digits = 3) => round(median(rounds.map(pick)), digits);
  const keysOf = (pick: (r: RoundResult) => Record<string, number>) => Object.keys(pick(rounds[0]));
  return {
    msgs_per_sec: Math.round(median(rounds.map((r) => r.msgs_per_sec))),
    p50_ms: of((r) => r.p50_ms, 1),
    p99_ms: of((r) => r.p99_ms, 1),
    cpu_ms_per_msg: Object.fromEntries(keysOf((r) => r.cpu_ms_per_msg).map((k) => [k, of((r) => r.cpu_ms_per_msg[k])])),
    redis_cpu_ms_per_msg_per_node: Object.fromEntries(keysOf((r) => r.redis_cpu_ms_per_msg_per_node).map((k) => [k, of((r) => r.redis_cpu_ms_per_msg_per_node[k])])),
    redis_commands_per_msg: of((r) => r.redis_commands_per_msg, 2),
    redis_cpu_us_per_command: of((r) => r.redis_cpu_us_per_command, 2),
    redis_reads_per_msg: of((r) => r.redis_reads_per_msg, 2),
    redis_commands_per_read: of((r) => r.redis_commands_per_read, 2),
    cores_busy: Object.fromEntries(keysOf((r) => r.cores_busy).map((k) => [k, of((r) => r.cores_busy[k as keyof RoundResult['cores_busy']], 2)])),
  };
}

type Medians = ReturnType<typeof medians>;

/** Lines of a troupe process's log (it logs at warn) that are worth a look, distinct, at most LOG_LINES_KEPT. */
function logProblems(output: string) {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  const distinct = [...new Set(lines.map((line) => line.slice(0, LOG_LINE_CHARS)))];
  const clusterErrors = lines.filter((line) => /CROSSSLOT|MOVED|\bASK\b|CLUSTERDOWN|TRYAGAIN/.test(line));
  return { lines: lines.length, cluster_errors: clusterErrors.length, first: distinct.slice(0, LOG_LINES_KEPT) };
}

/** What the figures say, in words: where the cluster's CPU per message went, and whether the cores were the limit. */
function explain(single: Medians, cluster: Medians, ratio: number, masters: number, cpus: number): string {
  const s = single.cpu_ms_per_msg;
  const c = cluster.cpu_ms_per_msg;
  const parts = ['redis', 'gateway', 'worker', 'mongo', 'load_generator'];
  const deltas = parts.map((p) => ({ p, from: s[p], to: c[p], d: c[p] - s[p] })).sort((a, b) => Math.abs(b.d) - Math.abs(a.d));
  const fmt = (n: number) => n.toFixed(3);
  const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(3)}`;
  const nodes = Object.entries(cluster.redis_cpu_ms_per_msg_per_node)
    .map(([address, ms]) => `${address} ${fmt(ms)}`)
    .join(', ');
  const saturated = (m: Medians) => m.cores_busy.measured_processes + m.cores_busy.other_target_idle + m.cores_busy.rest_of_machine >= 0.8 * cpus;
  const sentences = [
    `This machine has ${cpus} cores, shared by every process of the run: the load generator, each target's gateway, worker and troupe mongo, and the Redis server(s); the ${masters} cluster nodes add processes and hops (slot routing in every client, a connection per node) but no cores.`,
    `One Redis: ${single.msgs_per_sec} msgs/s, p99 ${single.p99_ms} ms, ${fmt(s.total)} ms CPU per message (${single.cores_busy.measured_processes} cores busy); ` +
      `cluster of ${masters} masters: ${cluster.msgs_per_sec} msgs/s, p99 ${cluster.p99_ms} ms, ${fmt(c.total)} ms CPU per message (${cluster.cores_busy.measured_processes} cores busy); cluster/single ${ratio}.`,
    `CPU per message, single → cluster, largest change first: ${deltas.map(({ p, from, to, d }) => `${p} ${fmt(from)} → ${fmt(to)} (${signed(d)})`).join('; ')}; total ${signed(c.total - s.total)} ms.`,
    `The cluster's Redis CPU per node: ${nodes} ms per message (sum ${fmt(c.redis)} vs ${fmt(s.redis)} on one server); Redis ran ${cluster.redis_commands_per_msg} commands per message on the cluster vs ${single.redis_commands_per_msg} on one server, ` +
      `at ${cluster.redis_cpu_us_per_command} µs of Redis CPU per command vs ${single.redis_cpu_us_per_command}. ` +
      `Redis made ${cluster.redis_reads_per_msg} socket reads per message on the cluster vs ${single.redis_reads_per_msg} (${cluster.redis_commands_per_read} vs ${single.redis_commands_per_read} commands per read): ` +
      (cluster.redis_reads_per_msg > single.redis_reads_per_msg
        ? 'split over three servers the same work arrives in smaller batches, and each read, write and wake-up costs its system calls.'
        : 'the batches were no smaller on the cluster.'),
    `The gateway and worker (Node) spent ${signed(c.gateway + c.worker - s.gateway - s.worker)} ms per message between them: ioredis's cluster client routes every command by its slot over a connection per node.`,
  ];
  if (saturated(single) && saturated(cluster)) {
    sentences.push(
      `Both targets kept the cores busy (machine ${single.cores_busy.machine} and ${cluster.cores_busy.machine} of ${cpus} cores), so throughput is about the cores left to the target ÷ its CPU per message: ` +
        (c.total > s.total
          ? `the cluster's extra ${fmt(c.total - s.total)} ms per message is what it loses.`
          : `the cluster costs no more CPU per message here, so the difference is latency from the extra hops, not CPU.`),
    );
  } else {
    sentences.push(`The cores were not saturated (machine ${single.cores_busy.machine} and ${cluster.cores_busy.machine} of ${cpus} cores busy): the difference is latency per hop more than CPU.`);
  }
  const rest = Math.max(single.cores_busy.rest_of_machine, cluster.cores_busy.rest_of_machine);
  if (rest >= 0.1) sentences.push(`Other processes on the machine used up to ${rest} cores during the rounds: the figures carry that noise.`);
  sentences.push('A cluster pays off when its nodes have cores (machines) of their own; on one shared machine it can only add cost.');
  return sentences.join(' ');
}

type Described = { redis_errors_per_node: Record<string, Awaited<ReturnType<typeof redisErrors>>>; troupe_logs: Record<string, ReturnType<typeof logProblems>> };

/** What Redis and the troupe processes said went wrong, in words. */
function explainErrors(single: Described, cluster: Described): string {
  const errors = (target: Described) => {
    const counts: Record<string, number> = {};
    let connections = 0;
    for (const node of Object.values(target.redis_errors_per_node)) {
      connections += node.connections_received;
      for (const [name, value] of Object.entries(node.errorstats)) counts[name] = (counts[name] ?? 0) + Number(/count=(\d+)/.exec(value)?.[1] ?? 0);
    }
    const failing = Object.values(target.redis_errors_per_node).flatMap((node) => Object.keys(node.failing_commands));
    const logged = Object.values(target.troupe_logs).reduce((sum, log) => sum + log.cluster_errors, 0);
    return { counts, connections, failing, logged };
  };
  const s = errors(single);
  const c = errors(cluster);
  const clusterKinds = ['MOVED', 'ASK', 'CROSSSLOT', 'CLUSTERDOWN', 'TRYAGAIN'];
  const seen = clusterKinds.filter((kind) => (c.counts[kind] ?? 0) > 0).map((kind) => `${kind} ×${c.counts[kind]}`);
  // Two ERRs per ioredis connection at most; redis-cli's and the harness's own connections send no CLIENT SETINFO.
  const erOnly = (e: typeof s) => Object.keys(e.counts).every((kind) => kind === 'ERR') && (e.counts.ERR ?? 0) <= 2 * e.connections && e.failing.length === 0;
  return [
    seen.length > 0 ? `The cluster answered ${seen.join(', ')} (see cluster.redis_errors_per_node).` : `The cluster answered no ${clusterKinds.join('/')} errors.`,
    c.logged > 0 ? `The cluster troupe's logs have ${c.logged} lines naming a cluster error (see cluster.troupe_logs).` : 'No troupe process logged a cluster error.',
    erOnly(s) && erOnly(c)
      ? `The only errors, ERR (${s.counts.ERR ?? 0} on one server, ${c.counts.ERR ?? 0} over the cluster), are at most two per connection received (${s.connections} and ${c.connections}) and under no command: ioredis's CLIENT SETINFO on connect, which Redis before 7.2 does not know; no command failed. The cluster took ${round(c.connections / Math.max(1, s.connections), 1)}× the connections: every client connects to every node.`
      : `Other Redis errors: one server ${JSON.stringify(s.counts)} over ${s.connections} connections, cluster ${JSON.stringify(c.counts)} over ${c.connections}; failing commands: ${[...s.failing, ...c.failing].join(', ') || 'none'}.`,
  ].join(' ');
}

export async function runRuntimeClusterBench({ logger, messages = 10_000, concurrency = 32, actors = 16, rounds = 5, warmup = 1_000, masters = 3 }: RuntimeClusterBenchOptions) {
  const cleanup: Array<{ what: string; stop: () => Promise<void> }> = [];
  const clients: Redis[] = [];
  let cleaning: Promise<void> | undefined;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      for (const client of clients) client.disconnect();
      // Troupes first (their stop() deletes the run's keys while Redis still runs), then the servers.
      for (const { what, stop } of cleanup.reverse()) await stop().catch((err: unknown) => logger.warn({ err }, `stopping ${what} failed`));
    })());
  /** Registers what to stop; when a signal has started the clean-up meanwhile, stops it at once and gives up. */
  const track = async (what: string, stop: () => Promise<void>) => {
    if (cleaning) {
      await stop().catch((err: unknown) => logger.warn({ err }, `stopping ${what} failed`));
      throw new Error('interrupted');
    }
    cleanup.push({ what, stop });
  };
  // Ctrl-C or a SIGTERM: stop everything the bench started, then exit as the signal would have.
  const onSignal = (signal: NodeJS.Signals) => {
    logger.warn({ signal }, 'stopping every process the bench started');
    void cleanUp().finally(() => process.exit(128 + os.constants.signals[signal]));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    logger.info('starting one redis-server and a Redis Cluster of three masters');
    const single = await startRedisServer(['--save', '', '--appendonly', 'no']);
    await track('the single redis-server', single.stop);
    const cluster = await startRedisCluster({ masters });
    await track('the Redis Cluster', cluster.stop);

    logger.info({ single: single.url, cluster: cluster.url }, 'starting a troupe on each');
    const singleTroupe = await startBenchTroupe({ redisUrl: single.url, name: 'cluster-single', kindLimits: KIND_LIMITS });
    await track('the troupe on one Redis', () => singleTroupe.stop());
    const clusterTroupe = await startBenchTroupe({ redisUrl: cluster.url, name: 'cluster-cluster', kindLimits: KIND_LIMITS });
    await track('the troupe on the cluster', () => clusterTroupe.stop());

    const node = (address: string, pid: number | undefined): RedisNode => {
      // One node's own connection, for its INFO (a cluster client would ask any node).
      const client = new Redis(`redis://${address}`, { maxRetriesPerRequest: 1 });
      client.on('error', () => undefined);
      clients.push(client);
      return { address, pid, client };
    };
    const targets: Record<TargetName, Target> = {
      single: {
        name: 'single',
        troupe: singleTroupe,
        nodes: [node(single.address, single.pid)],
        shape: { base: singleTroupe.base, key: singleTroupe.key, concurrency, actor: actorsInTurn(`single-${process.pid}`, actors) },
      },
      cluster: {
        name: 'cluster',
        troupe: clusterTroupe,
        nodes: cluster.nodes.map(({ host, port }, i) => node(`${host}:${port}`, cluster.pids[i])),
        shape: { base: clusterTroupe.base, key: clusterTroupe.key, concurrency, actor: actorsInTurn(`cluster-${process.pid}`, actors) },
      },
    };

    for (const target of Object.values(targets)) {
      logger.info({ target: target.name, warmup }, 'warming up');
      allAnswered(await runLoad(target.shape, warmup), warmup);
    }
    const results: Record<TargetName, RoundResult[]> = { single: [], cluster: [] };
    for (let r = 1; r <= rounds; r++) {
      for (const [name, other] of [['single', 'cluster'], ['cluster', 'single']] as const) {
        logger.info({ round: r, of: rounds, target: name, messages, concurrency, actors }, 'round');
        const result = await timedRound(r, targets[name], targets[other], messages);
        logger.info({ round: r, target: name, msgs_per_sec: result.msgs_per_sec, p99_ms: result.p99_ms, cpu_ms_per_msg: result.cpu_ms_per_msg.total }, 'round done');
        results[name].push(result);
      }
    }
    const singleMedian = medians(results.single);
    const clusterMedian = medians(results.cluster);
    const ratio = round(clusterMedian.msgs_per_sec / singleMedian.msgs_per_sec, 2);

    const keysPerNode = async (target: Target) => Object.fromEntries(await Promise.all(target.nodes.map(async (n) => [n.address, await n.client.dbsize()] as const)));
    const errorsPerNode = async (target: Target) => Object.fromEntries(await Promise.all(target.nodes.map(async (n) => [n.address, await redisErrors(n)] as const)));
    const describe = async (target: Target, redis: string) => ({
      redis,
      nodes: target.nodes.map((n) => n.address),
      keys_per_node_after_rounds: await keysPerNode(target),
      redis_errors_per_node: await errorsPerNode(target),
      troupe_logs: { gateway: logProblems(target.troupe.gatewayOutput()), worker: logProblems(target.troupe.workerOutput()) },
    });
    const cpus = os.cpus().length;
    const redisVersion = infoFields(await targets.single.nodes[0].client.info('server')).redis_version;
    const described = {
      single: await describe(targets.single, 'one redis-server (--save "" --appendonly no), started by the bench'),
      cluster: await describe(targets.cluster, `Redis Cluster of ${masters} masters, no replicas (--save "" --appendonly no), started by the bench (test/support/redis-cluster.ts)`),
    };
    return {
      node: process.version,
      machine: { cpus },
      redis_server: redisVersion,
      load: {
        messages_per_round: messages,
        warmup_per_target: warmup,
        rounds,
        order: 'single, cluster, single, cluster, …',
        client_loops: concurrency,
        actors,
        answer: 'SSE',
        redis_partitions: Number(process.env.REDIS_PARTITIONS ?? DEFAULT_PARTITIONS),
      },
      processes_per_target: { gateways: 1, workers: 1, mongo: 'troupe mongo (embedded, memory)', note: 'both targets run throughout; the one not under load sits idle (its CPU is in cores_busy.other_target_idle)' },
      single: {
        ...described.single,
        rounds: results.single,
        median: singleMedian,
      },
      cluster: {
        ...described.cluster,
        rounds: results.cluster,
        median: clusterMedian,
      },
      cluster_vs_single: {
        msgs_per_sec_ratio: ratio,
        p50_ms: { single: singleMedian.p50_ms, cluster: clusterMedian.p50_ms },
        p99_ms: { single: singleMedian.p99_ms, cluster: clusterMedian.p99_ms },
        cpu_ms_per_msg_delta: Object.fromEntries(Object.keys(clusterMedian.cpu_ms_per_msg).map((k) => [k, round(clusterMedian.cpu_ms_per_msg[k] - singleMedian.cpu_ms_per_msg[k])])),
      },
      explanation: `${explain(singleMedian, clusterMedian, ratio, masters, cpus)} ${explainErrors(described.single, described.cluster)}`,
    };
  } finally {
    await cleanUp();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
