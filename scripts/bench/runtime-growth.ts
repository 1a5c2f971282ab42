/**
 * `bench:runtime --growth`: does troupe stay as fast and as lean with 100,000 actors as with 100?
 * One gateway and one worker process (as `bench:runtime` starts them), request/reply load spread over
 * N distinct echo actors for N = 1, 100, 10,000, 100,000, and per step:
 *
 * - msgs/s and latency with every actor live (each has state in MongoDB before the timed part; the
 *   first touch of each actor is measured on its own), as medians of timed rounds that interleave the
 *   steps: run one after another, the steps would also measure how this shared machine's speed drifts
 *   over the quarter of an hour the bench takes;
 * - Redis commands per message, by command: every call Redis ran (`INFO commandstats`, script-internal
 *   ones included), and from a short MONITOR sample which of them the troupe processes sent themselves
 *   (round trips) and which their scripts ran;
 * - MongoDB operations per message (the embedded server's serverStatus counters);
 *
 * then, after all of them, the worker's (and gateway's) memory per idle actor, the per-actor caches
 * those processes keep with their bounds, and the keys left in Redis with their expiries. Why: a runtime
 * whose cost grows with the number of actors it has ever seen fails slowly in production, where nobody
 * runs a benchmark; these figures say whether it does.
 */
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../../logging/logger.js';
import { loadConfig } from '../config.js';
import { RESIDENT_ENTRY_BYTES, type ResidentBounds } from '../../actors/runtime/residents.js';
import { DEFAULT_ACTOR_CONCURRENCY, DRAIN_LINGER_MS, DRAINER_TTL_MS, HEARTBEAT_MS } from '../../actors/runtime/settings.js';
import { APPLIED_TTL_SECONDS } from '../../actors/runtime/effects.js';
import { UserLimits } from '../../gateway/limits.js';
import { RedisNames } from '../../queues/keys.js';
import { LivenessRegistry } from '../../queues/liveness-registry.js';
import { Mailboxes } from '../../queues/mailbox.js';
import { Takeover } from '../../queues/takeover.js';
import { REPLY_STREAM_TTL_SECONDS } from '../../queues/reply-stream.js';
import { NOTIFIED_FOLLOW_WINDOW_MS } from '../../actors/runtime/client.js';
import { POSTED_KEPT_MS } from '../../gateway/reset-aware-client.js';
import { UNCLAIMED_MAX, UNCLAIMED_MS } from '../../queues/reply-notifications.js';
import { inspectorUrl, memoryAfterGc } from './inspector-session.js';
import { MongoWorkMeter, type MongoWork } from './mongo-work.js';
import { CpuMeter, localRedisPid } from './process-cpu.js';
import { runLoad, type LoadResult } from './request-load.js';
import { benchPrefix, createBenchUser, deleteBenchKeys, freePort, median, percentile, troupe, waitUntilReady, type BenchProcess } from './troupe-processes.js';

export interface RuntimeGrowthBenchOptions {
  redisUrl: string;
  logger: Logger;
  /** Distinct live actors per step, in order (default 1, 100, 10,000, 100,000). */
  actorCounts?: number[];
  /** Timed messages per round of a step at least; a round sends max(this, actors) so every actor gets one. */
  messages?: number;
  /** Timed rounds of every step, interleaved (default 3); a step's figures are the medians of its rounds. */
  rounds?: number;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Untimed messages first (over `concurrency` actors of their own), so the code is warm. */
  warmup?: number;
  /** Messages per step sent under MONITOR, to tell the commands troupe sends from those its scripts run. */
  monitorMessages?: number;
  /**
   * Start the worker and gateway with `--inspect` (loopback, a free port) so their memory is read
   * right after a forced GC (default true); otherwise it is the least seen over `memorySampleMs`.
   */
  forceGc?: boolean;
  /** Without forceGc: how long a quiet process's memory is sampled (its minimum is kept). */
  memorySampleMs?: number;
  /** Idle MONITOR window after each step, for the commands the processes send on timers (default two worker heartbeats). */
  backgroundMs?: number;
}

const ECHO = 'echo';
/** Steps whose figures must stay within 20% of each other: from this many actors up. */
const COMPARED_FROM_ACTORS = 100;
const PROGRESS_EVERY_MS = 10_000;
const KEY_SCAN_BATCH = 1_000;
const MEMORY_USAGE_SAMPLES = 20;

const round = (n: number, digits = 3) => Number(n.toFixed(digits));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------
// Load

interface LoadTarget {
  base: string;
  key: string;
  concurrency: number;
  logger: Logger;
}

interface LoadRun extends LoadResult {
  messages: number;
}

/** `total` messages, message i to actor `actorOf(i)` (request-load.ts), latencies sorted ascending. */
async function runStepLoad(target: LoadTarget, total: number, actorOf: (i: number) => string, label: string): Promise<LoadRun> {
  const { base, key, concurrency, logger } = target;
  const run = await runLoad({ base, key, concurrency, actor: actorOf }, total, { logger, label, everyMs: PROGRESS_EVERY_MS });
  run.latencies.sort((a, b) => a - b);
  return { messages: total, ...run };
}

function loadFigures(run: LoadRun) {
  const ms = (p: number) => round(percentile(run.latencies, p) ?? 0, 1);
  return {
    messages: run.messages,
    seconds: round(run.seconds),
    msgs_per_sec: Math.round(run.latencies.length / run.seconds),
    p50_ms: ms(50),
    p99_ms: ms(99),
    max_ms: round(run.latencies.at(-1) ?? 0, 1),
    errors: run.errors,
    ...(run.firstError ? { first_error: run.firstError } : {}),
  };
}

