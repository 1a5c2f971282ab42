/**
 * Posting a message: append it to the actor's mailbox (a Redis Stream, so arrival order is kept across
 * every gateway), then make sure one drain job exists for the actor. Deduplication with
 * keepLastIfActive keeps at most one active and one waiting drain per actor.
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { refKey, type ActorRef, type Envelope } from './envelope.js';
import type { RedisNames } from './keys.js';

export class Mailboxes {
  private readonly drainQueues = new Map<string, Queue>();

  constructor(
    private readonly redis: Redis,
    private readonly connection: Redis,
    private readonly names: RedisNames,
  ) {}

  drainQueue(kind: string): Queue {
    let q = this.drainQueues.get(kind);
    if (!q) this.drainQueues.set(kind, (q = new Queue(this.names.actorQueue(kind), { connection: this.connection })));
    return q;
  }

  async post(env: Envelope): Promise<string> {
    const entryId = (await this.redis.xadd(this.names.mailbox(env.actor), '*', 'env', JSON.stringify(env))) as string;
    await this.requestDrain(env.actor);
    return entryId;
  }

  /** Ensures a drain job for the actor (a no-op when one is waiting already). */
  async requestDrain(actor: ActorRef): Promise<void> {
    await this.drainQueue(actor.kind).add(
      'drain',
      actor,
      { deduplication: { id: refKey(actor), keepLastIfActive: true }, removeOnComplete: true, removeOnFail: 1000 },
    );
  }

  /** Messages waiting in the actor's mailbox (applied ones are trimmed away). */
  pending(actor: ActorRef): Promise<number> {
    return this.redis.xlen(this.names.mailbox(actor));
  }

  async close() {
    await Promise.all([...this.drainQueues.values()].map((q) => q.close()));
  }
}
