/** One collection: documents by canonical _id key (Map order = natural order) and its secondary indexes. */
import { DuplicateKeyError } from '../errors.js';
import { UUID } from 'bson';
import { keyOf, type Doc } from '../values.js';
import { isTextSpec } from '../text/spec.js';
import { Index, type IndexKey, type IndexSpec } from './indexes.js';
import { TextIndex } from './text-index.js';

export const ID_INDEX: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

export type PreparedKeys = Map<Index, IndexKey[]>;

export class Collection {
  readonly docs = new Map<string, Doc>();
  readonly indexes = new Map<string, Index>();
  readonly uuid = new UUID();

  constructor(
    readonly db: string,
    readonly name: string,
    readonly options: Doc = {},
  ) {}

  get ns() {
    return `${this.db}.${this.name}`;
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
    const old = this.docs.get(idKey);
    if (old) for (const index of this.indexes.values()) index.unindex(idKey, old);
    this.docs.set(idKey, doc);
    for (const [index, keys] of prepared) index.add(idKey, keys);
  }

  delete(idKey: string): Doc | undefined {
    const old = this.docs.get(idKey);
    if (!old) return undefined;
    for (const index of this.indexes.values()) index.unindex(idKey, old);
    this.docs.delete(idKey);
    return old;
  }

  /** Builds a new index over the existing documents; a unique violation leaves the collection unchanged. */
  addIndex(spec: IndexSpec): Index {
    const index = isTextSpec(spec) ? new TextIndex(this.ns, spec) : new Index(this.ns, spec);
    for (const [idKey, doc] of this.docs) {
      const keys = index.keysOf(doc);
      if (index.unique) {
        for (const { key, values } of keys) {
          const ids = index.entries.get(key);
          if (ids && [...ids].some((id) => id !== idKey)) throw index.duplicateError(values);
        }
      }
      index.add(idKey, keys);
    }
    this.indexes.set(spec.name, index);
    return index;
  }

  /** The collection's text index (MongoDB allows one). */
  textIndex(): TextIndex | undefined {
    for (const index of this.indexes.values()) if (index instanceof TextIndex) return index;
    return undefined;
  }

  specs(): IndexSpec[] {
    return [ID_INDEX, ...[...this.indexes.values()].map((i) => i.spec)];
  }
}

export const idKeyOf = (doc: Doc) => keyOf(doc._id);

export const duplicateIdError = (ns: string, id: unknown) =>
  new DuplicateKeyError(ns, '_id_', { _id: 1 }, { _id: id }, `{ _id: ${typeof id === 'string' ? JSON.stringify(id) : String(id)} }`);