function mongoPerMessage(work: MongoWork, messages: number) {
  return {
    operations_per_message: Object.fromEntries(Object.entries(work.operations).map(([type, n]) => [type, round(n / messages)])),
    operations_per_message_total: round(work.operations_total / messages),
    docs_examined_per_message: round(work.docs_examined / messages),
    keys_examined_per_message: round(work.keys_examined / messages),
  };
}

// ---------------------------------------------------------------------------------------------------
// Redis: commandstats (everything Redis ran) and MONITOR (who sent what)

/** `calls` per command from `INFO commandstats` (script-internal calls counted under their own names). */
async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (match) calls.set(match[1], Number(match[2]));
  }
  return calls;
}

/** Calls per message by command, most first; commands under 0.001 per message (connection set-up, this bench's reads) are left out of the list, not the total. */
function perMessage(counts: Map<string, number>, messages: number) {
  const sorted = [...counts].sort((a, b) => b[1] - a[1]);
  const total = sorted.reduce((sum, [, n]) => sum + n, 0);
  const listed = sorted.map(([command, n]) => [command, round(n / messages)] as const).filter(([, n]) => n > 0);
  return { by_command: Object.fromEntries(listed), total: round(total / messages) };
}

/** commandstats calls made while `run` ran, less this bench's own INFO reads. */
async function commandstatsDuring<T>(redis: Redis, run: () => Promise<T>): Promise<{ value: T; calls: Map<string, number> }> {
  const before = await commandCalls(redis);
  const value = await run();
  const after = await commandCalls(redis);
  const calls = new Map<string, number>();
  for (const [command, n] of after) {
    const delta = n - (before.get(command) ?? 0) - (command === 'info' ? 1 : 0);
    if (delta > 0) calls.set(command, delta);
  }
  return { value, calls };
}

/** Inodes of the sockets a process holds open (Linux /proc); empty when it cannot be read. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (socket) inodes.add(socket[1]);
    } catch {
      // Closed between the listing and the read.
    }
  }
  return inodes;
}

/**
 * Local ports of the TCP connections the given processes hold to Redis (Linux /proc): in MONITOR a
 * command's source is its client's address, so these ports tell troupe's commands from anybody else's
 * on a shared Redis (and from this bench's own meter connections).
 */
function redisClientPorts(pids: number[], redisPort: number): Set<string> {
  const ports = new Set<string>();
  const port = (address: string) => parseInt(address.slice(address.lastIndexOf(':') + 1), 16);
  for (const pid of pids) {
    const inodes = socketInodes(pid);
    for (const table of ['tcp', 'tcp6']) {
      if (inodes.size === 0 || !existsSync(`/proc/${pid}/net/${table}`)) continue;
      for (const line of readFileSync(`/proc/${pid}/net/${table}`, 'utf8').split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/);
        if (fields.length >= 10 && inodes.has(fields[9]) && port(fields[2]) === redisPort) ports.add(String(port(fields[1])));
      }
    }
  }
  return ports;
}

interface MonitorLine {
  /** The client's port, or 'lua' for a command a script ran. */
  source: string;
  command: string;
  /** The command's first argument (for EVALSHA: the script's SHA1). */
  first?: string;
}

const SCRIPT_COMMANDS = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);

interface MonitorTally {
  /** Commands troupe's connections sent (scripts counted once, as their EVALSHA). */
  clientSent: Map<string, number>;
  /** Commands troupe's scripts ran inside Redis. */
  scriptInternal: Map<string, number>;
  /** Troupe's EVALSHAs by script name (see scriptNames). */
  scripts: Map<string, number>;
  /** Client commands with each MULTI…EXEC counted once: ioredis writes a transaction in one go. */
  roundTrips: number;
  seconds: number;
}

/**
 * Sorts MONITOR lines: a client line is troupe's when its port is one of troupe's connections; a
 * script's lines follow its EVALSHA line directly (scripts run atomically), so they belong to whoever
 * sent that. Inside MULTI…EXEC (shown together at EXEC) the block is one round trip.
 */
function tallyMonitor(lines: MonitorLine[], ours: Set<string>, scriptNames: Map<string, string>, seconds: number): MonitorTally {
  const clientSent = new Map<string, number>();
  const scriptInternal = new Map<string, number>();
  const scripts = new Map<string, number>();
  const inTransaction = new Set<string>();
  const add = (map: Map<string, number>, command: string) => map.set(command, (map.get(command) ?? 0) + 1);
  let roundTrips = 0;
  let scriptIsOurs = false;
  for (const { source, command, first } of lines) {
    if (source === 'lua') {
      if (scriptIsOurs) add(scriptInternal, command);
      continue;
    }
    const mine = ours.has(source);
    scriptIsOurs = mine && SCRIPT_COMMANDS.has(command);
    if (!mine) continue;
    add(clientSent, command);
    if (command === 'evalsha' || command === 'evalsha_ro') add(scripts, scriptNames.get(first ?? '') ?? `sha ${first?.slice(0, 12)}`);
    if (command === 'multi') {
      inTransaction.add(source);
      roundTrips += 1;
    } else if (inTransaction.has(source)) {
      if (command === 'exec' || command === 'discard') inTransaction.delete(source);
    } else {
      roundTrips += 1;
    }
  }
  return { clientSent, scriptInternal, scripts, roundTrips, seconds };
}

/**
 * A MONITOR connection over a plain socket, collecting the lines until `close`. Not ioredis: it takes
 * a MONITOR line that arrives while it disconnects for a command's reply and throws from its socket
 * handler, which no error listener catches.
 */
