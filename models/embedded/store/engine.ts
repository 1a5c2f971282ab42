/**
 * The committed state of every database: the catalog, committed writes, the lock table of open
 * transactions, and the hooks that keep transaction snapshots and the journal up to date.
 * All mutations of committed state go through here.
 */
import { namespaceExists } from '../errors.js';
import { type Doc } from '../values.js';
import { Collection, idKeyOf } from './collection.js';
import { type IndexSpec } from './indexes.js';

export type ChangeRecord =
  | { op: 'create'; db: string; coll: string; options: Doc }
  | { op: 'drop'; db: string; coll: string }
  | { op: 'dropDatabase'; db: string }
  | { op: 'createIndex'; db: string; coll: string; spec: IndexSpec }
  | { op: 'dropIndex'; db: string; coll: string; name: string }
  | { op: 'put'; db: string; coll: string; doc: Doc }
  | { op: 'delete'; db: string; coll: string; id: unknown }
  | { op: 'batch'; records: ChangeRecord[] };

/** Where committed changes go to become durable (the journal); absent = memory only. */
export interface ChangeSink {
  append(record: ChangeRecord): void;
  sync(): Promise<void>;
}

/** An open transaction's view of the past: it keeps the version it would have seen before a commit changed it. */
export interface SnapshotHolder {
  preserve(ns: string, idKey: string, before: Doc | null): void;
}

export const lockKey = (ns: string, idKey: string) => `${ns}\u0000${idKey}`;

export class Engine {
  readonly databases = new Map<string, Map<string, Collection>>();
  /** Documents written by open transactions, by lockKey. */
  readonly locks = new Map<string, SnapshotHolder>();
  readonly snapshots = new Set<SnapshotHolder>();
  private sink?: ChangeSink;
  private batch: ChangeRecord[] | null = null;

  attach(sink: ChangeSink) {
    this.sink = sink;
  }

  private record(r: ChangeRecord) {
    if (this.batch) this.batch.push(r);
    else this.sink?.append(r);
  }

  /** Resolves once every change made so far is durable. */
  durable(): Promise<void> {
    return this.sink ? this.sink.sync() : Promise.resolve();
  }

  collection(db: string, name: string): Collection | undefined {
    return this.databases.get(db)?.get(name);
  }

  ensureCollection(db: string, name: string): Collection {
    return this.collection(db, name) ?? this.createCollection(db, name, {});
  }

  createCollection(db: string, name: string, options: Doc): Collection {
    if (this.collection(db, name)) throw namespaceExists(`Collection ${db}.${name} already exists.`);
    let colls = this.databases.get(db);
    if (!colls) this.databases.set(db, (colls = new Map()));
    const coll = new Collection(db, name, options);
    colls.set(name, coll);
    coll.dirty = true;
    this.record({ op: 'create', db, coll: name, options });
    return coll;
  }

  /** Registers a collection read from a dbpath's catalog (start-up); nothing is journaled. */
  adopt(coll: Collection) {
    let colls = this.databases.get(coll.db);
    if (!colls) this.databases.set(coll.db, (colls = new Map()));
    colls.set(coll.name, coll);
  }

  /** Every collection, database by database, in creation order. */
  *collections(): Generator<Collection> {
    for (const colls of this.databases.values()) yield* colls.values();
  }

  dropCollection(db: string, name: string): Collection | undefined {
    const coll = this.collection(db, name);
    if (!coll) return undefined;
    // Only open transactions need the documents (an unloaded collection is dropped without reading it).
    if (this.snapshots.size) for (const [idKey, doc] of coll.docs) this.preserve(coll.ns, idKey, doc);
    this.databases.get(db)!.delete(name);
    if (this.databases.get(db)!.size === 0) this.databases.delete(db);
    this.record({ op: 'drop', db, coll: name });
    return coll;
  }

  dropDatabase(db: string) {
    for (const name of [...(this.databases.get(db)?.keys() ?? [])]) this.dropCollection(db, name);
    this.record({ op: 'dropDatabase', db });
  }

