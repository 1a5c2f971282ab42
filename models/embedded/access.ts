/**
 * How a command sees and changes one collection: directly (committed state, each write applied at once)
 * or through a transaction (its snapshot plus its own uncommitted writes, conflicts detected).
 * Commands are written once against `CollectionAccess`.
 */
import { writeConflict } from './errors.js';
import { compileFilter } from './query/filter.js';
import { plan, type Plan } from './query/planner.js';
import { noTextIndexCollection, splitTextFilter, textIndexRequired, textSearch, type TextFilter, type TextSearchStats } from './query/text.js';
import { duplicateIdError, ID_INDEX, idKeyOf, type Collection } from './store/collection.js';
import { lockKey, type Engine } from './store/engine.js';
import { type IndexSpec } from './store/indexes.js';
import { type Transaction } from './sessions.js';
import { isTextSpec, TextSpec } from './text/spec.js';
import { type Doc } from './values.js';

export interface FindOptions {
  variables?: Doc;
  /** Stop after this many matches (only when no sort follows). */
  limit?: number;
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
  /** Matching documents in natural order. */
  find(filter: Doc | undefined, options?: FindOptions): Doc[];
  explain(filter: Doc | undefined): Plan;
  indexSpecs(): IndexSpec[];
  insert(doc: Doc): void;
  replace(before: Doc, after: Doc): void;
  remove(doc: Doc): void;
  /** An open transaction holding a lock on one of these documents (a direct write must wait for it). */
  blockedBy(docs: Doc[]): Transaction | undefined;
}

function matchAll(candidates: Iterable<Doc>, filter: Doc | undefined, exact: boolean, options: FindOptions): Doc[] {
  const out: Doc[] = [];
  const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
  if (exact) {
    for (const doc of candidates) {
      out.push(doc);
      if (out.length >= limit) break;
    }
    return out;
  }
  const test = compileFilter(filter, options.variables);
  for (const doc of candidates) {
    if (test.test(doc)) {
      out.push(doc);
      if (out.length >= limit) break;
    }
  }
  return out;
}

export class DirectAccess implements CollectionAccess {
  readonly ns: string;
  constructor(
    private readonly engine: Engine,
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

  explain(filter: Doc | undefined) {
    return plan(this.coll, filter);
  }

  indexSpecs(): IndexSpec[] {
    return this.coll?.specs() ?? [];
  }

  find(filter: Doc | undefined, options: FindOptions = {}): Doc[] {
    const coll = this.coll;
    const text = splitTextFilter(filter);
    if (text) return this.findText(coll, text, options);
    const p = plan(coll, filter);
    if (!coll) return [];
    const candidates = p.idKeys ? p.idKeys.map((k) => coll.docs.get(k)!).filter(Boolean) : coll.docs.values();
    return matchAll(candidates, filter, p.exact, options);
  }

  private findText(coll: Collection | undefined, text: TextFilter, options: FindOptions): Doc[] {
    if (!coll) throw noTextIndexCollection(this.ns);
    const index = coll.textIndex();
    if (!index) throw textIndexRequired();
    return textSearch({ spec: index.text, index, fetch: (idKey) => coll.docs.get(idKey) }, text, { ...options, stats: options.textStats });
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

  explain(filter: Doc | undefined) {
    return plan(this.coll, filter);
  }

  indexSpecs(): IndexSpec[] {
    return this.coll?.specs() ?? [ID_INDEX, ...(this.txn.createdCollections.get(this.ns)?.indexes ?? [])];
  }

  find(filter: Doc | undefined, options: FindOptions = {}): Doc[] {
    const coll = this.coll;
    const text = splitTextFilter(filter);
    if (text) return this.findText(coll, text, options);
    const p = plan(coll, filter);
    const idKeys = new Set<string>(p.idKeys ?? coll?.docs.keys() ?? []);
    for (const k of this.before?.keys() ?? []) idKeys.add(k);
    for (const k of this.own?.keys() ?? []) idKeys.add(k);
    const candidates: Doc[] = [];
    for (const k of idKeys) {
      const doc = this.visible(k);
      if (doc) candidates.push(doc);
    }
    return matchAll(candidates, filter, false, options);
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
    return textSearch(
      {
        spec,
        index: committed,
        fetch: (idKey) => coll?.docs.get(idKey),
        shadowed: (idKey) => changed.has(idKey),
        extra,
      },
      text,
      { ...options, stats: options.textStats },
    );
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