async function openMonitor(redisUrl: string): Promise<{ lines: MonitorLine[]; close: () => void }> {
  const url = new URL(redisUrl);
  const options = { host: url.hostname || '127.0.0.1', port: Number(url.port || 6379) };
  const socket = url.protocol === 'rediss:' ? tlsConnect({ ...options, servername: options.host }) : netConnect(options);
  await once(socket, url.protocol === 'rediss:' ? 'secureConnect' : 'connect');
  const lines: MonitorLine[] = [];
  let pending = '';
  let started: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (started = resolve));
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    const parts = (pending + chunk).split('\r\n');
    pending = parts.pop() ?? '';
    for (const part of parts) {
      if (part === '+OK') started();
      else if (part.startsWith('-')) socket.destroy(new Error(`MONITOR refused: ${part.slice(1)}`));
      const match = /^\+[\d.]+ \[\d+ (\S+)\] "([^"]*)"(?: "([^"]*)")?/.exec(part);
      if (match) lines.push({ source: match[1] === 'lua' ? 'lua' : match[1].slice(match[1].lastIndexOf(':') + 1), command: match[2].toLowerCase(), first: match[3] });
    }
  });
  const failed = once(socket, 'error').then(([error]) => Promise.reject(error as Error));
  const auth = url.password ? ['AUTH', ...(url.username ? [decodeURIComponent(url.username)] : []), decodeURIComponent(url.password)] : [];
  const command = (args: string[]) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
  socket.write((auth.length ? command(auth) : '') + command(['MONITOR']));
  await Promise.race([ready, failed]);
  failed.catch(() => undefined);
  return { lines, close: () => socket.destroy() };
}

/**
 * MONITOR on a connection of its own while `run` runs. MONITOR slows Redis down, so nothing is timed
 * under it; troupe's connections are looked up before and after (BullMQ opens some lazily).
 */
async function monitorDuring<T>(redisUrl: string, troupePorts: () => Set<string>, scriptNames: Map<string, string>, run: () => Promise<T>): Promise<{ value: T; tally: MonitorTally }> {
  const portsBefore = troupePorts();
  const monitor = await openMonitor(redisUrl);
  const started = performance.now();
  try {
    const value = await run();
    const seconds = (performance.now() - started) / 1000;
    // Lines still on their way to the monitor connection.
    await sleep(200);
    const ours = new Set([...portsBefore, ...troupePorts()]);
    return { value, tally: tallyMonitor(monitor.lines, ours, scriptNames, seconds) };
  } finally {
    monitor.close();
  }
}

/**
 * Script names by SHA1, as EVALSHA names them: troupe's own (defined on a client that never connects,
 * by the classes that use them) and BullMQ's (defined on the connection a queue is given, as `name:version`).
 */
async function scriptNames(queue: Queue, queueConnection: Redis): Promise<Map<string, string>> {
  await queue.waitUntilReady();
  const catalogue = new Redis({ lazyConnect: true });
  const names = new RedisNames();
  new Mailboxes(catalogue, catalogue, names);
  new UserLimits(catalogue);
  new Takeover(catalogue, catalogue);
  new LivenessRegistry(catalogue, names);
  const defined = (client: unknown) => Object.entries((client as { scriptsSet?: Record<string, { sha: string }> }).scriptsSet ?? {});
  const out = new Map<string, string>();
  for (const [name, script] of [...defined(catalogue), ...defined(queueConnection)]) out.set(script.sha, name.replace(/:[\d.]+$/, ''));
  catalogue.disconnect();
  return out;
}

/** Commands per second troupe sends (and runs in scripts) with no load: timers, heartbeats, idle workers' blocking reads. */
function backgroundRates(tally: MonitorTally) {
  const perSecond = (map: Map<string, number>) => Object.fromEntries([...map].sort((a, b) => b[1] - a[1]).map(([command, n]) => [command, round(n / tally.seconds, 2)]));
  return {
    seconds: round(tally.seconds, 1),
    round_trips_per_second: round(tally.roundTrips / tally.seconds, 2),
    client_sent_per_second: perSecond(tally.clientSent),
    evalsha_by_script_per_second: perSecond(tally.scripts),
    script_internal_per_second: perSecond(tally.scriptInternal),
  };
}

function monitorFigures(tally: MonitorTally, messages: number, background: MonitorTally) {
  // The timers' share of the sample (liveness renewals, takeover checks…) is not the messages' doing.
  const backgroundTrips = (background.roundTrips / background.seconds) * tally.seconds;
  return {
    messages,
    seconds: round(tally.seconds, 2),
    client_sent_per_message: perMessage(tally.clientSent, messages),
    evalsha_by_script_per_message: perMessage(tally.scripts, messages).by_command,
    script_internal_per_message: perMessage(tally.scriptInternal, messages),
    round_trips_per_message: round(tally.roundTrips / messages),
    round_trips_per_message_net_of_background: round(Math.max(0, tally.roundTrips - backgroundTrips) / messages),
  };
}

// ---------------------------------------------------------------------------------------------------
// Quiet, memory, caches

/** Waits until no drain of an echo actor runs or waits (lingering ones included), twice in a row past the linger. */
async function waitQuiet(queue: Queue, logger: Logger): Promise<void> {
  const deadline = Date.now() + 120_000;
  let quietChecks = 0;
  while (quietChecks < 2) {
    const counts = await queue.getJobCounts('active', 'wait', 'prioritized', 'delayed');
    quietChecks = Object.values(counts).every((n) => n === 0) ? quietChecks + 1 : 0;
    if (Date.now() > deadline) {
      logger.warn({ counts }, 'the echo queue did not go quiet within 2 minutes; measuring anyway');
      return;
    }
    await sleep(DRAIN_LINGER_MS * 4);
  }
}

/** Resident set of a process (Linux /proc), bytes. */
function residentBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** V8 heap in use, from a process's Prometheus endpoint (prom-client's default metrics, prefixed troupe_). */
async function heapUsedBytes(metricsUrl: string): Promise<number | undefined> {
  const response = await fetch(metricsUrl).catch(() => undefined);
  if (!response?.ok) return undefined;
  const match = /^troupe_nodejs_heap_size_used_bytes\s+([\d.e+]+)/m.exec(await response.text());
  return match ? Number(match[1]) : undefined;
}

