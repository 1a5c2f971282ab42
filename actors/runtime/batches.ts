/**
 * Queue-driven batch jobs: a batch is many messages posted together; each finished message is counted
 * exactly once (a unique item per message), and progress is published to the batch's event stream.
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../queues/redis-client.js';
import { Types, type Connection, type Model } from 'mongoose';
import type { RedisNames } from '../../queues/keys.js';
import { publish } from '../../queues/reply-stream.js';
import { batchModels, type BatchItemRecord, type BatchRecord } from '../../models/batch.js';

export interface BatchProgress {
  batchId: string;
  total: number;
  done: number;
  failed: number;
  finished: boolean;
}

export const progressOf = (b: BatchRecord): BatchProgress => ({
  batchId: b._id,
  total: b.total,
  done: b.done,
  failed: b.failed,
  finished: b.done + b.failed >= b.total,
});

export interface BatchResults {
  batchId: string;
  results: Array<{ messageId: string; actorId: string | null; ok: boolean; reply?: unknown; error?: unknown; finishedAt: Date | null }>;
  /** Cursor of the next page (`?after=`), or null on the last. */
  next: string | null;
}

export class Batches {
  private readonly batches: Model<BatchRecord>;
  private readonly items: Model<BatchItemRecord>;

  constructor(
    connection: Connection,
    private readonly redis: RedisClient,
    private readonly names: RedisNames,
  ) {
    ({ batches: this.batches, items: this.items } = batchModels(connection));
  }

  async create(ownerId: string, kind: string, total: number): Promise<string> {
    const id = randomUUID();
    await this.batches.create({ _id: id, ownerId, kind, total, done: 0, failed: 0, createdAt: new Date() });
    return id;
  }

  async get(batchId: string, ownerId: string): Promise<BatchProgress | undefined> {
    const b = await this.batches.findOne({ _id: batchId, ownerId }).lean().exec();
    return b ? progressOf(b as BatchRecord) : undefined;
  }

  /**
   * The finished messages of a batch, in the order they finished, a page at a time: `after` is the
   * `next` cursor of the previous page. Undefined for an unknown batch or another owner's.
   */
  async results(batchId: string, ownerId: string, page: { after?: string; limit: number }): Promise<BatchResults | undefined> {
    if (!(await this.batches.exists({ _id: batchId, ownerId }))) return undefined;
    const filter: Record<string, unknown> = { batchId };
    if (page.after !== undefined) filter._id = { $gt: new Types.ObjectId(page.after) };
    const items = await this.items.find(filter).sort({ _id: 1 }).limit(page.limit + 1).lean().exec();
    const shown = items.slice(0, page.limit);
    return {
      batchId,
      results: shown.map((item) => ({
        messageId: item.messageId,
        actorId: item.actorId ?? null,
        ok: item.ok,
        ...(item.ok ? { reply: item.reply ?? null } : { error: item.error ?? null }),
        finishedAt: item.finishedAt ?? null,
      })),
      next: items.length > page.limit ? String((shown.at(-1) as { _id: unknown })._id) : null,
    };
  }

  /** Counts one finished message (again: a no-op), keeps its result, and publishes the new progress. */
  async record(batchId: string, messageId: string, ok: boolean, result: { actorId?: string; reply?: unknown; error?: unknown } = {}): Promise<void> {
    try {
      await this.items.create({ batchId, messageId, ok, ...result, finishedAt: new Date() });
    } catch (e) {
      if ((e as { code?: number }).code === 11000) return;
      throw e;
    }
    const b = (await this.batches
      .findOneAndUpdate({ _id: batchId }, { $inc: ok ? { done: 1 } : { failed: 1 } }, { returnDocument: 'after', lean: true })
      .exec()) as BatchRecord | null;
    if (!b) return;
    const progress = progressOf(b);
    await publish(this.redis, this.names.batchEvents(batchId), 'progress', progress);
    if (progress.finished) {
      await this.batches.updateOne({ _id: batchId, finishedAt: { $exists: false } }, { $set: { finishedAt: new Date() } }).exec();
      await publish(this.redis, this.names.batchEvents(batchId), 'done', progress);
    }
  }
}
