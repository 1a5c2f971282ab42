/**
 * The persisted side of a stateful actor: its state plus the fencing fields (epoch, appliedSeq), the
 * replies it recently gave (for duplicate messages) and the outbox of its last committed turn.
 */
import { Schema, type Connection, type Model } from 'mongoose';

export interface StoredEvent {
  e: string;
  d: unknown;
}

export type OutboxItem =
  | { kind: 'publish'; stream: string; events: StoredEvent[] }
  | { kind: 'send'; envelope: Record<string, unknown> }
  | { kind: 'schedule'; envelope: Record<string, unknown>; delayMs: number }
  | { kind: 'release'; lease: { key: string; id: string } }
  | { kind: 'batch'; batchId: string; messageId: string; ok: boolean };

export interface RememberedReply {
  messageId: string;
  idempotencyKey?: string;
  events: StoredEvent[];
}

export interface ActorRecord {
  _id: string;
  kind: string;
  actorId: string;
  ownerId?: string;
  epoch: number;
  /** Mailbox stream id of the last message applied ('0-0' before the first). */
  appliedSeq: string;
  state?: unknown;
  replies: RememberedReply[];
  outbox: OutboxItem[];
  createdAt: Date;
  updatedAt?: Date;
}

/** How many recent replies an actor keeps to answer duplicates of its messages. */
export const REMEMBERED_REPLIES = 50;

const schema = new Schema<ActorRecord>(
  {
    _id: { type: String, required: true },
    kind: { type: String, required: true },
    actorId: { type: String, required: true },
    ownerId: { type: String },
    epoch: { type: Number, required: true, default: 0 },
    appliedSeq: { type: String, required: true, default: '0-0' },
    state: { type: Schema.Types.Mixed },
    replies: { type: Schema.Types.Mixed, default: () => [] },
    outbox: { type: Schema.Types.Mixed, default: () => [] },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date },
  },
  { collection: 'actors', versionKey: false, minimize: false },
);
schema.index({ kind: 1, ownerId: 1 });

export function actorRecords(connection: Connection): Model<ActorRecord> {
  return (connection.models.ActorRecord as Model<ActorRecord> | undefined) ?? connection.model<ActorRecord>('ActorRecord', schema);
}