interface MemoryAtRest {
  rss_bytes: number | null;
  heap_used_bytes: number | null;
  /** `forced GC`, or `least of N samples` when no inspector was at hand. */
  read: string;
}

/** Where a troupe process's memory is read: its pid, its metrics endpoint, and its inspector when started with one. */
interface MemoryProbe {
  pid: number;
  metricsUrl: string;
  inspector: string | undefined;
}

const FORCED_GC_READS = 3;

/**
 * A quiet process's memory. With an inspector: right after forced full GCs, the least of a few reads a
 * second apart (timers allocate a little between them). Without: the least RSS and heap seen over
 * `windowMs`, which may still count garbage.
 */
async function memoryAtRest(probe: MemoryProbe, windowMs: number): Promise<MemoryAtRest> {
  let rss = Infinity;
  let heap = Infinity;
  let samples = 0;
  const end = Date.now() + windowMs;
  while (probe.inspector ? samples < FORCED_GC_READS : Date.now() < end) {
    if (probe.inspector) {
      const usage = await memoryAfterGc(probe.inspector);
      heap = Math.min(heap, usage.heapUsed);
      rss = Math.min(rss, usage.rss);
    } else {
      rss = Math.min(rss, residentBytes(probe.pid) ?? Infinity);
      heap = Math.min(heap, (await heapUsedBytes(probe.metricsUrl)) ?? Infinity);
    }
    samples += 1;
    await sleep(probe.inspector ? 1_000 : 500);
  }
  const known = (n: number) => (Number.isFinite(n) ? n : null);
  return { rss_bytes: known(rss), heap_used_bytes: known(heap), read: probe.inspector ? `least of ${samples} reads, each after a forced full GC` : `least of ${samples} samples, no GC forced` };
}

function perIdleActor(before: MemoryAtRest, after: MemoryAtRest, actors: number) {
  const per = (a: number | null, b: number | null) => (a === null || b === null ? null : round((b - a) / actors, 1));
  return { before, after, rss_bytes_per_idle_actor: per(before.rss_bytes, after.rss_bytes), heap_bytes_per_idle_actor: per(before.heap_used_bytes, after.heap_used_bytes) };
}

/**
 * The worker's memory once its resident actors outlived RESIDENT_IDLE_SECONDS (and the sweep that drops
 * them ran): what idle actors cost for good. Undefined when nothing is dropped for idleness.
 */
async function memoryAfterIdleTime(probe: MemoryProbe, residents: ResidentBounds, quietSince: number, windowMs: number, logger: Logger) {
  if (residents.memoryBytes === 0 || residents.idleMs === 0) return undefined;
  // The sweep runs every quarter of the idle time; a little more for the last drain's commit.
  const waitMs = Math.max(0, quietSince + residents.idleMs + Math.max(1_000, residents.idleMs / 4) + 2_000 - Date.now());
  logger.info({ seconds: Math.round(waitMs / 1000), RESIDENT_IDLE_SECONDS: residents.idleMs / 1000 }, 'waiting for the idle resident actors to be dropped (set RESIDENT_IDLE_SECONDS to wait less)');
  await sleep(waitMs);
  return { waitedSeconds: round((Date.now() - quietSince) / 1000, 1), memory: await memoryAtRest(probe, windowMs) };
}

/** Every map the worker and gateway keep per actor or per message, and what bounds it. */
function perActorCaches(residents: ResidentBounds) {
  return [
    {
      process: 'worker',
      cache: 'ResidentActors.residents (actors/runtime/residents.ts)',
      holds: 'fence, state and owner of recently committed actors',
      bound: residents.memoryBytes,
      by: `estimated bytes (RESIDENT_MEMORY: each state's BSON size + ${RESIDENT_ENTRY_BYTES}), least recently committed dropped; and idleness (RESIDENT_IDLE_SECONDS = ${residents.idleMs / 1000})`,
    },
    { process: 'worker', cache: 'ResidentActors.draining', holds: 'actors with a drain running here', bound: DEFAULT_ACTOR_CONCURRENCY, by: 'drain slots per kind (entry removed when the drain ends)' },
    { process: 'worker', cache: 'DrainWakeups.waiting (queues/drain-wakeups.ts)', holds: 'lingering drains', bound: DEFAULT_ACTOR_CONCURRENCY, by: `drain slots per kind, each for at most DRAIN_LINGER_MS = ${DRAIN_LINGER_MS} ms` },
    { process: 'worker', cache: 'DrainWakeups.early (queues/drain-wakeups.ts)', holds: 'wake-ups heard while no drain of the actor waited', bound: 10_000, by: 'count, and each kept 1 s' },
    { process: 'worker', cache: 'TurnCancels.running (queues/turn-cancels.ts)', holds: 'running turns of kinds with cancel routes', bound: DEFAULT_ACTOR_CONCURRENCY, by: 'drain slots per kind' },
    { process: 'gateway', cache: 'ActorClient.notified', holds: 'reply streams posted and not yet followed', bound: null, by: `time: ${NOTIFIED_FOLLOW_WINDOW_MS} ms (NOTIFIED_FOLLOW_WINDOW_MS)` },
    { process: 'gateway', cache: 'ResetAwareActorClient.posted (gateway/reset-aware-client.ts)', holds: 'messages posted, for a broker reset', bound: null, by: `time: ${POSTED_KEPT_MS} ms (POSTED_KEPT_MS), pruned on the next send` },
    {
      process: 'gateway',
      cache: 'ReplyNotifications.unclaimed (queues/reply-notifications.ts)',
      holds: 'reply notifications heard before their follower',
      bound: UNCLAIMED_MAX,
      by: `count and time: ${UNCLAIMED_MS} ms (UNCLAIMED_MS)`,
    },
  ];
}

