/**
 * A drain: the job that runs an actor's pending messages, one turn at a time, in mailbox order.
 *
 * Fencing: a drain starts by incrementing the actor's epoch, and every commit is a conditional update
 * on `{ _id, epoch, appliedSeq }`. A zombie drain (one BullMQ ran twice after a stall) loses the race
 * at its first commit and stops; nothing it computed is applied. A drain may skip the fencing read when
 * this process committed the actor last (see ResidentActors): if that copy turns out stale, its commit
 * fails the same way, and the actor is handed to a fresh drain, which fences.
 * At most once: a committed message is deleted from the mailbox, and remembered in Redis as applied
 * (with its final events), so a copy of it — left by a crash before the delete, or sent twice by
 * another actor's outbox — is answered with the first reply instead of being applied again.
 * Idempotency keys are settled by the gateway before anything is posted.
 * Effects of a committed turn (reply events, outgoing messages, lease release) are stored with the
 * commit (outbox) and performed after it; a Redis marker records the last turn whose effects all
 * happened. A drain that finds an outbox without that marker (a crash right after a commit) performs
 * it again, which is safe because every effect is idempotent.
 * MongoDB out of reach: the fence, the turn and the commit are retried (store-outage.ts); past the bound
 * the waiting clients are told `store_unavailable` and the messages stay queued for the next drain.
 */
import type { RedisClient } from '../../queues/redis-client.js';
import { Envelope, refKey, type ActorRef } from '../../queues/envelope.js';
import type { RedisNames } from '../../queues/keys.js';
import type { MailboxEntry, Mailboxes, Wakeable } from '../../queues/mailbox.js';
import { entryAfter, type DrainWakeups } from '../../queues/drain-wakeups.js';
import { NO_TURN_APPLIED, outboxOf, encodeOutbox, type ActorRecord, type ActorStore, type OutboxItem, type StoredEvent } from '../../models/actor-record.js';
import type { TurnCancels } from '../../queues/turn-cancels.js';
import type { ActorKind, ActorResources, Logger } from './contract.js';
import { UNOBSERVED, type RuntimeObserver } from './observer.js';
import { cancelledEvent, errorEvent, runTurn, TurnAborted, type TurnOutcome } from './turn.js';
import { APPLIED_TTL_SECONDS, storedOutbox, type Effects } from './effects.js';
import type { Resident, ResidentActors } from './residents.js';
import { STORE_CALL_TIMEOUT_MS, StoreOutage, StoreUnavailable } from './store-outage.js';
import { noticesOf, OutageNotices } from './outage-notices.js';
import { hop, type Hop } from '../../queues/hop-trace.js';

export interface DrainDeps {
  redis: RedisClient;
  names: RedisNames;
  mailboxes: Mailboxes;
  store: ActorStore;
  effects: Effects;
  logger: Logger;
  /** What handlers are lent (MongoDB, the language model, MCP access). */
  resources: ActorResources;
  /** Cancels of running turns, for kinds that declare cancel routes. */
  cancels?: TurnCancels;
  /** Aborts a running turn (shutdown grace period over). */
  signal: AbortSignal;
  /** Set when the worker is stopping: finish the current turn, start no other. */
  stopping?: AbortSignal;
  /** Actors this process committed last; without it every drain fences. */
  residents?: ResidentActors;
  /** Messages read from the mailbox per round trip. */
  batchSize?: number;
  /** Lets posts wake this drain instead of adding a job, and lets it wait a moment for the next message. */
  linger?: DrainLinger;
  /** Told of every turn and commit (metrics); default: nobody. */
  observer?: RuntimeObserver;
  /** How turns ride out a MongoDB outage (one per worker process); default: retried for 30 s. */
  storeOutage?: StoreOutage;
}

export interface DrainLinger {
  wakeups: DrainWakeups;
  /** How long an emptied drain waits for the next message before it leaves (0: it leaves at once). */
  ms: number;
  /** How long the drainer key lives without a refresh (a crashed worker's key lapses after this). */
  drainerTtlMs: number;
  /** Asked before each wait: false when the worker needs its slots for other actors' drains. */
  allowed(): boolean;
}

/**
 * `fenced`: a newer drain owns the actor (this one was a zombie). `stale`: this process's copy of the
 * actor was out of date; nothing was applied, and the caller must request a fresh drain. `unavailable`:
 * MongoDB stayed out of reach past the bound; the waiting clients were told, the next drain is queued.
 */