  createIndex(coll: Collection, spec: IndexSpec) {
    coll.addIndex(spec);
    coll.dirty = true;
    this.record({ op: 'createIndex', db: coll.db, coll: coll.name, spec });
  }

  dropIndex(coll: Collection, name: string) {
    coll.indexes.delete(name);
    coll.dirty = true;
    this.record({ op: 'dropIndex', db: coll.db, coll: coll.name, name });
  }

  private preserve(ns: string, idKey: string, before: Doc | null) {
    for (const s of this.snapshots) s.preserve(ns, idKey, before);
  }

  /** Inserts or replaces a committed document (unique constraints checked first). */
  put(coll: Collection, doc: Doc, inserting: boolean) {
    const idKey = idKeyOf(doc);
    const prepared = coll.prepare(idKey, doc, inserting);
    if (this.snapshots.size) this.preserve(coll.ns, idKey, coll.docs.get(idKey) ?? null);
    coll.write(idKey, doc, prepared);
    coll.dirty = true;
    this.record({ op: 'put', db: coll.db, coll: coll.name, doc });
  }

  remove(coll: Collection, idKey: string) {
    const old = coll.docs.get(idKey);
    if (!old) return;
    if (this.snapshots.size) this.preserve(coll.ns, idKey, old);
    coll.delete(idKey);
    coll.dirty = true;
    this.record({ op: 'delete', db: coll.db, coll: coll.name, id: old._id });
  }

  /**
   * Applies a set of writes atomically: all or none, one journal record. `writes` maps namespaces to
   * documents by id key (null = delete).
   */
  applyAtomically(
    writes: Map<string, { db: string; coll: string; docs: Map<string, Doc | null> }>,
    created: Iterable<{ db: string; coll: string; indexes: IndexSpec[] }> = [],
  ) {
    const undo: Array<() => void> = [];
    this.batch = [];
    try {
      for (const c of created) {
        const coll = this.createCollection(c.db, c.coll, {});
        undo.push(() => this.dropCollection(c.db, c.coll));
        for (const spec of c.indexes) this.createIndex(coll, spec);
      }
      for (const { db, coll: name, docs } of writes.values()) {
        const coll = this.ensureCollection(db, name);
        for (const [idKey, doc] of docs) {
          const before = coll.docs.get(idKey);
          if (doc === null) {
            if (!before) continue;
            this.remove(coll, idKey);
            undo.push(() => coll.write(idKey, before, coll.prepare(idKey, before, true)));
          } else {
            this.put(coll, doc, !before);
            undo.push(() => (before ? coll.write(idKey, before, coll.prepare(idKey, before, false)) : coll.delete(idKey)));
          }
        }
      }
    } catch (e) {
      for (const step of undo.reverse()) step();
      this.batch = null;
      throw e;
    }
    const records = this.batch;
    this.batch = null;
    if (records.length) this.record({ op: 'batch', records });
  }

  /** Replays a journal record (start-up); records are not journaled again. */
  replay(r: ChangeRecord) {
    const sink = this.sink;
    this.sink = undefined;
    try {
      switch (r.op) {
        case 'create':
          if (!this.collection(r.db, r.coll)) this.createCollection(r.db, r.coll, r.options);
          break;
        case 'drop':
          this.dropCollection(r.db, r.coll);
          break;
        case 'dropDatabase':
          this.dropDatabase(r.db);
          break;
        case 'createIndex': {
          const coll = this.ensureCollection(r.db, r.coll);
          if (!coll.indexSpecs().some((spec) => spec.name === r.spec.name)) this.createIndex(coll, r.spec);
          break;
        }
        case 'dropIndex': {
          const coll = this.collection(r.db, r.coll);
          if (coll) this.dropIndex(coll, r.name);
          break;
        }
        case 'put': {
          const coll = this.ensureCollection(r.db, r.coll);
          this.put(coll, r.doc, false);
          break;
        }
        case 'delete': {
          const coll = this.collection(r.db, r.coll);
          if (coll) this.remove(coll, idKeyOf({ _id: r.id }));
          break;
        }
        case 'batch':
          for (const inner of r.records) this.replay(inner);
          break;
      }
    } finally {
      this.sink = sink;
    }
  }
}
