/**
 * How a command sees and changes one collection: directly (committed state, each write applied at once)
 * or through a transaction (its snapshot plus its own uncommitted writes, conflicts detected).
 * Commands are written once against `CollectionAccess`.
 */
import { writeConflict } from './errors.js';
import { type ServerMetrics } from './metrics.js';
import { compileFilter } from './query/filter.js';
import { plan } from './query/planner.js';
import { emptyReport, planIds, runPlan, type ScanOptions, type ScanReport } from './query/scan.js';
import { noTextIndexCollection, splitTextFilter, textIndexRequired, textSearch, type TextFilter, type TextSearchStats } from './query/text.js';
import { duplicateIdError, ID_INDEX, idKeyOf, type Collection } from './store/collection.js';
import { lockKey, type Engine } from './store/engine.js';
import { type IndexSpec } from './store/indexes.js';
import { type Transaction } from './sessions.js';
import { isTextSpec, TextSpec } from './text/spec.js';
import { type Doc } from './values.js';

export interface FindOptions extends ScanOptions {
  /** Receives the plan and what it examined (explain). */
  report?: ScanReport;
  /** Receives each returned document's text score when the filter has a `$text` clause. */
  textScores?: Map<Doc, number>;
  /** Receives what a `$text` search examined (explain). */
  textStats?: TextSearchStats;
}

export interface CollectionAccess {
  readonly db: string;
  readonly name: string;
  readonly ns: string;
  exists(): boolean;
  /**
   * Matching documents, in the order of the plan's index or else natural order. With `sortLimit`, the
   * documents the sort needs (a superset of its first `count`), not every match.
   */
  find(filter: Doc | undefined, options?: FindOptions): Doc[];
  indexSpecs(): IndexSpec[];
  insert(doc: Doc): void;
  replace(before: Doc, after: Doc): void;
  remove(doc: Doc): void;
  /** An open transaction holding a lock on one of these documents (a direct write must wait for it). */
  blockedBy(docs: Doc[]): Transaction | undefined;
}

export class DirectAccess implements CollectionAccess {
  readonly ns: string;
  constructor(
    private readonly engine: Engine,
    private readonly metrics: ServerMetrics,
    readonly db: string,
    readonly name: string,
  ) {
    this.ns = `${db}.${name}`;
  }

  private get coll(): Collection | undefined {
    return this.engine.collection(this.db, this.name);
  }

  exists() {
    return this.coll !== undefined;
  }

  indexSpecs(): IndexSpec[] {
    return this.coll?.specs() ?? [];
  }

  find(filter: Doc | undefined, options: FindOptions = {}): Doc[] {
    const coll = this.coll;
    const text = splitTextFilter(filter);
    if (text) return this.findText(coll, text, options);
    const report = options.report ?? emptyReport();
    const p = plan(coll, filter, options.sortLimit?.sort);
    report.plan = p;
    if (!coll) return [];
    const docs = runPlan(coll, p, filter, options, report);
    this.metrics.examined(report);
    return docs;
  }

  private findText(coll: Collection | undefined, text: TextFilter, options: FindOptions): Doc[] {
    if (!coll) throw noTextIndexCollection(this.ns);
    const index = coll.textIndex();
    if (!index) throw textIndexRequired();
    const stats = options.textStats ?? { keysExamined: 0, docsExamined: 0 };
    const docs = textSearch({ spec: index.text, index, fetch: (idKey) => coll.docs.get(idKey) }, text, { ...options, stats });
    this.metrics.examined(stats);
    return docs;
  }

  insert(doc: Doc) {
    this.engine.put(this.engine.ensureCollection(this.db, this.name), doc, true);
  }

  replace(_before: Doc, after: Doc) {
    this.engine.put(this.engine.ensureCollection(this.db, this.name), after, false);
  }

  remove(doc: Doc) {
    const coll = this.coll;
    if (coll) this.engine.remove(coll, idKeyOf(doc));
  }

  blockedBy(docs: Doc[]): Transaction | undefined {
    if (this.engine.locks.size === 0) return undefined;
    for (const doc of docs) {
      const owner = this.engine.locks.get(lockKey(this.ns, idKeyOf(doc)));
      if (owner) return owner as Transaction;
    }
    return undefined;
  }
}

export class TransactionAccess implements CollectionAccess {
  readonly ns: string;
  constructor(
    private readonly engine: Engine,
    private readonly metrics: ServerMetrics,
    private readonly txn: Transaction,
    readonly db: string,
    readonly name: string,
  ) {
    this.ns = `${db}.${name}`;
  }

  private get coll(): Collection | undefined {
    return this.engine.collection(this.db, this.name);
  }

  private get own() {
    return this.txn.writes.get(this.ns)?.docs;
  }

  private get before() {
    return this.txn.preserved.get(this.ns);
  }

  /** The version of a document this transaction sees (undefined = absent for it). */
  private visible(idKey: string): Doc | undefined {
    const own = this.own;
    if (own?.has(idKey)) return own.get(idKey) ?? undefined;
    const before = this.before;
    if (before?.has(idKey)) return before.get(idKey) ?? undefined;
    return this.coll?.docs.get(idKey);
  }