export type DrainResult = 'drained' | 'fenced' | 'stale' | 'interrupted' | 'unavailable';

/** For drains given no policy of their own (tests, tools). */
const DEFAULT_STORE_OUTAGE = new StoreOutage();

/** The marker only has to outlive the gap between a commit and the next drain of the actor. */
const OUTBOX_MARK_TTL_SECONDS = 7 * 24 * 60 * 60;
const OWNER_CACHE_TTL_SECONDS = 24 * 60 * 60;

export async function drainActor(kind: ActorKind<unknown>, ref: ActorRef, deps: DrainDeps): Promise<DrainResult> {
  const _id = refKey(ref);
  const claim = deps.residents?.claim(_id);
  let result: DrainResult | undefined;
  try {
    result = await drainClaimed(kind, ref, _id, claim?.resident, deps).catch((error: unknown) => giveUp(error, ref, deps));
    return result;
  } finally {
    claim?.release();
    if (result !== 'drained') {
      deps.residents?.forget(_id);
      // Stopped early (or failed): posts must add drain jobs again; what is left gets one.
      const left = await deps.mailboxes.abandon(ref).catch(() => 0);
      if (left > 0 && (result === undefined || result === 'unavailable')) await deps.mailboxes.requestDrain(ref).catch(() => undefined);
    }
  }
}

/**
 * MongoDB stayed out of reach past the bound: the senders of the waiting messages are told, and after a
 * pause (so an outage does not spin drain jobs) the messages are left for the next drain. Rethrows others.
 */
async function giveUp(error: unknown, ref: ActorRef, deps: DrainDeps): Promise<DrainResult> {
  if (!(error instanceof StoreUnavailable)) throw error;
  const outage = deps.storeOutage ?? DEFAULT_STORE_OUTAGE;
  const told = await new OutageNotices(deps.redis, deps.names).tell(ref, outage.retryMs);
  const log = told > 0 ? deps.logger.warn.bind(deps.logger) : deps.logger.debug.bind(deps.logger);
  log({ actor: ref, told, err: error.cause }, 'MongoDB out of reach past the retry bound: waiting clients told store_unavailable, their messages stay queued');
  await outage.pauseAfterGivingUp(deps.stopping);
  return 'unavailable';
}