// ---------------------------------------------------------------------------------------------------
// Keys left behind

interface KeyKind {
  keys: number;
  without_ttl: number;
  max_ttl_seconds: number | null;
  /** MEMORY USAGE, averaged over a few keys of the kind. */
  bytes_per_key: number;
  /** bytes_per_key times their number. */
  estimated_bytes: number;
}

/** `<prefix>:mailbox:{<prefix>:p3}:echo:x` → `mailbox`; `bull:{<prefix>:p3}:<prefix>-actor-echo-p3:de:x` → `bullmq de` (every queue's together); a job hash's numeric id → `bullmq job`. */
function keyKind(key: string, prefix: string): string {
  if (key.startsWith(`${prefix}:`)) return key.slice(prefix.length + 1).split(':')[0];
  // bull:{tag}:queue:part…
  const part = key.replace(/^bull:\{[^}]*\}:[^:]+:/, '').split(':')[0] ?? '';
  return `bullmq ${/^\d+$/.test(part) ? 'job' : part}`;
}

/** Every key of the run by kind, with how many have no expiry (PTTL -1) and the longest expiry left. */
async function keysLeft(redis: Redis, prefix: string): Promise<Record<string, KeyKind>> {
  const kinds = new Map<string, KeyKind & { sampled: number[] }>();
  for (const pattern of [`${prefix}:*`, new RedisNames(prefix).queueKeysPattern()]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', KEY_SCAN_BATCH);
      cursor = next;
      const ttls = keys.length ? ((await redis.pipeline(keys.map((k) => ['pttl', k])).exec()) ?? []) : [];
      for (const [i, key] of keys.entries()) {
        const kind = keyKind(key, prefix);
        let entry = kinds.get(kind);
        if (!entry) kinds.set(kind, (entry = { keys: 0, without_ttl: 0, max_ttl_seconds: null, bytes_per_key: 0, estimated_bytes: 0, sampled: [] }));
        entry.keys += 1;
        const ttl = Number(ttls[i]?.[1] ?? -2);
        if (ttl === -1) entry.without_ttl += 1;
        else if (ttl >= 0) entry.max_ttl_seconds = Math.max(entry.max_ttl_seconds ?? 0, Math.round(ttl / 1000));
        if (entry.sampled.length < MEMORY_USAGE_SAMPLES) entry.sampled.push(Number((await redis.memory('USAGE', key)) ?? 0));
      }
    } while (cursor !== '0');
  }
  const out: Record<string, KeyKind> = {};
  for (const [kind, { sampled, ...entry }] of [...kinds].sort((a, b) => b[1].keys - a[1].keys)) {
    const average = sampled.reduce((sum, n) => sum + n, 0) / Math.max(1, sampled.length);
    out[kind] = { ...entry, bytes_per_key: Math.round(average), estimated_bytes: Math.round(average * entry.keys) };
  }
  return out;
}

/** Kinds of key made per message or per actor: each must expire (a mailbox must not be left at all). */
const MUST_EXPIRE = ['mailbox', 'drainer', 'replies', 'reply-owner', 'applied', 'owner', 'outbox-done', 'outage-notices', 'bullmq de', 'bullmq job'];

// ---------------------------------------------------------------------------------------------------
// The run

interface Troupe {
  base: string;
  key: string;
  mongoUri: string;
  prefix: string;
  mongo: BenchProcess;
  worker: BenchProcess;
  gateway: BenchProcess;
  workerMetricsUrl: string;
  /** Ends the processes still running, the gateway first. */
  stop(): Promise<void>;
}

async function stopProcess(p: BenchProcess) {
  if (p.child.exitCode === null && p.child.signalCode === null) {
    p.child.kill('SIGTERM');
    await once(p.child, 'exit');
  }
}

/**
 * `troupe mongo`, a bench user, `troupe worker` (with a metrics port) and `troupe gateway`, on a Redis
 * prefix of the run's own; `inspect`: the worker and gateway listen for an inspector on loopback.
 */
