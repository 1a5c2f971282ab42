/**
 * Worker processes: a BullMQ worker per actor kind running drains, one per service kind running
 * requests in parallel, and one delivering scheduled messages. Workers announce themselves for
 * /readyz, re-request drains for mailboxes left without one, and shut down gracefully: no new jobs,
 * in-flight turns finish or are handed back (their mailbox keeps the message; a new drain is queued).
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import { createRedisClient, scanKeys, type RedisClient } from '../../queues/redis-client.js';
import type { Connection } from 'mongoose';
import { ActorRef, Envelope } from '../../queues/envelope.js';
import { RedisNames } from '../../queues/keys.js';
import { Mailboxes } from '../../queues/mailbox.js';
import { publishAll } from '../../queues/reply-stream.js';
import { actorRecords, ActorStore } from '../../models/actor-record.js';
import { RequestError, type ActorKind, type ActorResources, type AnyKind, type Logger, type McpEndpoint, type ServiceKind } from './contract.js';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { Narrator } from '../llm/narration.js';
import type { Embedder } from '../documents/embeddings.js';
import { DEFAULT_MAIL_SETTINGS, type MailSettings } from '../mail/settings.js';
import { offlineNarrator } from '../llm/offline-narrator.js';
import { TurnCancels } from '../../queues/turn-cancels.js';
import { Batches } from './batches.js';
import { batchItem, drainActor, outcomeOf } from './drain.js';
import { DEFAULT_RESIDENT_BOUNDS, ResidentActors, type ResidentBounds } from './residents.js';
import { DrainWakeups } from '../../queues/drain-wakeups.js';
import { Effects } from './effects.js';
import { JobSignals } from './job-signals.js';
import { errorEvent } from './turn.js';
import { UNOBSERVED, type RuntimeObserver } from './observer.js';
import { DEFAULT_TAKEOVER_SETTINGS, LivenessBeat, type TakeoverSettings } from './liveness.js';
import { watchForLapsedWorkers } from './takeover-watch.js';
import { LivenessRegistry } from '../../queues/liveness-registry.js';
import { Takeover } from '../../queues/takeover.js';
import { StoreOutage, StoreUnavailable, storeUnavailableEvent } from './store-outage.js';
import * as settings from './settings.js';

export interface WorkerOptions {
  redisUrl: string;
  mongo: Connection;
  kinds: AnyKind[];
  logger: Logger;
  /** Key and queue names (REDIS_PREFIX); default prefix `troupe`. */
  names?: RedisNames;
  /** The language model handlers explain results with (LLM_PROVIDER); default: the offline narrator. */
  narrator?: Narrator;
  /** The chat model agents reason with (LLM_PROVIDER); default: none (offline). */
  chatModel?: BaseChatModel | null;
  /** Where agents call MCP tools; default: nowhere (tool calls fail with a clear error). */
  mcp?: McpEndpoint;
  /** Vectors for document search (EMBEDDINGS_PROVIDER); default: none (BM25 only). */
  embedder?: Embedder | null;
  /** How long a scouting run waits at a gate; default: forever. */
  gateTimeoutMs?: number | null;
  /** MAIL_* settings; default: local delivery on troupe.local. */
  mail?: MailSettings;
  /** Concurrent drains per actor kind in this process, shared out over its drain queues (see queueConcurrency). */
  actorConcurrency?: number;
  /** How long an emptied drain waits for the next message (default DRAIN_LINGER_MS; 0: never). */
  drainLingerMs?: number;
  /** Told of every turn, service request and commit (metrics); default: nobody. */
  observer?: RuntimeObserver;
  /** Liveness key and takeover of crashed workers (LIVENESS_TTL_MS …); default: DEFAULT_TAKEOVER_SETTINGS. */
  takeover?: TakeoverSettings;
  /** How long turns are retried while MongoDB is out of reach (STORE_OUTAGE_RETRY_SECONDS); default 30 s. */
  storeOutageRetryMs?: number;
  /** How often the process announces itself and drains orphaned mailboxes; default HEARTBEAT_MS (5 s). */
  heartbeatMs?: number;
  /** Bounds of the actors kept as last committed, so their next drain here skips the fence (RESIDENT_MEMORY, RESIDENT_IDLE_SECONDS). */
  residents?: ResidentBounds;
}

export interface RunningWorkers {
  id: string;
  kinds: string[];
  close(): Promise<void>;
}

const NO_MCP_ENDPOINT: McpEndpoint = { url: () => undefined, headersFor: async () => ({}) };

const bullConnection = (url: string) => createRedisClient(url, { maxRetriesPerRequest: null });

