/**
 * The persisted side of a stateful actor: its state plus the fencing fields (epoch, appliedSeq) and
 * the outbox of its last committed turn.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from './model-on.js';

export interface StoredEvent {
  e: string;
  d: unknown;
}

export type OutboxItem =
  /** `notify`: the pub/sub channel told of the new entries (the waiting gateway's). */
  | { kind: 'publish'; stream: string; events: StoredEvent[]; notify?: string }
  /**
   * Remembers a message as applied, with its final events, so a duplicate is answered, not applied.
   * Without `events`, they are those the outbox publishes to the message's reply stream: a reply is
   * stored once in the record, not twice.
   */
  | { kind: 'applied'; messageId: string; events?: StoredEvent[] }
  | { kind: 'send'; envelope: Record<string, unknown> }
  | { kind: 'schedule'; envelope: Record<string, unknown>; delayMs: number }
  | { kind: 'release'; lease: { key: string; id: string } }
  | { kind: 'batch'; batchId: string; messageId: string; ok: boolean; actorId?: string; outcome?: { reply?: unknown; error?: unknown } };

/**
 * An outbox as a commit writes it: the items as one JSON string. MongoDB never looks inside an outbox,
 * and a string is one copy to encode and decode, where the items as documents (a game move's holds two
 * views of the board) cost a walk over every field in the worker and in the server at each commit.
 * Records committed before hold the items as documents; `outboxOf` reads both.
 */
export type StoredOutbox = string | OutboxItem[];

export const encodeOutbox = (items: OutboxItem[]): string => JSON.stringify(items);

export function outboxOf(record: Pick<ActorRecord, 'outbox'>): OutboxItem[] {
  const stored = record.outbox as StoredOutbox | undefined;
  return typeof stored === 'string' ? (JSON.parse(stored) as OutboxItem[]) : (stored ?? []);
}

/** A record's appliedSeq before its first turn: below every mailbox stream id. */
export const NO_TURN_APPLIED = '0-0';

export interface ActorRecord {
  _id: string;
  kind: string;
  actorId: string;
  ownerId?: string;
  epoch: number;
  /** Mailbox stream id of the last message applied ('0-0' before the first). */
  appliedSeq: string;
  state?: unknown;
  /** Effects of the last committed turn, performed after the commit (see `StoredOutbox`). */
  outbox: StoredOutbox;
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
    appliedSeq: { type: String, required: true, default: NO_TURN_APPLIED },
    state: { type: Schema.Types.Mixed },
    outbox: { type: Schema.Types.Mixed, default: () => [] },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date },
  },
  { collection: 'actors', versionKey: false, minimize: false },
);
schema.index({ kind: 1, ownerId: 1 });

export function actorRecords(connection: Connection): Model<ActorRecord> {
  return modelOn<ActorRecord>(connection, 'ActorRecord', schema);
}

/**
 * The two writes of the turn loop, on the driver collection (no mongoose casting on the hot path):
 * taking the fence, and the conditional commit.
 *
 * Group commit: commits issued in the same turn of the event loop (by drains of different actors)
 * go to MongoDB as one unordered bulk write. Each stays conditional on its own `{ _id, epoch,
 * appliedSeq }`. When fewer matched than were sent, the records are read back: a commit applied
 * exactly when its record now carries its epoch and its new appliedSeq, a pair no other drain writes.
 */
export class ActorStore {
  private batch: PendingCommit[] = [];

  constructor(private readonly model: Model<ActorRecord>) {}

  /** Bumps the epoch (creating the record on first use) and returns the record as it now is. */
  async fence(_id: string, kind: string, actorId: string): Promise<ActorRecord> {
    const record = await this.model.collection.findOneAndUpdate(
      { _id } as never,
      { $inc: { epoch: 1 }, $setOnInsert: { kind, actorId, appliedSeq: NO_TURN_APPLIED, outbox: [], createdAt: new Date() } },
      { upsert: true, returnDocument: 'after' },
    );
    return record as unknown as ActorRecord;
  }

  /** As `fence`, for an actor that has a record already: null when it has none (and none is made). */
  async fenceExisting(_id: string): Promise<ActorRecord | null> {
    const record = await this.model.collection.findOneAndUpdate({ _id } as never, { $inc: { epoch: 1 } }, { returnDocument: 'after' });
    return record as unknown as ActorRecord | null;
  }

  /** Commits a turn if this drain still holds the fence and nobody applied the message meanwhile. */
  commit(_id: string, epoch: number, previousSeq: string, set: Partial<ActorRecord> & { appliedSeq: string }): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.batch.push({ _id, epoch, previousSeq, set, resolve, reject });
      if (this.batch.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush() {
    const batch = this.batch;
    this.batch = [];
    const collection = this.model.collection;
    if (batch.length === 1) {
      await this.commitOne(batch[0]);
      return;
    }
    try {
      const result = await collection.bulkWrite(
        batch.map((c) => ({ updateOne: { filter: { _id: c._id, epoch: c.epoch, appliedSeq: c.previousSeq } as never, update: { $set: c.set } } })),
        { ordered: false },
      );
      if (result.matchedCount === batch.length) {
        for (const c of batch) c.resolve(true);
        return;
      }
      const applied = await this.appliedOf(batch);
      for (const c of batch) c.resolve(applied.has(c));
    } catch {
      // One bad commit (say, a state over MongoDB's 16 MB) must not fail the others: those the bulk
      // write applied are found by reading back; the rest are tried one by one, each with its own outcome.
      const applied = await this.appliedOf(batch).catch(() => new Set<PendingCommit>());
      for (const c of batch) {
        if (applied.has(c)) c.resolve(true);
        else await this.commitOne(c);
      }
    }
  }

  private commitOne(c: PendingCommit): Promise<void> {
    return this.model.collection.updateOne({ _id: c._id, epoch: c.epoch, appliedSeq: c.previousSeq } as never, { $set: c.set }).then(
      (result) => c.resolve(result.matchedCount === 1),
      (error: unknown) => c.reject(error),
    );
  }

  /**
   * Whether the record carries `epoch` and `appliedSeq`: the commit that wrote them is in MongoDB (a
   * pair only that commit writes). Asked when a commit is refused after its answer may have been lost.
   */
  async holds(_id: string, epoch: number, appliedSeq: string): Promise<boolean> {
    return (await this.model.collection.countDocuments({ _id, epoch, appliedSeq } as never, { limit: 1 })) === 1;
  }

  /** The commits of `batch` that are in MongoDB: their record carries their epoch and their new appliedSeq. */
  private async appliedOf(batch: PendingCommit[]): Promise<Set<PendingCommit>> {
    const records = await this.model.collection.find({ _id: { $in: batch.map((c) => c._id) } } as never, { projection: { epoch: 1, appliedSeq: 1 } }).toArray();
    const now = new Map(records.map((r) => [String(r._id), r as unknown as Pick<ActorRecord, 'epoch' | 'appliedSeq'>]));
    return new Set(batch.filter((c) => now.get(c._id)?.epoch === c.epoch && now.get(c._id)?.appliedSeq === c.set.appliedSeq));
  }
}

interface PendingCommit {
  _id: string;
  epoch: number;
  previousSeq: string;
  set: Partial<ActorRecord> & { appliedSeq: string };
  resolve(applied: boolean): void;
  reject(error: unknown): void;
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
