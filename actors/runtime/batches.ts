/**
 * Queue-driven batch jobs: a batch is many messages posted together; each finished message is counted
 * exactly once (a unique item per message), and progress is published to the batch's event stream.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Connection, Model } from 'mongoose';
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

export class Batches {
  private readonly batches: Model<BatchRecord>;
  private readonly items: Model<BatchItemRecord>;

  constructor(
    connection: Connection,
    private readonly redis: Redis,
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

  /** Counts one finished message (again: a no-op) and publishes the new progress. */
  async record(batchId: string, messageId: string, ok: boolean): Promise<void> {
    try {
      await this.items.create({ batchId, messageId, ok });
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