export async function startWorkers(options: WorkerOptions): Promise<RunningWorkers> {
  const { logger, kinds } = options;
  const observer = options.observer ?? UNOBSERVED;
  const names = options.names ?? new RedisNames();
  const id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  // Auto-pipelining sends the commands issued in one tick as one write.
  const redis = createRedisClient(options.redisUrl, { maxRetriesPerRequest: 3, enableAutoPipelining: true });
  const queueConnection = bullConnection(options.redisUrl);
  const mailboxes = new Mailboxes(redis, queueConnection, names);
  const scheduleQueue = new Queue(names.scheduleQueue().name, { connection: queueConnection, prefix: names.scheduleQueue().prefix });
  const batches = new Batches(options.mongo, redis, names);
  const store = new ActorStore(actorRecords(options.mongo));
  const residents = new ResidentActors(options.residents ?? DEFAULT_RESIDENT_BOUNDS);
  const storeOutage = new StoreOutage(options.storeOutageRetryMs, logger);
  const wakeups = new DrainWakeups(options.redisUrl, names.drainWake(id));
  const cancels = kinds.some((k) => k.stateful && k.cancels?.length) ? new TurnCancels(options.redisUrl, redis, names) : undefined;
  const resources: ActorResources = {
    mongo: options.mongo,
    narrator: options.narrator ?? offlineNarrator(),
    chatModel: options.chatModel ?? null,
    mcp: options.mcp ?? NO_MCP_ENDPOINT,
    embedder: options.embedder ?? null,
    gateTimeoutMs: options.gateTimeoutMs ?? null,
    mail: options.mail ?? DEFAULT_MAIL_SETTINGS,
  };
  /** Drains running per kind: a drain may linger only while the kind has a free slot for other actors. */
  const running = new Map<string, number>();
  // Stopping: no new turns. Shutdown: in-flight turns are told to stop (after the grace period).
  const stopping = new JobSignals();
  const shutdown = new JobSignals();
  const workers: Worker[] = [];
  const connections: RedisClient[] = [redis, queueConnection];

  const workerOptions = () => {
    const connection = bullConnection(options.redisUrl);
    connections.push(connection);
    return {
      connection,
      // Run once this process's liveness entry names them (see below).
      autorun: false,
      lockDuration: settings.LOCK_DURATION_MS,
      stalledInterval: settings.STALLED_INTERVAL_MS,
      maxStalledCount: settings.MAX_STALLED_COUNT,
    };
  };

  for (const kind of kinds) {
    if (kind.stateful) {
      const actorKind = kind as ActorKind<unknown>;
      // The kind's drain slots are shared out over its drain queues (one BullMQ worker each).
      const queues = names.allDrainQueues();
      const concurrency = queueConcurrency(options.actorConcurrency ?? settings.DEFAULT_ACTOR_CONCURRENCY, queues.length);
      const shared = workerOptions();
      for (const index of queues) {
        const queue = names.actorQueue(kind.kind, index);
        const linger = {
          wakeups,
          ms: options.drainLingerMs ?? settings.DRAIN_LINGER_MS,
          drainerTtlMs: settings.DRAINER_TTL_MS,
          allowed: () => (running.get(queue.name) ?? 0) < concurrency,
        };
        const worker = new Worker(
          queue.name,
          async (job: Job) => {
            const ref = ActorRef.parse(job.data);
            const effects = new Effects(redis, mailboxes, scheduleQueue, batches, names);
            running.set(queue.name, (running.get(queue.name) ?? 0) + 1);
            let result;
            try {
              result = await stopping.run((stoppingSignal) =>
                shutdown.run((signal) =>
                  drainActor(actorKind, ref, { redis, names, mailboxes, store, effects, logger, resources, cancels, residents, linger, observer, storeOutage, signal, stopping: stoppingSignal }),
                ),
              );
            } finally {
              running.set(queue.name, (running.get(queue.name) ?? 1) - 1);
            }
            // Handed back on shutdown (the mailbox still holds the rest, another worker drains it), or to a
            // drain that fences afresh after this process's copy of the actor proved stale.
            if (result === 'interrupted' || result === 'stale') await mailboxes.requestDrain(ref);
            return result;
          },
          { ...shared, prefix: queue.prefix, concurrency },
        );
        workers.push(worker);
      }
    } else {
      const service = kind as ServiceKind;
      const effects = new Effects(redis, mailboxes, scheduleQueue, batches, names);
      const queue = names.serviceQueue(kind.kind);
      const worker = new Worker(queue.name, (job: Job) => shutdown.run((signal) => runService(service, job, { effects, redis, logger, resources, observer, storeOutage, signal })), {
        ...workerOptions(),
        prefix: queue.prefix,
        concurrency: service.concurrency ?? settings.DEFAULT_SERVICE_CONCURRENCY,
      });
      workers.push(worker);
    }
  }
  const schedule = names.scheduleQueue();
  workers.push(
    new Worker(schedule.name, async (job: Job) => mailboxes.post(Envelope.parse(job.data)), { ...workerOptions(), prefix: schedule.prefix, concurrency: 10 }),
  );
  for (const w of workers) w.on('error', (err) => logger.error({ err, queue: w.name }, 'worker error'));

  // Registered before any job is taken, so a crash from the first job on is taken over fast.
  const takeoverSettings = options.takeover ?? DEFAULT_TAKEOVER_SETTINGS;
  const liveness = await LivenessBeat.start({
    redisUrl: options.redisUrl,
    workerId: id,
    aliveKey: names.alive(id),
    registryKey: names.liveness(),
    entry: { queues: workers.map((w) => ({ queue: w.name, prefix: w.opts.prefix ?? 'bull', worker: w.id })) },
    ttlMs: takeoverSettings.livenessTtlMs,
    renewMs: takeoverSettings.livenessRenewMs,
    logger,
  });
  for (const w of workers) w.run().catch((err) => w.emit('error', err));
  const takeover = new Takeover(redis, queueConnection);
  const watch =
    takeoverSettings.checkMs > 0 ? watchForLapsedWorkers({ registry: new LivenessRegistry(redis, names), takeover, workerId: id, checkMs: takeoverSettings.checkMs, logger }) : undefined;

  const heartbeatMs = options.heartbeatMs ?? settings.HEARTBEAT_MS;
  const heartbeat = async () => {
    const now = Date.now();
    await Promise.all(kinds.map((k) => redis.hset(names.workers(k.kind), id, String(now))));
    // Workers that died without saying goodbye (kill -9) are forgotten after a while.
    await Promise.all(kinds.map((k) => forgetDeadWorkers(redis, names.workers(k.kind), now)));
    await recoverOrphanMailboxes(mailboxes, kinds, names, now - heartbeatMs);
  };
  await heartbeat();
  await sweepMailboxes(redis, mailboxes, kinds, names);
  const timer = setInterval(() => heartbeat().catch((err) => logger.warn({ err }, 'worker heartbeat failed')), heartbeatMs);
  timer.unref();
  logger.info({ workerId: id, kinds: kinds.map((k) => k.kind) }, 'workers started');

  let closing: Promise<void> | undefined;
  return {
    id,
    kinds: kinds.map((k) => k.kind),
    close() {
      closing ??= (async () => {
        clearInterval(timer);
        await watch?.stop();
        stopping.abortAll();
        const grace = setTimeout(() => shutdown.abortAll(), settings.SHUTDOWN_GRACE_MS);
        await Promise.all(workers.map((w) => w.close()));
        clearTimeout(grace);
        // Alive until its jobs are done or handed back: only then may nobody else take them.
        await liveness.stop();
        await takeover.close();
        await Promise.all(kinds.map((k) => redis.hdel(names.workers(k.kind), id))).catch(() => undefined);
        await scheduleQueue.close();
        await mailboxes.close();
        await wakeups.close();
        await cancels?.close();
        residents.close();
        await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
        logger.info({ workerId: id }, 'workers stopped');
      })();
      return closing;
    },
  };
}

