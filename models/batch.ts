/** Batch jobs: many messages enqueued together, with progress counted once per message. */
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from './model-on.js';

export interface BatchRecord {
  _id: string;
  ownerId: string;
  kind: string;
  total: number;
  done: number;
  failed: number;
  createdAt: Date;
  finishedAt?: Date;
}

export interface BatchItemRecord {
  batchId: string;
  messageId: string;
  ok: boolean;
  /** The actor the message went to (a service's requests: `service`). */
  actorId?: string;
  /** The message's reply, or its error `{code, message, details}`. */
  reply?: unknown;
  error?: unknown;
  finishedAt?: Date;
}

const batchSchema = new Schema<BatchRecord>(
  {
    _id: { type: String, required: true },
    ownerId: { type: String, required: true, index: true },
    kind: { type: String, required: true },
    total: { type: Number, required: true },
    done: { type: Number, required: true, default: 0 },
    failed: { type: Number, required: true, default: 0 },
    createdAt: { type: Date, required: true },
    finishedAt: { type: Date },
  },
  { collection: 'batches', versionKey: false },
);

const itemSchema = new Schema<BatchItemRecord>(
  {
    batchId: { type: String, required: true },
    messageId: { type: String, required: true },
    ok: { type: Boolean, required: true },
    actorId: { type: String },
    reply: { type: Schema.Types.Mixed },
    error: { type: Schema.Types.Mixed },
    finishedAt: { type: Date },
  },
  { collection: 'batch_items', versionKey: false },
);
itemSchema.index({ batchId: 1, messageId: 1 }, { unique: true });

export function batchModels(connection: Connection): { batches: Model<BatchRecord>; items: Model<BatchItemRecord> } {
  return {
    batches: modelOn<BatchRecord>(connection, 'Batch', batchSchema),
    items: modelOn<BatchItemRecord>(connection, 'BatchItem', itemSchema),
  };
}
