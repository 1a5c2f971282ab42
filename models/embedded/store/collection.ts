/**
 * One collection: documents by canonical _id key (Map order = natural order) and its secondary indexes.
 * A collection from a dbpath's catalog starts unloaded: its name, options, index specs and document
 * count are known, and its documents and indexes are read from its file on first use.
 */
import { DuplicateKeyError } from '../errors.js';
import { UUID } from 'bson';
import { keyOf, type Doc } from '../values.js';
import { isTextSpec } from '../text/spec.js';
import { Index, type IndexKey, type IndexSpec } from './indexes.js';
import { TextIndex } from './text-index.js';

export const ID_INDEX: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

export type PreparedKeys = Map<Index, IndexKey[]>;

/** What a dbpath holds for a collection as of its last checkpoint. */
export interface PersistedCollection {
  /** The collection file (in the dbpath), or null for an empty collection. */
  file: string | null;
  count: number;
  bytes: number;
}

interface Unloaded {
  specs: IndexSpec[];
  count: number;
  load: () => Doc[];
}

export class Collection {
  private docMap?: Map<string, Doc>;
  private indexMap?: Map<string, Index>;
  private unloaded?: Unloaded;
  readonly uuid = new UUID();
  /** Set by the storage: the collection's file as of its last checkpoint (absent: never checkpointed). */
  persisted?: PersistedCollection;
  /** Changed since its last checkpoint (the journal holds the changes). */
  dirty = false;

  constructor(
    readonly db: string,
    readonly name: string,
    readonly options: Doc = {},
  ) {
    this.docMap = new Map();
    this.indexMap = new Map();
  }

  /** A collection whose documents `load` returns on first use (in natural order, as stored). */
  static unloaded(db: string, name: string, options: Doc, specs: IndexSpec[], count: number, load: () => Doc[]): Collection {
    const coll = new Collection(db, name, options);
    coll.docMap = undefined;
    coll.indexMap = undefined;
    coll.unloaded = { specs, count, load };
    return coll;
  }

  get ns() {
    return `${this.db}.${this.name}`;
  }

  get loaded(): boolean {
    return this.unloaded === undefined;
  }

  /** The documents by _id key (loads an unloaded collection). */
  get docs(): Map<string, Doc> {
    if (this.unloaded) this.load();
    return this.docMap!;
  }

  /** The secondary indexes by name (loads an unloaded collection). */
  get indexes(): Map<string, Index> {
    if (this.unloaded) this.load();
    return this.indexMap!;
  }

  /** Number of documents, without loading. */
  get count(): number {
    return this.unloaded ? this.unloaded.count : this.docMap!.size;
  }

  /** The secondary indexes' specs, without loading. */
  indexSpecs(): IndexSpec[] {
    return this.unloaded ? this.unloaded.specs : [...this.indexMap!.values()].map((i) => i.spec);
  }

  specs(): IndexSpec[] {
    return [ID_INDEX, ...this.indexSpecs()];
  }

  /** Reads the documents and builds the indexes; on failure the collection stays unloaded. */
  private load() {
    const { specs, load } = this.unloaded!;
    const docs = load();
    const docMap = new Map<string, Doc>();
    for (const doc of docs) docMap.set(idKeyOf(doc), doc);
    const indexMap = new Map<string, Index>();
    // The file was written from a consistent state: unique constraints held, no need to check them again.
    for (const spec of specs) indexMap.set(spec.name, buildIndex(this.ns, spec, docMap, false));
    this.docMap = docMap;
    this.indexMap = indexMap;
    this.unloaded = undefined;
  }

  /** Computes a document's index keys and checks every unique constraint, changing nothing. */
  prepare(idKey: string, doc: Doc, inserting: boolean): PreparedKeys {
    if (inserting && this.docs.has(idKey)) {
      throw duplicateIdError(this.ns, doc._id);
    }
    const prepared: PreparedKeys = new Map();
    for (const index of this.indexes.values()) {
      const keys = index.keysOf(doc);
      if (index.unique) {
        for (const { key, values } of keys) {
          const ids = index.entries.get(key);
          if (ids) for (const id of ids) if (id !== idKey) throw index.duplicateError(values);
        }
      }
      prepared.set(index, keys);
    }
    return prepared;
  }

  /** Inserts or replaces; `prepared` must come from `prepare` for this very document. */
  write(idKey: string, doc: Doc, prepared: PreparedKeys) {
    const docs = this.docs;
    const old = docs.get(idKey);
    if (old) for (const index of this.indexes.values()) index.unindex(idKey, old);
    docs.set(idKey, doc);
    for (const [index, keys] of prepared) index.add(idKey, keys);
  }

  delete(idKey: string): Doc | undefined {
    const docs = this.docs;
    const old = docs.get(idKey);
    if (!old) return undefined;
    for (const index of this.indexes.values()) index.unindex(idKey, old);
    docs.delete(idKey);
    return old;
  }

  /** Builds a new index over the existing documents; a unique violation leaves the collection unchanged. */
  addIndex(spec: IndexSpec): Index {
    const index = buildIndex(this.ns, spec, this.docs, true);
    this.indexes.set(spec.name, index);
    return index;
  }

  /** The collection's text index (MongoDB allows one). */
  textIndex(): TextIndex | undefined {
    for (const index of this.indexes.values()) if (index instanceof TextIndex) return index;
    return undefined;
  }

  /** The text index's spec, without loading. */
  textIndexSpec(): IndexSpec | undefined {
    return this.indexSpecs().find(isTextSpec);
  }
}

function buildIndex(ns: string, spec: IndexSpec, docs: Map<string, Doc>, checkUnique: boolean): Index {
  const index = isTextSpec(spec) ? new TextIndex(ns, spec) : new Index(ns, spec);
  const unique = checkUnique && index.unique;
  for (const [idKey, doc] of docs) {
    const keys = index.keysOf(doc);
    if (unique) {
      for (const { key, values } of keys) {
        const ids = index.entries.get(key);
        if (ids && [...ids].some((id) => id !== idKey)) throw index.duplicateError(values);
      }
    }
    index.add(idKey, keys);
  }
  return index;
}

export const idKeyOf = (doc: Doc) => keyOf(doc._id);

export const duplicateIdError = (ns: string, id: unknown) =>
  new DuplicateKeyError(ns, '_id_', { _id: 1 }, { _id: id }, `{ _id: ${typeof id === 'string' ? JSON.stringify(id) : String(id)} }`);