async function startTroupe(redisUrl: string, inspect: boolean): Promise<Troupe> {
  const [mongoPort, httpPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const prefix = benchPrefix('growth');
  const mongoUri = `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`;
  const env = {
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    MONGODB_URI: mongoUri,
    MONGODB_DB: `bench_growth_${process.pid}`,
    PORT: String(httpPort),
    HOST: '127.0.0.1',
    KIND_LIMITS: `${ECHO}:rate=100000000/60,concurrent=100000`,
  };
  const nodeArgs = inspect ? ['--inspect=127.0.0.1:0'] : [];
  const started: BenchProcess[] = [];
  const stop = async () => {
    for (const p of [...started].reverse()) await stopProcess(p);
  };
  try {
    const mongo = troupe(['mongo', '--port', String(mongoPort)], env);
    started.push(mongo);
    await mongo.waitFor('listening');
    const key = await createBenchUser(env);
    // Logs at warn: the figures are about the pipeline, not log I/O. Every kind gets a worker (readiness needs one).
    const worker = troupe(['worker'], { ...env, METRICS_PORT: String(metricsPort) }, { logLevel: 'warn', nodeArgs });
    started.push(worker);
    const gateway = troupe(['gateway'], env, { logLevel: 'warn', nodeArgs });
    started.push(gateway);
    const base = `http://127.0.0.1:${httpPort}`;
    await waitUntilReady(`${base}/readyz`, [worker, gateway]);
    return { base, key, mongoUri, prefix, mongo, worker, gateway, workerMetricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface Meters {
  redis: Redis;
  redisUrl: string;
  mongo: MongoWorkMeter;
  queue: Queue;
  cpu: () => CpuMeter;
  troupePorts: () => Set<string>;
  scriptNames: Map<string, string>;
  backgroundMs: number;
}

/** What the processes send with no load, once nothing runs: timers, idle workers' reads, the heartbeat's orphan-mailbox SCAN. */
async function idleBackground(target: LoadTarget, meters: Meters): Promise<MonitorTally> {
  await waitQuiet(meters.queue, target.logger);
  target.logger.info({ ms: meters.backgroundMs }, 'MONITOR with no load');
  return (await monitorDuring(meters.redisUrl, meters.troupePorts, meters.scriptNames, () => sleep(meters.backgroundMs))).tally;
}

/** A step's actors: `n<actors>-<i mod actors>`, so each step has its own. */
const stepActor = (actors: number) => (i: number) => `n${actors}-${i % actors}`;

/** Timed messages per round of a step: at least `messages`, and one for each of its actors. */
const roundMessages = (actors: number, messages: number) => Math.max(messages, actors);

/** First touch of `actors` new actors: each gets its state in MongoDB before any round is timed. */
async function touchStep(target: LoadTarget, meters: Meters, actors: number) {
  target.logger.info({ actors }, 'first touch of every actor');
  const touch = await meters.mongo.measure(() => runStepLoad(target, actors, stepActor(actors), `touch ${actors}`));
  return { ...loadFigures(touch.value), mongo: mongoPerMessage(touch.work, actors) };
}

type Touch = Awaited<ReturnType<typeof touchStep>>;

interface TimedRound {
  figures: ReturnType<typeof loadFigures> & { cpu_ms_per_msg: Record<string, number> };
  calls: Map<string, number>;
  work: MongoWork;
}

/** One timed round of a step: the next `roundMessages` messages of its rotation over its actors. */
async function timedRound(target: LoadTarget, meters: Meters, actors: number, messages: number, index: number): Promise<TimedRound> {
  const count = roundMessages(actors, messages);
  const actorOf = stepActor(actors);
  target.logger.info({ actors, messages: count, round: index + 1 }, 'timed round over live actors');
  const cpu = meters.cpu();
  cpu.begin();
  const { value: timed, calls } = await commandstatsDuring(meters.redis, () => meters.mongo.measure(() => runStepLoad(target, count, (i) => actorOf(index * count + i), `timed ${actors}`)));
  const figures = { ...loadFigures(timed.value), cpu_ms_per_msg: cpu.perUnit(count) };
  target.logger.info({ actors, round: index + 1, msgs_per_sec: figures.msgs_per_sec, p99_ms: figures.p99_ms }, 'round done');
  return { figures, calls, work: timed.work };
}

/** The steps in round `r`'s order: rotated by r, so no step always runs first or right after the biggest. */
const roundOrder = (actorCounts: number[], r: number) => actorCounts.map((_, i) => actorCounts[(i + r) % actorCounts.length]);

function sumCalls(rounds: TimedRound[]): Map<string, number> {
  const total = new Map<string, number>();
  for (const { calls } of rounds) for (const [command, n] of calls) total.set(command, (total.get(command) ?? 0) + n);
  return total;
}

function sumWork(rounds: TimedRound[]): MongoWork {
  const operations: Record<string, number> = {};
  for (const { work } of rounds) for (const [type, n] of Object.entries(work.operations)) operations[type] = (operations[type] ?? 0) + n;
  const sum = (pick: (w: MongoWork) => number) => rounds.reduce((total, r) => total + pick(r.work), 0);
  return { operations, operations_total: sum((w) => w.operations_total), docs_examined: sum((w) => w.docs_examined), keys_examined: sum((w) => w.keys_examined) };
}

/**
 * A step's figures once its rounds ran: the medians of msgs/s, p50, p99 and CPU over its rounds (each
 * round listed), Redis commands and MongoDB operations over all of them; then a MONITOR sample of the
 * same shape (untimed), and MONITOR with no load, to net the sample's timer traffic out (measured per
 * step: the heartbeat's SCAN grows with the keyspace).
 */
async function finishStep(target: LoadTarget, meters: Meters, actors: number, touch: Touch, rounds: TimedRound[], monitorMessages: number) {
  const { logger } = target;
  const messages = rounds.reduce((sum, r) => sum + r.figures.messages, 0);
  logger.info({ actors, messages: monitorMessages }, 'MONITOR sample');
  // Continues the same rotation over the actors, so the sample has the timed rounds' shape.
  const actorOf = stepActor(actors);
  const sample = await monitorDuring(meters.redisUrl, meters.troupePorts, meters.scriptNames, () => runStepLoad(target, monitorMessages, (i) => actorOf(messages + i), `monitor ${actors}`));
  const background = await idleBackground(target, meters);
  const monitored = monitorFigures(sample.tally, monitorMessages, background);
  const commandstats = perMessage(sumCalls(rounds), messages);
  const of = (pick: (f: TimedRound['figures']) => number) => median(rounds.map((r) => pick(r.figures)));
  const processes = Object.keys(rounds[0].figures.cpu_ms_per_msg);
  return {
    actors,
    first_touch: touch,
    live: {
      messages,
      rounds: rounds.map((r) => r.figures),
      msgs_per_sec: Math.round(of((f) => f.msgs_per_sec)),
      p50_ms: round(of((f) => f.p50_ms), 1),
      p99_ms: round(of((f) => f.p99_ms), 1),
      errors: rounds.reduce((sum, r) => sum + r.figures.errors, 0),
      cpu_ms_per_msg: Object.fromEntries(processes.map((name) => [name, round(of((f) => f.cpu_ms_per_msg[name] ?? 0))])),
      mongo: mongoPerMessage(sumWork(rounds), messages),
      redis_commandstats_per_message: {
        ...commandstats,
        // Well above zero: someone else used this Redis meanwhile (or the sample's shape differed).
        minus_monitor_sample_total: round(commandstats.total - monitored.client_sent_per_message.total - monitored.script_internal_per_message.total),
      },
      redis_monitor_sample: { ...monitored, errors: sample.value.errors },
    },
    // The whole server's keys (this run's reply streams and markers among them): what a SCAN of the keyspace walks.
    redis_keys_after: await meters.redis.dbsize(),
    redis_background_after: backgroundRates(background),
  };
}

type Step = Awaited<ReturnType<typeof finishStep>>;

/** Heap bytes per idle actor counted as "about 0": what a map entry costs, so a per-actor leak shows. */
const IDLE_ACTOR_HEAP_ABOUT_0 = 32;

/** min/max of a figure over the steps with at least COMPARED_FROM_ACTORS actors (1 when fewer than two such steps). */
function spread(steps: Step[], pick: (s: Step) => number): number {
  const values = steps.filter((s) => s.actors >= COMPARED_FROM_ACTORS).map(pick);
  return values.length < 2 ? 1 : round(Math.min(...values) / Math.max(...values));
}

function memoryProbes(troupeProcesses: Troupe, inspect: boolean): { worker: MemoryProbe; gateway: MemoryProbe } {
  const { worker, gateway } = troupeProcesses;
  const inspector = (p: BenchProcess) => {
    if (!inspect) return undefined;
    const url = inspectorUrl(p.output());
    if (!url) throw new Error(`no inspector URL in the output of a process started with --inspect:\n${p.output()}`);
    return url;
  };
  return {
    worker: { pid: worker.child.pid!, metricsUrl: troupeProcesses.workerMetricsUrl, inspector: inspector(worker) },
    gateway: { pid: gateway.child.pid!, metricsUrl: `${troupeProcesses.base}/metrics`, inspector: inspector(gateway) },
  };
}

const describe = (messages: number, rounds: number, concurrency: number, monitorMessages: number, forceGc: boolean) => ({
  step:
    `each step uses its own N actors: first_touch sends one message to each (creating its state in MongoDB); then ${rounds} timed rounds of every step, interleaved ` +
    `(round r runs the steps in the order rotated by r), each round sending max(${messages}, N) messages, message i to actor i mod N, continuing the rotation of the round before, ` +
    `with ${concurrency} requests in flight (at N = 1 they queue behind one another: one actor runs one turn at a time, by design); ` +
    'a step\'s msgs_per_sec, p50, p99 and cpu_ms_per_msg are the medians of its rounds; its Redis commands and MongoDB operations are summed over them',
  redis_commandstats_per_message:
    'INFO commandstats calls during the timed part / messages: every command Redis ran, script-internal ones included (an EVALSHA and the XADD it runs both count). ' +
    'Server-wide: anything else using this Redis meanwhile is counted too (minus_monitor_sample_total well above 0 says so)',
  redis_monitor_sample:
    `${monitorMessages} more messages of the same shape under MONITOR (not timed): client_sent = commands from the worker's and gateway's own connections (found in /proc), ` +
    'script_internal = commands their scripts ran; round_trips counts a MULTI…EXEC as one and each other client command as one (an upper bound: ioredis auto-pipelining may share a round trip); ' +
    'net_of_background subtracts the rate the processes send with no load right after the step (redis_background_after)',
  mongo: 'serverStatus opcounters of the embedded server around the part measured / messages',
  memory:
    (forceGc
      ? 'V8 heap used and RSS (process.memoryUsage() read through the inspector) right after forced full GCs'
      : 'least RSS (/proc VmRSS) and V8 heap used (troupe_nodejs_heap_size_used_bytes on /metrics) over a few seconds, no GC forced, so garbage may be counted') +
    '; before: after the warm-up; after: every step done and every drain ended; divided by the actors of all steps (all idle then); ' +
    'worker_after_idle_time: the worker again once RESIDENT_IDLE_SECONDS passed since then (its resident copies dropped)',
  keys_left: 'SCAN of the run prefix (and its BullMQ queues) after the worker and gateway stopped; PTTL per key, MEMORY USAGE of a few per kind',
});

export async function runRuntimeGrowthBench({
  redisUrl,
  logger,
  actorCounts = [1, 100, 10_000, 100_000],
  messages = 10_000,
  rounds = 3,
  concurrency = 32,
  warmup = 1_000,
  monitorMessages = 1_000,
  forceGc = true,
  memorySampleMs = 8_000,
  backgroundMs = 2 * HEARTBEAT_MS,
}: RuntimeGrowthBenchOptions) {
  const redisPort = Number(new URL(redisUrl).port || 6379);
  const troupeProcesses = await startTroupe(redisUrl, forceGc);
  const { base, key, prefix, worker, gateway, mongo } = troupeProcesses;
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const queueConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const echoQueue = new RedisNames(prefix).actorQueue(ECHO, 0);
  const queue = new Queue(echoQueue.name, { connection: queueConnection, prefix: echoQueue.prefix });
  let mongoMeter: MongoWorkMeter | undefined;
  try {
    mongoMeter = await MongoWorkMeter.connect(troupeProcesses.mongoUri);
    const target: LoadTarget = { base, key, concurrency, logger };
    const probes = memoryProbes(troupeProcesses, forceGc);
    const redisPid = localRedisPid(redisPort);
    const meters: Meters = {
      redis,
      redisUrl,
      mongo: mongoMeter,
      queue,
      cpu: () => new CpuMeter({ gateway: probes.gateway.pid, worker: probes.worker.pid, mongo: mongo.child.pid, redis: redisPid, load_generator: process.pid }),
      troupePorts: () => redisClientPorts([probes.gateway.pid, probes.worker.pid], redisPort),
      scriptNames: await scriptNames(queue, queueConnection),
      backgroundMs,
    };

    logger.info({ warmup, concurrency, prefix }, 'warm-up');
    await runStepLoad(target, warmup, (i) => `warm-${i % concurrency}`, 'warm-up');
    const warmBackground = await idleBackground(target, meters);
    logger.info('memory after the warm-up');
    const workerBefore = await memoryAtRest(probes.worker, memorySampleMs);
    const gatewayBefore = await memoryAtRest(probes.gateway, memorySampleMs);

    const touches = new Map<number, Touch>();
    for (const actors of actorCounts) touches.set(actors, await touchStep(target, meters, actors));
    // Rounds interleave the steps, so a drift of this shared machine's speed over the minutes of the run lands on every step alike.
    const timed = new Map<number, TimedRound[]>(actorCounts.map((n) => [n, []]));
    for (let r = 0; r < rounds; r++) for (const actors of roundOrder(actorCounts, r)) timed.get(actors)!.push(await timedRound(target, meters, actors, messages, r));
    const steps: Step[] = [];
    for (const actors of actorCounts) steps.push(await finishStep(target, meters, actors, touches.get(actors)!, timed.get(actors)!, monitorMessages));

    logger.info('memory with every actor idle');
    await waitQuiet(queue, logger);
    const quietSince = Date.now();
    const workerAfter = await memoryAtRest(probes.worker, memorySampleMs);
    const gatewayAfter = await memoryAtRest(probes.gateway, memorySampleMs);
    const idleActors = actorCounts.reduce((sum, n) => sum + n, 0);
    // The worker reads RESIDENT_MEMORY and RESIDENT_IDLE_SECONDS from the environment it inherits from this process.
    const residents = loadConfig().worker.residents;
    const workerIdled = await memoryAfterIdleTime(probes.worker, residents, quietSince, memorySampleMs, logger);
    const workerIdledPerActor = workerIdled && perIdleActor(workerBefore, workerIdled.memory, idleActors);

    // Keys are counted once the worker and gateway are gone: what a deployment leaves behind.
    await stopProcess(gateway);
    await stopProcess(worker);
    logger.info({ prefix }, 'counting the keys left in Redis');
    const keys = await keysLeft(redis, prefix);
    const mustExpire = Object.fromEntries(MUST_EXPIRE.filter((kind) => keys[kind]).map((kind) => [kind, keys[kind].without_ttl]));
    // One lasting key per kind, but each actor in it must be gone once its drain left an empty mailbox.
    const echoNames = new RedisNames(prefix);
    const awaitingDrain = (await Promise.all(echoNames.allPartitions().map((p) => redis.zcard(echoNames.awaitingDrain(ECHO, p))))).reduce((a, b) => a + b, 0);
    const roundTrips = Math.max(...steps.map((s) => s.live.redis_monitor_sample.round_trips_per_message_net_of_background));
    const throughputSpread = spread(steps, (s) => s.live.msgs_per_sec);
    const p99Spread = spread(steps, (s) => s.live.p99_ms);

    return {
      node: process.version,
      path: 'HTTP POST (Accept: text/event-stream) → gateway → mailbox (Redis Stream) → drain (BullMQ job, or a lingering drain woken over pub/sub) → echo turn (MongoDB commit) → reply stream + pub/sub → SSE',
      processes: { gateways: 1, workers: 1, mongo: 'troupe mongo (embedded, memory)' },
      redis: { version: /^redis_version:(\S+)/m.exec(await redis.info('server'))?.[1] ?? null, prefix },
      concurrency,
      rounds,
      what_was_measured: describe(messages, rounds, concurrency, monitorMessages, forceGc),
      redis_background_after_warmup: backgroundRates(warmBackground),
      steps,
      memory: {
        idle_actors: idleActors,
        worker: perIdleActor(workerBefore, workerAfter, idleActors),
        worker_after_idle_time: workerIdled && { waited_seconds: workerIdled.waitedSeconds, ...workerIdledPerActor },
        gateway: perIdleActor(gatewayBefore, gatewayAfter, idleActors),
        resident_actors: { memory_bytes: residents.memoryBytes, idle_seconds: residents.idleMs / 1000 },
        per_actor_caches: perActorCaches(residents),
      },
      keys_left: {
        by_kind: keys,
        documented_ttl_seconds: { replies: REPLY_STREAM_TTL_SECONDS, 'reply-owner': REPLY_STREAM_TTL_SECONDS, applied: APPLIED_TTL_SECONDS, drainer: DRAINER_TTL_MS / 1000 },
        without_ttl_of_kinds_that_must_expire: mustExpire,
        awaiting_drain_actors_left: awaitingDrain,
      },
      acceptance: {
        msgs_per_sec_min_over_max_from_100_actors: throughputSpread,
        p99_min_over_max_from_100_actors: p99Spread,
        msgs_per_sec_within_20pct_from_100_actors: throughputSpread >= 0.8,
        p99_within_20pct_from_100_actors: p99Spread >= 0.8,
        max_round_trips_per_message: roundTrips,
        round_trips_per_message_at_most_8: roundTrips <= 8,
        no_mailbox_left: (keys.mailbox?.keys ?? 0) === 0 && awaitingDrain === 0,
        every_per_message_and_per_actor_key_expires: Object.values(mustExpire).every((n) => n === 0),
        worker_heap_per_idle_actor_after_idle_time: workerIdledPerActor?.heap_bytes_per_idle_actor ?? null,
        worker_heap_per_idle_actor_after_idle_time_about_0: workerIdledPerActor ? (workerIdledPerActor.heap_bytes_per_idle_actor ?? Infinity) <= IDLE_ACTOR_HEAP_ABOUT_0 : null,
      },
    };
  } finally {
    await mongoMeter?.close().catch(() => undefined);
    await queue.close().catch(() => undefined);
    queueConnection.disconnect();
    redis.disconnect();
    await troupeProcesses.stop();
    await deleteBenchKeys(redisUrl, prefix).catch(() => undefined);
  }
}
