/** Performs what turns ask for: live events now, committed effects (outbox) after the commit. */
import type { Queue } from 'bullmq';
import type { RedisClient } from '../../queues/redis-client.js';
import { Envelope, type ActorRef } from '../../queues/envelope.js';
import type { Mailboxes } from '../../queues/mailbox.js';
import { publishAll } from '../../queues/reply-stream.js';
import type { OutboxItem, StoredEvent } from '../../models/actor-record.js';
import type { Batches } from './batches.js';
import type { RedisNames } from '../../queues/keys.js';

/** How long an applied message is remembered: far longer than any redelivery of it can take. */
export const APPLIED_TTL_SECONDS = 24 * 60 * 60;

export class Effects {
  /** Partial events not yet written, per stream, in order (with the channel to tell); flushed together on the next tick. */
  private pending = new Map<string, { events: Array<{ e: string; d: unknown }>; notify?: string }>();
  private flushing: Promise<unknown> = Promise.resolve();
  private scheduled = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly mailboxes: Mailboxes,
    private readonly scheduleQueue: Queue,
    private readonly batches: Batches,
    private readonly names: RedisNames,
  ) {}

  /** Publishes a partial event soon (events emitted together go out in one write); order is kept. */
  emit(stream: string, event: string, data: unknown, notify?: string) {
    let list = this.pending.get(stream);
    if (!list) this.pending.set(stream, (list = { events: [], notify }));
    list.events.push({ e: event, d: data });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flushPending());
    }
  }

  private flushPending(): Promise<unknown> {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.flushing
      .then(() => Promise.all([...batch].map(([stream, { events, notify }]) => publishAll(this.redis, stream, events, notify))))
      .catch(() => undefined);
    return this.flushing;
  }

  /**
   * The partial events emitted to `stream` and not yet handed to Redis, taken out of the queue: the
   * caller writes them itself (the drain, in front of the reply). Those already on their way are not.
   */
  takeUnwritten(stream: string): Array<{ e: string; d: unknown }> {
    const list = this.pending.get(stream);
    if (!list) return [];
    this.pending.delete(stream);
    return list.events;
  }

  /** Resolves once every event emitted so far is written. */
  flushEmits(): Promise<unknown> {
    return this.pending.size ? this.flushPending() : this.flushing;
  }

  /**
   * Performs a committed turn's effects; they are independent of each other, so they go out together.
   * `actor`: whose turn it was (its applied markers live in its partition).
   */
  async perform(items: OutboxItem[], actor?: ActorRef): Promise<void> {
    await Promise.all(items.map((item) => this.performOne(item, items, actor)));
  }

  private async performOne(item: OutboxItem, items: OutboxItem[], actor: ActorRef | undefined): Promise<void> {
    switch (item.kind) {
      case 'publish':
        await publishAll(this.redis, item.stream, item.events, item.notify);
        return;
      case 'send':
        await this.mailboxes.post(Envelope.parse(item.envelope));
        return;
      case 'schedule': {
        const env = Envelope.parse(item.envelope);
        await this.scheduleQueue.add('deliver', env, { delay: item.delayMs, jobId: env.messageId, removeOnComplete: true, removeOnFail: 1000 });
        return;
      }
      case 'applied': {
        if (!actor) throw new Error(`applied marker of ${item.messageId} performed outside its actor's turn`);
        const events = item.events ?? publishedReply(items, this.names.replies(item.messageId));
        if (!events) throw new Error(`applied marker of ${item.messageId} has no events and its outbox publishes no reply for it`);
        await this.redis.set(this.names.applied(actor, item.messageId), JSON.stringify(events), 'EX', APPLIED_TTL_SECONDS);
        return;
      }
      case 'release':
        await this.redis.zrem(item.lease.key, item.lease.id);
        return;
      case 'batch':
        await this.batches.record(item.batchId, item.messageId, item.ok, { actorId: item.actorId, ...item.outcome });
        return;
    }
  }
}

/** The events an outbox publishes to `replyStream`: a stored applied marker's own events (see OutboxItem). */
export function publishedReply(items: OutboxItem[], replyStream: string): StoredEvent[] | undefined {
  for (const item of items) if (item.kind === 'publish' && item.stream === replyStream) return item.events;
  return undefined;
}

/**
 * The outbox as a commit stores it: an applied marker whose events are the reply the outbox publishes
 * to the message's reply stream is stored without them (performed from the reply; see OutboxItem).
 */
export function storedOutbox(items: OutboxItem[], names: Pick<RedisNames, 'replies'>): OutboxItem[] {
  return items.map((item) =>
    item.kind === 'applied' && item.events !== undefined && publishedReply(items, names.replies(item.messageId)) === item.events ? { kind: 'applied', messageId: item.messageId } : item,
  );
}
