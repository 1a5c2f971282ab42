/**
 * The gateway's ActorClient: the same, plus an answer for everyone waiting on a reply when Redis lost
 * its data (see broker-reset.ts). Every reply wait of the gateway (JSON, SSE, MCP, batches) goes
 * through `replies`, so overriding it reaches them all.
 *
 * Before the waiters hear `broker_reset`, the actors they wait on are fenced: their epoch is bumped in
 * MongoDB, so a turn still running from before the loss fails its commit instead of applying a message
 * whose client is being told to retry it. The retry (same Idempotency-Key) is then the only one
 * applied. A turn that committed before the loss was noticed (under a second) is the exception: its
 * retry applies it again; only an Idempotency-Key remembered outside Redis could prevent that.
 */
import type { Model } from 'mongoose';
import { ActorClient, type SendInput, type Sent } from '../actors/runtime/client.js';
import { actorRecords, type ActorRecord } from '../models/actor-record.js';
import { refKey } from '../queues/envelope.js';
import type { ReplyEvent } from '../queues/reply-stream.js';
import { brokerResetEvent } from './broker-reset.js';

/** A message whose reply is followed right after it is posted (the route posts, then follows). */
const JUST_POSTED_MS = 5_000;
/** Streams posted but never followed are forgotten after this. */
export const POSTED_KEPT_MS = 60_000;
/** How long fencing may hold the answers back when MongoDB is slow. */
const FENCE_TIMEOUT_MS = 2_000;

interface Posted {
  /** Stateful actors only: services keep no state to fence. */
  actor?: string;
  /** The broker generation it was posted in. */
  generation: number;
  at: number;
}

interface Waiter {
  actor?: string;
  stop: AbortController;
  reset: boolean;
}

export interface BrokerResetAnswer {
  /** Waits ended with broker_reset. */
  answered: number;
  /** Actors fenced (their turns in flight can no longer commit). */
  actors: number;
  /** Why fencing failed, if it did. */
  error?: unknown;
}

type FollowOptions = Parameters<ActorClient['replies']>[1];

export class ResetAwareActorClient extends ActorClient {
  /** Bumped at every Redis data loss. */
  private generation = 0;
  private readonly posted = new Map<string, Posted>();
  private readonly waiters = new Set<Waiter>();
  private readonly records: Model<ActorRecord>;

  constructor(...args: ConstructorParameters<typeof ActorClient>) {
    super(...args);
    this.records = actorRecords(args[1]);
  }

  override async send(input: SendInput): Promise<Sent> {
    const sent = await super.send(input);
    // Batch items have no waiter to tell: their turns are left to finish.
    if (input.batchId !== undefined) return sent;
    const now = Date.now();
    this.posted.set(sent.replyStream, { actor: this.kind(input.actor.kind)?.stateful ? refKey(input.actor) : undefined, generation: this.generation, at: now });
    for (const [stream, posted] of this.posted) {
      if (posted.at > now - POSTED_KEPT_MS) break;
      this.posted.delete(stream);
    }
    return sent;
  }

  override async *replies(stream: string, options: FollowOptions = {}): AsyncGenerator<ReplyEvent> {
    const posted = this.posted.get(stream);
    this.posted.delete(stream);
    // Posted before a loss noticed since: its message is gone.
    if (posted && posted.generation < this.generation) {
      yield brokerResetEvent(options.lastEventId);
      return;
    }
    const waiter: Waiter = { actor: posted?.actor, stop: new AbortController(), reset: false };
    const { signal } = options;
    const onAbort = () => waiter.stop.abort();
    if (signal?.aborted) return;
    signal?.addEventListener('abort', onAbort, { once: true });
    this.waiters.add(waiter);
    let lastId = options.lastEventId;
    try {
      for await (const event of super.replies(stream, { ...options, signal: waiter.stop.signal })) {
        lastId = event.id;
        yield event;
      }
      if (waiter.reset) yield brokerResetEvent(lastId);
    } finally {
      this.waiters.delete(waiter);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Redis lost its data: fences the actors of the messages waited on (or just posted), then ends every
   * wait with `broker_reset`, even when fencing failed (MongoDB down or slow): an answer is owed.
   */
  async answerBrokerReset(): Promise<BrokerResetAnswer> {
    this.generation += 1;
    const waiters = [...this.waiters];
    const recent = Date.now() - JUST_POSTED_MS;
    const actors = new Set<string>();
    for (const w of waiters) if (w.actor) actors.add(w.actor);
    for (const p of this.posted.values()) if (p.actor && p.at >= recent) actors.add(p.actor);
    const fenced = actors.size > 0 ? await this.fence([...actors]) : { actors: 0 };
    for (const w of waiters) {
      w.reset = true;
      w.stop.abort();
    }
    return { answered: waiters.length, ...fenced };
  }

  /** Bumps the epoch of existing records only: an actor without one has no turn that could commit. */
  private async fence(ids: string[]): Promise<{ actors: number; error?: unknown }> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<{ actors: number; error: unknown }>((resolve) => {
      timer = setTimeout(() => resolve({ actors: 0, error: new Error(`fencing took longer than ${FENCE_TIMEOUT_MS} ms`) }), FENCE_TIMEOUT_MS);
    });
    const bump = this.records
      .updateMany({ _id: { $in: ids } }, { $inc: { epoch: 1 } })
      .exec()
      .then((result) => ({ actors: result.modifiedCount }), (error: unknown) => ({ actors: 0, error }));
    try {
      return await Promise.race([bump, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