  exists() {
    return this.coll !== undefined || this.txn.createdCollections.has(this.ns) || (this.own?.size ?? 0) > 0;
  }

  indexSpecs(): IndexSpec[] {
    return this.coll?.specs() ?? [ID_INDEX, ...(this.txn.createdCollections.get(this.ns)?.indexes ?? [])];
  }

  find(filter: Doc | undefined, options: FindOptions = {}): Doc[] {
    const coll = this.coll;
    const text = splitTextFilter(filter);
    if (text) return this.findText(coll, text, options);
    // The committed plan's candidates plus every document this transaction's snapshot or writes changed;
    // no sort is pushed down (the candidates are not all in index order).
    const report = options.report ?? emptyReport();
    const p = plan(coll, filter);
    report.plan = p;
    const fromIndex = planIds(p);
    const idKeys = new Set<string>(fromIndex ?? coll?.docs.keys() ?? []);
    if (fromIndex) report.keysExamined += idKeys.size;
    for (const k of this.before?.keys() ?? []) idKeys.add(k);
    for (const k of this.own?.keys() ?? []) idKeys.add(k);
    const test = compileFilter(filter, options.variables);
    const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
    const out: Doc[] = [];
    for (const k of idKeys) {
      const doc = this.visible(k);
      if (!doc) continue;
      report.docsExamined += 1;
      if (!test.test(doc)) continue;
      out.push(doc);
      if (out.length >= limit) break;
    }
    this.metrics.examined(report);
    return out;
  }

  /**
   * A text search as this transaction sees the collection: the committed index answers for documents
   * whose committed version is the visible one; the transaction's own writes and the versions preserved
   * for its snapshot are scored directly.
   */
  private findText(coll: Collection | undefined, text: TextFilter, options: FindOptions): Doc[] {
    if (!this.exists()) throw noTextIndexCollection(this.ns);
    const committed = coll?.textIndex();
    const spec = committed?.text ?? this.pendingTextSpec();
    if (!spec) throw textIndexRequired();
    const own = this.own;
    const before = this.before;
    const changed = new Set<string>([...(own?.keys() ?? []), ...(before?.keys() ?? [])]);
    const extra: Doc[] = [];
    for (const idKey of changed) {
      const doc = this.visible(idKey);
      if (doc) extra.push(doc);
    }
    const stats = options.textStats ?? { keysExamined: 0, docsExamined: 0 };
    const docs = textSearch(
      {
        spec,
        index: committed,
        fetch: (idKey) => coll?.docs.get(idKey),
        shadowed: (idKey) => changed.has(idKey),
        extra,
      },
      text,
      { ...options, stats },
    );
    this.metrics.examined(stats);
    return docs;
  }

  /** The text index of a collection this transaction creates (not built until commit). */
  private pendingTextSpec(): TextSpec | undefined {
    const spec = this.txn.createdCollections.get(this.ns)?.indexes.find(isTextSpec);
    return spec ? new TextSpec(spec) : undefined;
  }

  /** Takes the write lock on a document, or fails with WriteConflict as MongoDB does. */
  private lock(idKey: string) {
    const key = lockKey(this.ns, idKey);
    const owner = this.engine.locks.get(key);
    if (owner && owner !== this.txn) throw writeConflict();
    if (this.before?.has(idKey) && !this.own?.has(idKey)) throw writeConflict();
    this.engine.locks.set(key, this.txn);
  }

  /** Unique constraints as this transaction sees the collection. */
  private checkUnique(idKey: string, doc: Doc, inserting: boolean) {
    if (inserting && this.visible(idKey)) {
      throw duplicateIdError(this.ns, doc._id);
    }
    const coll = this.coll;
    if (!coll) return;
    // A document the text index could not hold fails now, as in MongoDB, rather than at commit.
    coll.textIndex()?.validate(doc);
    for (const index of coll.indexes.values()) {
      if (!index.unique) continue;
      for (const { key, values } of index.keysOf(doc)) {
        const holders = new Set(index.entries.get(key) ?? []);
        for (const k of this.own?.keys() ?? []) holders.add(k);
        for (const k of this.before?.keys() ?? []) holders.add(k);
        for (const other of holders) {
          if (other === idKey) continue;
          const otherDoc = this.visible(other);
          if (otherDoc && index.keysOf(otherDoc).some((k) => k.key === key)) throw index.duplicateError(values);
        }
      }
    }
  }

  insert(doc: Doc) {
    const idKey = idKeyOf(doc);
    this.checkUnique(idKey, doc, true);
    this.lock(idKey);
    this.txn.writeSet(this.db, this.name).set(idKey, doc);
  }

  replace(_before: Doc, after: Doc) {
    const idKey = idKeyOf(after);
    this.checkUnique(idKey, after, false);
    this.lock(idKey);
    this.txn.writeSet(this.db, this.name).set(idKey, after);
  }

  remove(doc: Doc) {
    const idKey = idKeyOf(doc);
    this.lock(idKey);
    this.txn.writeSet(this.db, this.name).set(idKey, null);
  }

  blockedBy(): Transaction | undefined {
    return undefined;
  }
}