async function drainClaimed(kind: ActorKind<unknown>, ref: ActorRef, _id: string, resident: Resident | undefined, deps: DrainDeps): Promise<DrainResult> {
  const { redis, store, effects, logger, mailboxes } = deps;
  const batchSize = deps.batchSize ?? 50;
  const observer = deps.observer ?? UNOBSERVED;
  const outage = deps.storeOutage ?? DEFAULT_STORE_OUTAGE;
  const throughOutage = <T>(op: () => Promise<T>) => outage.retry(op, { signal: deps.stopping });
  // Fence and commit also give up on a call that hangs; a turn may legitimately take minutes.
  const storeCall = <T>(op: () => Promise<T>) => outage.retry(op, { signal: deps.stopping, attemptTimeoutMs: STORE_CALL_TIMEOUT_MS });
  const fromResident = resident !== undefined;
  const linger = deps.linger;
  const wakeable: Wakeable | undefined = linger?.wakeups.listening ? { channel: linger.wakeups.channel, ttlMs: linger.drainerTtlMs } : undefined;
  // Applied entries are deleted after their commit, so the mailbox holds only what is still to do
  // (and, after a crash between commit and delete, one entry its applied marker answers).
  // Reading from the start, not after appliedSeq, keeps working if a recreated stream's ids restart lower.
  const notices = new OutageNotices(redis, deps.names);
  // When the last read of the mailbox was sent: a wake-up heard before it is for a message it returned.
  let readAt = performance.now();
  // The first read comes before the fence, so that it also brings the outbox marker the fence needs.
  const first = await mailboxes.start(ref, batchSize, wakeable);
  // Usually none: messages whose senders were told store_unavailable by a drain that gave up.
  const noticed = noticesOf(first.notices);
  let entries = first.entries;
  let actor = resident;
  if (!actor) {
    // An actor with no record and nothing to read gets none: a drain job can come with nothing to do
    // (a post that sent its job early and was refused), and it must not create the actor.
    let fenced = await storeCall(() => fence(ref, _id, first.outboxDone, deps, entries.length > 0));
    if (!fenced) {
      entries = await mailboxes.leave(ref, batchSize);
      if (entries.length === 0) return 'drained';
      fenced = (await storeCall(() => fence(ref, _id, first.outboxDone, deps, true)))!;
    }
    actor = fenced.resident;
    if (!fenced.readStands) {
      readAt = performance.now();
      entries = await mailboxes.next(ref, batchSize, wakeable);
    }
  }
  const { epoch } = actor;
  let { appliedSeq, state, ownerId } = actor;
  let ownerCached = ownerId !== undefined;
  /** Messages applied by this drain: a copy later in the same batch is a duplicate its read could not see. */
  const appliedHere = new Map<string, StoredEvent[]>();

  const stop = () => deps.signal.aborted || deps.stopping?.aborted === true;
  for (;;) {
    if (entries.length === 0) {
      // Empty as far as this drain knows. Request/reply clients send their next message right after
      // the answer: wait a moment for it (a post wakes us) rather than leave and need a new job.
      // Not woken: nothing was posted meanwhile that saw this drain, and leaving reads the mailbox in
      // the same step, so a message that did not wake it is still found.
      const woken = wakeable && linger!.ms > 0 && !stop() && linger!.allowed() ? await linger!.wakeups.wait(_id, linger!.ms, readAt, deps.stopping) : undefined;
      if (woken) {
        // The post's entry, when the wake-up carried it: the turn starts without reading the mailbox.
        const carried = entryAfter(woken, appliedSeq);
        if (carried) {
          entries = [carried];
          continue;
        }
        readAt = performance.now();
        entries = await mailboxes.next(ref, batchSize, wakeable);
        if (entries.length > 0) continue;
      }
      entries = await mailboxes.leave(ref, batchSize);
      if (entries.length === 0) break;
    }
    const entry = entries.shift()!;
    if (stop()) return 'interrupted';
    const parsed = Envelope.safeParse(safeJson(entry.envelope));
    let next = state;
    const outbox: OutboxItem[] = [];
    let env: Envelope | undefined;
    let final: StoredEvent[] = [];
    let firstTime = false;
    /** Partial events of this turn still to write: they go out in front of the reply. */
    let tail: StoredEvent[] = [];
    if (!parsed.success) {
      logger.warn({ actor: ref, entryId: entry.entryId, issues: parsed.error.issues }, 'malformed envelope in mailbox; skipped');
    } else {
      env = parsed.data;
      const earlier = appliedHere.get(env.messageId) ?? (await appliedBefore(entry, env, deps));
      if (earlier !== null) {
        // A duplicate (an outbox delivered twice): answered with the first reply, not applied.
        final = earlier;
      } else {
        firstTime = true;
        const replyStream = env.replyStream;
        env.trace?.push(hop('turn_start'));
        const started = performance.now();
        try {
          const turnEnv = env;
          // A handler that could not reach MongoDB is run again (its turn was not the sender's fault).
          const outcome = await throughOutage(() => cancellableTurn(kind, ref, turnEnv, state, deps, (cancel) =>
            runTurn({
              kind,
              ref,
              state,
              ownerId,
              env: turnEnv,
              emit: (event, data) => {
                if (replyStream) effects.emit(replyStream, event, data, turnEnv.notify);
              },
              feedStream: deps.names.feed(ref),
              signal: deps.signal,
              cancel,
              logger,
              resources: deps.resources,
            }),
          ));
          next = outcome.state;
          final = outcome.final;
          outbox.push(...outcome.effects);
        } catch (err) {
          if (err instanceof TurnAborted) return 'interrupted';
          throw err;
        }
        const ms = performance.now() - started;
        env.trace?.push(hop('turn_end'));
        const outcome = outcomeOf(final);
        logger.debug({ kind: ref.kind, actor: ref.id, messageId: env.messageId, ms: Math.round(ms), outcome }, 'turn');
        observer.turnFinished(ref.kind, outcome, ms / 1000);
        // The first turn that changes the state makes its sender the owner (a failed one changes nothing,
        // unless it committed a state on purpose: ctx.fail).
        if (ownerId === undefined && next !== state) ownerId = env.ownerId;
        outbox.unshift({ kind: 'applied', messageId: env.messageId, events: final });
      }
      // Partial events are out before the reply (a client handles them first, e.g. as MCP progress).
      // Those the turn emitted in its last moment are not written yet: they go out with the reply, in
      // front of it (a write fewer); the earlier ones are awaited first, so the order holds.
      if (env.replyStream && final.length) tail = effects.takeUnwritten(env.replyStream);
      await effects.flushEmits();
      if (env.replyStream && final.length) outbox.unshift({ kind: 'publish', stream: env.replyStream, events: final, notify: env.notify });
      if (env.lease) outbox.push({ kind: 'release', lease: env.lease });
      if (env.batchId) outbox.push(batchItem(env, final));
    }
    const set: Partial<ActorRecord> & { appliedSeq: string } = { appliedSeq: entry.entryId, outbox: encodeOutbox(storedOutbox(outbox, deps.names)), updatedAt: new Date() };
    if (next !== undefined) set.state = next;
    if (ownerId !== undefined) set.ownerId = ownerId;
    const committed = await storeCall(async () => {
      if (await timedCommit(store, ref.kind, observer, [_id, epoch, appliedSeq, set])) return true;
      // Refused: fenced, or an earlier attempt landed but its answer was lost (the store went away
      // mid-commit and the driver retried it). Only this drain writes this epoch with this entry id.
      return store.holds(_id, epoch, entry.entryId);
    });
    if (!committed) {
      if (fromResident) {
        logger.info({ actor: ref, epoch, entryId: entry.entryId }, 'resident copy of the actor was stale; handing it to a fresh drain');
        return 'stale';
      }
      logger.warn({ actor: ref, epoch, entryId: entry.entryId }, 'a newer drain owns this actor; stale turn discarded');
      return 'fenced';
    }
    appliedSeq = entry.entryId;
    state = next;
    if (env?.trace && firstTime) traceDone(final, [...env.trace, hop('committed')]);
    if (env && firstTime) appliedHere.set(env.messageId, final);
    if (ownerId !== undefined && !ownerCached) {
      ownerCached = true;
      redis.set(deps.names.owner(ref), ownerId, 'EX', OWNER_CACHE_TTL_SECONDS).catch(() => undefined);
    }
    // The standard effects (reply, applied marker, lease, the actor's own feed) and the mailbox delete
    // go out in one script; any others (messages to actors, schedules, batch progress) alongside it.
    const standard = new Set<OutboxItem>();
    const publishReply = outbox.find((i): i is Extract<OutboxItem, { kind: 'publish' }> => i.kind === 'publish' && i.stream === env?.replyStream);
    const applied = outbox.find((i): i is Extract<OutboxItem, { kind: 'applied' }> => i.kind === 'applied');
    const release = outbox.find((i): i is Extract<OutboxItem, { kind: 'release' }> => i.kind === 'release');
    const feedStream = deps.names.feed(ref);
    const feed = outbox.filter((i): i is Extract<OutboxItem, { kind: 'publish' }> => i.kind === 'publish' && i.stream === feedStream && i.notify === undefined);
    for (const item of [publishReply, applied, release, ...feed]) if (item) standard.add(item);
    const others = outbox.filter((i) => !standard.has(i));
    if (entries.length === 0) readAt = performance.now();
    const finishing = mailboxes.finish({
      actor: ref,
      entryId: entry.entryId,
      reply: publishReply && { stream: publishReply.stream, events: tail.length ? [...tail, ...publishReply.events] : publishReply.events, notify: publishReply.notify },
      applied: applied && { messageId: applied.messageId, events: final, ttlSeconds: APPLIED_TTL_SECONDS },
      lease: release?.lease,
      feed: feed.flatMap((item) => item.events),
      outboxDone: others.length === 0 && outbox.length > 0 ? { ttlSeconds: OUTBOX_MARK_TTL_SECONDS } : false,
      next: entries.length === 0 ? batchSize : 0,
      wakeable,
    });
    const notice = env && noticed.get(env.messageId);
    const withdrawn = notice ? notices.withdraw(ref, env!.messageId, notice) : undefined;
    const [more] = await Promise.all([finishing, effects.perform(others, ref), withdrawn]);
    if (entries.length === 0) entries = more;
    // Not awaited: losing the marker only means the (idempotent) effects are performed again.
    if (others.length) redis.set(deps.names.outboxDone(ref), entry.entryId, 'EX', OUTBOX_MARK_TTL_SECONDS).catch(() => undefined);
    deps.residents?.remember(_id, { epoch, appliedSeq, state, ownerId });
  }
  return 'drained';
}

