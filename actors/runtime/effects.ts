/** Performs what turns ask for: live events now, committed effects (outbox) after the commit. */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { Envelope } from '../../queues/envelope.js';
import type { Mailboxes } from '../../queues/mailbox.js';
import { publish } from '../../queues/reply-stream.js';
import type { OutboxItem } from '../../models/actor-record.js';
import type { Batches } from './batches.js';
import type { RedisNames } from '../../queues/keys.js';

/** How long an applied message is remembered: far longer than any redelivery of it can take. */
export const APPLIED_TTL_SECONDS = 24 * 60 * 60;

export class Effects {
  private emitting: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly redis: Redis,
    private readonly mailboxes: Mailboxes,
    private readonly scheduleQueue: Queue,
    private readonly batches: Batches,
    private readonly names: RedisNames,
  ) {}

  /** Publishes a partial event; events of one drain keep their order. */
  emit(stream: string, event: string, data: unknown) {
    this.emitting = this.emitting.then(() => publish(this.redis, stream, event, data)).catch(() => undefined);
  }

  flushEmits(): Promise<unknown> {
    return this.emitting;
  }

  async perform(items: OutboxItem[]): Promise<void> {
    for (const item of items) {
      switch (item.kind) {
        case 'publish':
          for (const ev of item.events) await publish(this.redis, item.stream, ev.e, ev.d);
          break;
        case 'send':
          await this.mailboxes.post(Envelope.parse(item.envelope));
          break;
        case 'schedule': {
          const env = Envelope.parse(item.envelope);
          await this.scheduleQueue.add('deliver', env, { delay: item.delayMs, jobId: env.messageId, removeOnComplete: true, removeOnFail: 1000 });
          break;
        }
        case 'applied':
          await this.redis.set(this.names.applied(item.messageId), JSON.stringify(item.events), 'EX', APPLIED_TTL_SECONDS);
          break;
        case 'release':
          await this.redis.zrem(item.lease.key, item.lease.id);
          break;
        case 'batch':
          await this.batches.record(item.batchId, item.messageId, item.ok);
          break;
      }
    }
  }
}