interface ServiceRun {
  effects: Effects;
  redis: RedisClient;
  logger: Logger;
  resources: ActorResources;
  observer: RuntimeObserver;
  storeOutage: StoreOutage;
  signal: AbortSignal;
}

async function runService(kind: ServiceKind, job: Job, { effects, redis, logger, resources, observer, storeOutage, signal }: ServiceRun) {
  const parsed = Envelope.safeParse(job.data);
  if (!parsed.success) {
    logger.warn({ jobId: job.id, issues: parsed.error.issues }, 'malformed service request dropped');
    return;
  }
  const env = parsed.data;
  const stream = env.replyStream;
  const schema = kind.messages[env.type];
  const payload = schema?.safeParse(env.payload);
  let final: Array<{ e: string; d: unknown }>;
  const started = performance.now();
  if (env.deadline !== undefined && Date.now() > env.deadline) {
    final = [errorEvent('deadline_exceeded', 'the request waited past its deadline')];
  } else if (!schema || !payload?.success) {
    final = [errorEvent('bad_request', schema ? `invalid payload for ${kind.kind}.${env.type}` : `unknown message type '${env.type}'`, payload?.error?.issues)];
  } else {
    try {
      // Run again while MongoDB is out of reach, up to the bound (a request has no mailbox to wait in).
      const data = await storeOutage.retry(() =>
        Promise.resolve(
          kind.handle(
            { messageId: env.messageId, type: env.type, payload: payload.data, ownerId: env.ownerId, createdAt: env.createdAt },
            { emit: (event, data) => stream && effects.emit(stream, event, data, env.notify), signal, logger, resources },
          ),
        ),
      );
      final = [{ e: 'reply', d: data ?? null }, { e: 'done', d: { messageId: env.messageId } }];
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof RequestError) final = [errorEvent(err.code, err.message, err.details)];
      else if (err instanceof StoreUnavailable) final = [storeUnavailableEvent(env.messageId, storeOutage.retryMs, false)];
      else {
        logger.error({ err, kind: kind.kind, type: env.type, messageId: env.messageId }, 'service request failed');
        final = [errorEvent('request_failed', err instanceof Error ? err.message : String(err))];
      }
    }
  }
  const ms = performance.now() - started;
  const outcome = outcomeOf(final);
  logger.debug({ kind: kind.kind, messageId: env.messageId, ms: Math.round(ms), outcome }, 'request');
  observer.turnFinished(kind.kind, outcome, ms / 1000);
  if (stream) {
    // Partial events are out before the answer.
    await effects.flushEmits();
    await publishAll(redis, stream, final, env.notify);
  }
  const after = [];
  if (env.lease) after.push({ kind: 'release' as const, lease: env.lease });
  if (env.batchId) after.push(batchItem(env, final));
  await effects.perform(after);
}