/**
 * A traced message's hops go back in its `done` event (to the gateway that traces, and to the client),
 * stamped up to the commit; the reply leaves in the next round trip. Duplicates answered from the
 * applied marker keep the first answer's hops.
 */
function traceDone(final: StoredEvent[], trace: Hop[]) {
  const done = final.find((e) => e.e === 'done');
  if (done && typeof done.d === 'object' && done.d !== null) done.d = { ...(done.d as object), trace };
}

/** `store.commit`, timed for the commit-latency metric. */
async function timedCommit(store: ActorStore, kind: string, observer: RuntimeObserver, args: Parameters<ActorStore['commit']>): Promise<boolean> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  let applied: boolean;
  try {
    applied = await store.commit(...args);
  } catch (error) {
    observer.commitFinished(kind, 'failed', seconds());
    throw error;
  }
  observer.commitFinished(kind, applied ? 'applied' : 'conflict', seconds());
  return applied;
}

/**
 * Runs a turn that its owner may cancel (kinds with cancel routes): a message created before the last
 * cancel is refused without running; a running one is aborted when a cancel arrives.
 */
async function cancellableTurn(
  kind: ActorKind<unknown>,
  ref: ActorRef,
  env: Envelope,
  state: unknown,
  deps: DrainDeps,
  run: (cancel: AbortSignal | undefined) => Promise<TurnOutcome>,
): Promise<TurnOutcome> {
  if (!deps.cancels || !kind.cancels?.length) return run(undefined);
  const cancelledAt = await deps.cancels.cancelledAt(ref);
  if (cancelledAt !== undefined && env.createdAt < cancelledAt) return { state, final: [cancelledEvent()], effects: [] };
  const turn = deps.cancels.track(ref, env.createdAt);
  try {
    return await run(turn.signal);
  } finally {
    turn.done();
  }
}

