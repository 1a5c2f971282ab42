/**
 * The persisted side of a stateful actor: its state plus the fencing fields (epoch, appliedSeq) and
 * the outbox of its last committed turn.
 */
import { Schema, type Connection, type Model } from 'mongoose';

export interface StoredEvent {
  e: string;
  d: unknown;
}

export type OutboxItem =
  /** `notify`: the pub/sub channel told of the new entries (the waiting gateway's). */
  | { kind: 'publish'; stream: string; events: StoredEvent[]; notify?: string }
  /** Remembers a message as applied, with its final events, so a duplicate is answered, not applied. */
  | { kind: 'applied'; messageId: string; events: StoredEvent[] }
  | { kind: 'send'; envelope: Record<string, unknown> }
  | { kind: 'schedule'; envelope: Record<string, unknown>; delayMs: number }
  | { kind: 'release'; lease: { key: string; id: string } }
  | { kind: 'batch'; batchId: string; messageId: string; ok: boolean };

export interface ActorRecord {
  _id: string;
  kind: string;
  actorId: string;
  ownerId?: string;
  epoch: number;
  /** Mailbox stream id of the last message applied ('0-0' before the first). */
  appliedSeq: string;
  state?: unknown;
  /** Effects of the last committed turn, performed after the commit. */
  outbox: OutboxItem[];
  createdAt: Date;
  updatedAt?: Date;
}

const schema = new Schema<ActorRecord>(
  {
    _id: { type: String, required: true },
    kind: { type: String, required: true },
    actorId: { type: String, required: true },
    ownerId: { type: String },
    epoch: { type: Number, required: true, default: 0 },
    appliedSeq: { type: String, required: true, default: '0-0' },
    state: { type: Schema.Types.Mixed },
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

/**
 * The two writes of the turn loop, on the driver collection (no mongoose casting on the hot path):
 * taking the fence, and the conditional commit.
 */
export class ActorStore {
  constructor(private readonly model: Model<ActorRecord>) {}

  /** Bumps the epoch (creating the record on first use) and returns the record as it now is. */
  async fence(_id: string, kind: string, actorId: string): Promise<ActorRecord> {
    const record = await this.model.collection.findOneAndUpdate(
      { _id } as never,
      { $inc: { epoch: 1 }, $setOnInsert: { kind, actorId, appliedSeq: '0-0', outbox: [], createdAt: new Date() } },
      { upsert: true, returnDocument: 'after' },
    );
    return record as unknown as ActorRecord;
  }

  /** Commits a turn if this drain still holds the fence and nobody applied the message meanwhile. */
  async commit(_id: string, epoch: number, previousSeq: string, set: Partial<ActorRecord>): Promise<boolean> {
    const result = await this.model.collection.updateOne({ _id, epoch, appliedSeq: previousSeq } as never, { $set: set });
    return result.matchedCount === 1;
  }
}

/** The states of a kind's actors matching `filter` (on `state.*` fields), newest first: for lobbies and listings. */
export async function actorStates<S>(connection: Connection, kind: string, filter: Record<string, unknown>, limit: number): Promise<S[]> {
  const records = await actorRecords(connection)
    .find({ kind, state: { $ne: null }, ...filter }, { state: 1, updatedAt: 1 })
    .sort({ updatedAt: -1 })
    .limit(limit)
    .lean();
  return records.map((r) => r.state as S);
}
