/**
 * A drain: the job that runs an actor's pending messages, one turn at a time, in mailbox order.
 *
 * Fencing: every drain starts by incrementing the actor's epoch, and every commit is a conditional
 * update on `{ _id, epoch, appliedSeq }`. A zombie drain (one BullMQ ran twice after a stall) loses
 * the race at its first commit and stops; nothing it computed is applied.
 * At most once: a committed message is deleted from the mailbox, and its outbox remembers it in Redis
 * as applied (with its final events), so a copy of it — left by a crash before the delete, or sent
 * twice by another actor's outbox — is answered with the first reply instead of being applied again.
 * Idempotency keys are settled by the gateway before anything is posted.
 * Effects of a committed turn (reply events, outgoing messages, lease release) are stored with the
 * commit (outbox) and performed after it; a Redis marker records the last turn whose effects all
 * happened. A drain that finds an outbox without that marker (a crash right after a commit) performs
 * it again, which is safe because every effect is idempotent.
 */
import type { Redis } from 'ioredis';
import { Envelope, refKey, type ActorRef } from '../../queues/envelope.js';
import type { RedisNames } from '../../queues/keys.js';
import type { ActorRecord, ActorStore, OutboxItem, StoredEvent } from '../../models/actor-record.js';
import type { ActorKind, Logger } from './contract.js';
import { errorEvent, runTurn, TurnAborted } from './turn.js';
import type { Effects } from './effects.js';

export interface DrainDeps {
  redis: Redis;
  names: RedisNames;
  store: ActorStore;
  effects: Effects;
  logger: Logger;
  /** Aborts a running turn (shutdown grace period over). */
  signal: AbortSignal;
  /** Set when the worker is stopping: finish the current turn, start no other. */
  stopping?: AbortSignal;
  /** Messages read from the mailbox per round trip. */
  batchSize?: number;
}

export type DrainResult = 'drained' | 'fenced' | 'interrupted';

const NEXT_OR_DELETE = `
local entries = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', ARGV[1])
if #entries == 0 then redis.call('DEL', KEYS[1]) end
return entries`;

/** The marker only has to outlive the gap between a commit and the next drain of the actor. */
const OUTBOX_MARK_TTL_SECONDS = 7 * 24 * 60 * 60;
const OWNER_CACHE_TTL_SECONDS = 24 * 60 * 60;

export async function drainActor(kind: ActorKind<unknown>, ref: ActorRef, deps: DrainDeps): Promise<DrainResult> {
  const { redis, store, effects, logger } = deps;
  const _id = refKey(ref);
  const mailbox = deps.names.mailbox(ref);
  const record = await store.fence(_id, ref.kind, ref.id);
  const epoch = record.epoch;
  let appliedSeq = record.appliedSeq;
  let state = record.state;
  let ownerId = record.ownerId;

  // The last committed turn's effects may not all have happened (a crash right after its commit).
  const outboxDone = deps.names.outboxDone(ref);
  const done = record.outbox?.length ? await redis.get(outboxDone) : appliedSeq;
  if (done !== appliedSeq) {
    await effects.perform(record.outbox);
    await redis.set(outboxDone, appliedSeq, 'EX', OUTBOX_MARK_TTL_SECONDS);
  }

  const stop = () => deps.signal.aborted || deps.stopping?.aborted === true;
  for (;;) {
    if (stop()) return 'interrupted';
    // Applied entries are deleted after their commit, so the mailbox holds only what is still to do
    // (and, after a crash between commit and delete, one entry its applied marker answers).
    // Reading from the start, not after appliedSeq, keeps working if a recreated stream's ids restart lower.
    // Reads the next entries, and removes the stream key when there are none (an empty stream would
    // stay in Redis for good), atomically so a message posted meanwhile is never lost.
    const entries = (await redis.eval(NEXT_OR_DELETE, 1, mailbox, String(deps.batchSize ?? 50))) as Array<[string, string[]]>;
    if (entries.length === 0) break;
    for (const [entryId, fields] of entries) {
      if (stop()) return 'interrupted';
      const parsed = Envelope.safeParse(safeJson(fields[fields.indexOf('env') + 1]));
      let next = state;
      const outbox: OutboxItem[] = [];
      if (!parsed.success) {
        logger.warn({ actor: ref, entryId, issues: parsed.error.issues }, 'malformed envelope in mailbox; skipped');
      } else {
        const env = parsed.data;
        const earlier = await redis.get(deps.names.applied(env.messageId));
        let final: StoredEvent[];
        if (earlier !== null) {
          // A duplicate (an outbox delivered twice): answered with the first reply, not applied.
          final = safeJson(earlier) as StoredEvent[];
        } else {
          try {
            const outcome = await runTurn({
              kind,
              ref,
              state,
              ownerId,
              env,
              emit: (event, data) => {
                if (env.replyStream) effects.emit(env.replyStream, event, data);
              },
              feedStream: deps.names.feed(ref),
              signal: deps.signal,
              logger,
            });
            next = outcome.state;
            final = outcome.final;
            outbox.push(...outcome.effects);
          } catch (err) {
            if (err instanceof TurnAborted) return 'interrupted';
            throw err;
          }
          if (ownerId === undefined && final[0]?.e !== 'error') ownerId = env.ownerId;
          outbox.unshift({ kind: 'applied', messageId: env.messageId, events: final });
        }
        await effects.flushEmits();
        if (env.replyStream && final.length) outbox.unshift({ kind: 'publish', stream: env.replyStream, events: final });
        if (env.lease) outbox.push({ kind: 'release', lease: env.lease });
        if (env.batchId) outbox.push({ kind: 'batch', batchId: env.batchId, messageId: env.messageId, ok: final[0]?.e !== 'error' });
      }
      const set: Partial<ActorRecord> = { appliedSeq: entryId, outbox, updatedAt: new Date() };
      if (next !== undefined) set.state = next;
      if (ownerId !== undefined) set.ownerId = ownerId;
      if (!(await store.commit(_id, epoch, appliedSeq, set))) {
        logger.warn({ actor: ref, epoch, entryId }, 'a newer drain owns this actor; stale turn discarded');
        return 'fenced';
      }
      appliedSeq = entryId;
      state = next;
      if (ownerId !== undefined && record.ownerId === undefined) {
        record.ownerId = ownerId;
        redis.set(deps.names.owner(ref), ownerId, 'EX', OWNER_CACHE_TTL_SECONDS).catch(() => undefined);
      }
      // Out of the mailbox before anyone hears the reply (one connection keeps the order, so issuing both
      // now is enough): a client that got the reply sees the actor idle.
      await Promise.all([redis.xdel(mailbox, entryId), effects.perform(outbox)]);
      // Not awaited: losing the marker only means the (idempotent) effects are performed again.
      if (outbox.length) redis.set(outboxDone, entryId, 'EX', OUTBOX_MARK_TTL_SECONDS).catch(() => undefined);
    }
  }
  return 'drained';
}

function safeJson(raw: string | undefined): unknown {
  try {
    return JSON.parse(raw ?? 'null');
  } catch {
    return null;
  }
}

export { errorEvent };
