/**
 * The day's machine in the unit one sequential call is made of: a hop between two processes on it.
 * A reference line for the latency sections (bench:runtime's `latency`, bench:game), measured in the
 * same run and not a target, as raw BullMQ is for throughput.
 *
 * A call made alone finds every process on its path idle, and on this VM a process woken from idle
 * answers later than a busy one; so each hop is measured both back to back (`busy`) and after `idleMs`
 * of quiet (`idle`, about the gap each process of a sequential call sees between its turns):
 * - a Redis script round trip that appends to a stream and publishes, as a post does;
 * - that publish heard by another process (machine-hops-listener.ts), as a lingering drain hears it;
 * - a MongoDB `ping` round trip to the same `troupe mongo`.
 */
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { z } from 'zod';
import { createRedisClient } from '../../queues/redis-client.js';
import { benchScript, hopQuantiles } from './troupe-processes.js';

export interface MachineHopsOptions {
  redisUrl: string;
  mongoUri: string;
  /** Samples of each hop in each mode (default 300). */
  samples?: number;
  /** The quiet before each `idle` sample (default 5 ms). */
  idleMs?: number;
  /** Untimed calls of each hop first (default WARMUP_CALLS). */
  warmupCalls?: number;
}

type Mode = 'busy' | 'idle';

/** A post's shape: append to a stream (kept short), then publish to the channel a listener follows. */
const POST_LIKE_SCRIPT = "redis.call('XADD', KEYS[1], 'MAXLEN', '1', '*', 'envelope', ARGV[1]) return redis.call('PUBLISH', ARGV[2], ARGV[3])";
/** About a game move's envelope. */
const ENVELOPE = 'x'.repeat(600);
/**
 * Untimed calls of each hop first (the listener hears these too): every process here starts cold, and a
 * driver's MongoDB `ping` took 0.6-0.8 ms at p50 over its first thousand calls, 0.13-0.4 after two.
 */
const WARMUP_CALLS = 2_000;
/** How long the listener may take to print its report and exit once told `end`. */
const LISTENER_EXIT_BOUND_MS = 30_000;

const ListenerReport = z.object({ one_way_ms: z.record(z.string(), z.array(z.number())) });

export async function measureMachineHops({ redisUrl, mongoUri, samples = 300, idleMs = 5, warmupCalls = WARMUP_CALLS }: MachineHopsOptions) {
  const channel = `machine-hops-${process.pid}-${randomBytes(3).toString('hex')}`;
  const stream = `${channel}:stream`;
  const listener = benchScript('scripts/bench/machine-hops-listener.ts', [], { REDIS_URL: redisUrl, MACHINE_HOPS_CHANNEL: channel });
  const redis = createRedisClient(redisUrl, { maxRetriesPerRequest: 1 });
  const mongo = new MongoClient(mongoUri, { maxPoolSize: 1, monitorCommands: false });
  try {
    await listener.waitFor('listening');
    await mongo.connect();
    const admin = mongo.db('admin');
    const post = (label: string) => redis.eval(POST_LIKE_SCRIPT, 1, stream, ENVELOPE, channel, `${label}\t${performance.timeOrigin + performance.now()}`);
    for (let i = 0; i < warmupCalls; i++) {
      await post('warmup');
      await admin.command({ ping: 1 });
    }

    const roundTrips: Record<'redis' | 'mongo', Record<Mode, number[]>> = { redis: { busy: [], idle: [] }, mongo: { busy: [], idle: [] } };
    const timed = async (into: number[], call: () => Promise<unknown>) => {
      const started = performance.now();
      await call();
      into.push(performance.now() - started);
    };
    for (const mode of ['busy', 'idle'] as const) {
      for (let i = 0; i < samples; i++) {
        if (mode === 'idle') await sleep(idleMs);
        await timed(roundTrips.redis[mode], () => post(mode));
      }
      for (let i = 0; i < samples; i++) {
        if (mode === 'idle') await sleep(idleMs);
        await timed(roundTrips.mongo[mode], () => admin.command({ ping: 1 }));
      }
    }
    const exited = once(listener.child, 'exit', { signal: AbortSignal.timeout(LISTENER_EXIT_BOUND_MS) });
    await redis.publish(channel, 'end');
    await exited.catch((err: unknown) => {
      throw new Error(`the machine-hops listener did not report within ${LISTENER_EXIT_BOUND_MS / 1000} s (${String(err)}):\n${listener.output()}`);
    });
    const reportLine = listener.output().split('\n').find((line) => line.startsWith('{"one_way_ms"'));
    const heard = ListenerReport.parse(JSON.parse(reportLine ?? 'null')).one_way_ms;
    const both = (samplesOf: Record<string, number[] | undefined>) => ({ busy: hopQuantiles(samplesOf.busy ?? []), idle: hopQuantiles(samplesOf.idle ?? []) });
    return {
      what: 'one hop between two processes on this machine, measured in the same run: back to back (busy) and after idle_ms of quiet (idle); a reference line for the latencies, not a target',
      samples,
      idle_ms: idleMs,
      redis_post_like_script_round_trip_ms: both(roundTrips.redis),
      redis_publish_heard_by_another_process_ms: both(heard),
      // Pub/sub may drop a message (a subscriber that falls behind is cut off): fewer than samples says so.
      heard: { busy: heard.busy?.length ?? 0, idle: heard.idle?.length ?? 0 },
      mongo_ping_round_trip_ms: both(roundTrips.mongo),
    };
  } finally {
    if (listener.child.exitCode === null) listener.child.kill();
    await redis.del(stream).catch(() => undefined);
    redis.disconnect();
    await mongo.close().catch(() => undefined);
  }
}