/** `reply`, or the error's code (`turn_failed`, `cancelled`, …), for the per-turn debug line and metric. */
export const outcomeOf = (final: StoredEvent[]): string => (final[0]?.e === 'error' ? String((final[0].d as { code?: unknown } | null)?.code ?? 'error') : 'reply');

/** A batch message's result: counted once, kept for GET /batches/:id/results. */
export function batchItem(env: Envelope, final: StoredEvent[]): Extract<OutboxItem, { kind: 'batch' }> {
  const ok = final[0]?.e !== 'error';
  return { kind: 'batch', batchId: env.batchId!, messageId: env.messageId, ok, actorId: env.actor.id, outcome: ok ? { reply: final[0]?.d ?? null } : { error: final[0]?.d } };
}

/**
 * Takes the fence and completes the last committed turn's effects if a crash cut them short.
 *
 * `markerRead` is the outbox marker that came with the drain's first read, made before the fence. When
 * the fenced record's appliedSeq equals it, every turn committed up to the fence had its effects
 * performed before that read (each commit moves appliedSeq, and the marker follows the effects), so
 * the read stands. Otherwise a turn was committed since (a drain this fence has just stopped), or its
 * effects were cut short: the marker is read again, the effects completed, and the mailbox must be
 * read afresh (`readStands: false`). The record is created on first use only when `create`; without
 * it, an actor that has none is not fenced (undefined).
 */
async function fence(ref: ActorRef, _id: string, markerRead: string | null, deps: DrainDeps, create: boolean): Promise<{ resident: Resident; readStands: boolean } | undefined> {
  const record = create ? await deps.store.fence(_id, ref.kind, ref.id) : await deps.store.fenceExisting(_id);
  if (!record) return undefined;
  const resident = { epoch: record.epoch, appliedSeq: record.appliedSeq, state: record.state, ownerId: record.ownerId };
  if (record.appliedSeq === (markerRead ?? NO_TURN_APPLIED)) return { resident, readStands: true };
  const outboxDone = deps.names.outboxDone(ref);
  const outbox = outboxOf(record);
  const done = outbox.length ? await deps.redis.get(outboxDone) : record.appliedSeq;
  if (done !== record.appliedSeq) {
    await deps.effects.perform(outbox, ref);
    await deps.redis.set(outboxDone, record.appliedSeq, 'EX', OUTBOX_MARK_TTL_SECONDS);
  }
  return { resident, readStands: false };
}

/** The first reply's final events if this message was applied before, else null. */
async function appliedBefore(entry: MailboxEntry, env: Envelope, deps: DrainDeps): Promise<StoredEvent[] | null> {
  const raw = entry.appliedChecked ? entry.applied : await deps.redis.get(deps.names.applied(env.actor, env.messageId));
  return raw === null ? null : (safeJson(raw) as StoredEvent[]);
}

function safeJson(raw: string | undefined): unknown {
  try {
    return JSON.parse(raw ?? 'null');
  } catch {
    return null;
  }
}

export { errorEvent };
