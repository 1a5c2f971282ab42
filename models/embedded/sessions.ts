/** Logical sessions and their multi-document transactions (snapshot reads, write sets, write locks). */
import { Binary } from 'bson';
import { type SnapshotHolder } from './store/engine.js';
import { type IndexSpec } from './store/indexes.js';
import { isPlainObject, type Doc } from './values.js';

export type TransactionState = 'active' | 'committed' | 'aborted';

export class Transaction implements SnapshotHolder {
  state: TransactionState = 'active';
  abortReason?: string;
  /** Uncommitted writes by namespace, then id key (null = deleted). */
  readonly writes = new Map<string, { db: string; coll: string; docs: Map<string, Doc | null> }>();
  /** Collections (with their indexes) this transaction creates; they appear to others at commit. */
  readonly createdCollections = new Map<string, { db: string; coll: string; indexes: IndexSpec[] }>();
  /** Committed versions as they were when this transaction started, for documents changed since. */
  readonly preserved = new Map<string, Map<string, Doc | null>>();
  readonly startedAt = Date.now();
  readonly done: Promise<void>;
  private finish!: () => void;

  constructor(
    readonly session: Session,
    readonly txnNumber: number,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  preserve(ns: string, idKey: string, before: Doc | null) {
    let m = this.preserved.get(ns);
    if (!m) this.preserved.set(ns, (m = new Map()));
    if (!m.has(idKey)) m.set(idKey, before);
  }

  writeSet(db: string, coll: string) {
    const ns = `${db}.${coll}`;
    let w = this.writes.get(ns);
    if (!w) this.writes.set(ns, (w = { db, coll, docs: new Map() }));
    return w.docs;
  }

  end(state: 'committed' | 'aborted', reason?: string) {
    this.state = state;
    this.abortReason = reason;
    this.finish();
  }
}

export class Session {
  lastUsed = Date.now();
  txnNumber = -1;
  transaction?: Transaction;
  /** The reply to the latest retryable write, so a retry with the same txnNumber is not applied twice. */
  lastRetryable?: { txnNumber: number; reply: Doc };

  constructor(
    readonly id: string,
    readonly lsid: Doc,
  ) {}
}

export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();

  static keyOf(lsid: unknown): string | undefined {
    if (!isPlainObject(lsid)) return undefined;
    const id = lsid.id;
    return id instanceof Binary ? Buffer.from(id.buffer).toString('hex') : undefined;
  }

  get(lsid: unknown): Session | undefined {
    const key = SessionRegistry.keyOf(lsid);
    if (!key) return undefined;
    let s = this.sessions.get(key);
    if (!s) this.sessions.set(key, (s = new Session(key, lsid as Doc)));
    s.lastUsed = Date.now();
    return s;
  }

  /** Ends sessions; returns their open transactions so the caller can abort them. */
  end(lsids: unknown[]): Transaction[] {
    const open: Transaction[] = [];
    for (const lsid of lsids) {
      const key = SessionRegistry.keyOf(lsid);
      const s = key ? this.sessions.get(key) : undefined;
      if (!s) continue;
      if (s.transaction?.state === 'active') open.push(s.transaction);
      this.sessions.delete(s.id);
    }
    return open;
  }

  *all(): Iterable<Session> {
    yield* this.sessions.values();
  }

  forget(olderThanMs: number) {
    const cutoff = Date.now() - olderThanMs;
    for (const [k, s] of this.sessions) if (s.lastUsed < cutoff && s.transaction?.state !== 'active') this.sessions.delete(k);
  }
}