/** Actors noted as awaiting a drain are read this many at a time. */
const RECOVERY_PAGE = 500;

/**
 * A post that died between appending to the mailbox and adding the drain job leaves an orphan; drain it.
 * Candidates are the actors noted as awaiting a drain since before `before` (a heartbeat ago: a post
 * that just noted one is adding its job right now). The set holds only mailboxes that may still have
 * messages, so this costs what is pending, not what Redis holds.
 */
async function recoverOrphanMailboxes(mailboxes: Mailboxes, kinds: AnyKind[], names: RedisNames, before: number) {
  for (const kind of kinds) {
    if (!kind.stateful) continue;
    for (const partition of names.allPartitions()) {
      let offset = 0;
      for (;;) {
        const ids = await mailboxes.awaitingDrainSince(kind.kind, partition, before, offset, RECOVERY_PAGE);
        for (const id of ids) {
          const actor = { kind: kind.kind, id };
          if (await mailboxes.forgetIfEmpty(actor)) continue;
          offset += 1;
          await mailboxes.requestDrain(actor);
        }
        if (ids.length < RECOVERY_PAGE) break;
      }
    }
  }
}

/**
 * Once, when a worker starts: mailboxes left by a version of troupe that did not note actors awaiting a
 * drain, or by a Redis restored from elsewhere. A full key scan (of every master, on a cluster), which
 * is why it is not a heartbeat's.
 */
async function sweepMailboxes(redis: RedisClient, mailboxes: Mailboxes, kinds: AnyKind[], names: RedisNames) {
  for (const kind of kinds) {
    if (!kind.stateful) continue;
    for await (const keys of scanKeys(redis, names.mailboxPattern(kind.kind))) {
      for (const key of keys) {
        const actor = names.actorOfMailbox(key, kind.kind);
        if (!actor || (await redis.xlen(key)) === 0) continue;
        await mailboxes.requestDrain(actor);
      }
    }
  }
}

/** Each drain queue's share of a kind's drain slots (at least one). */
export const queueConcurrency = (kindConcurrency: number, queues: number): number => Math.max(1, Math.ceil(kindConcurrency / queues));

async function forgetDeadWorkers(redis: RedisClient, key: string, now: number) {
  const all = await redis.hgetall(key);
  const dead = Object.entries(all).filter(([, seen]) => now - Number(seen) > settings.WORKER_TTL_MS * 20).map(([workerId]) => workerId);
  if (dead.length) await redis.hdel(key, ...dead);
}

/** Worker ids per kind seen within WORKER_TTL_MS (for /readyz). */
export async function liveWorkers(redis: RedisClient, names: RedisNames, kind: string, now = Date.now()): Promise<string[]> {
  const all = await redis.hgetall(names.workers(kind));
  return Object.entries(all)
    .filter(([, seen]) => now - Number(seen) < settings.WORKER_TTL_MS)
    .map(([id]) => id);
}
