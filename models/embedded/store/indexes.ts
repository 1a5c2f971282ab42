/**
 * Secondary indexes: hash maps from an index key (canonical values of the indexed fields) to the ids of
 * the documents holding it. They serve equality lookups and enforce uniqueness; the keys' order, for
 * range scans and sorts, is kept beside them once first asked for (ordered-keys.ts).
 */
import { Query } from 'mingo';
import { cannotIndexParallelArrays, DuplicateKeyError } from '../errors.js';
import { checkedOperand } from '../query/filter.js';
import { isPlainObject, keyOf, valuesAtPath, viewOf, type Doc } from '../values.js';
import { OrderedKeys } from './ordered-keys.js';

export interface IndexSpec {
  v: number;
  key: Doc;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Doc;
  expireAfterSeconds?: number;
  [option: string]: unknown;
}

export interface IndexKey {
  key: string;
  values: unknown[];
  /** An array lay on an indexed path (the document makes the index multikey). */
  multikey?: true;
}

const SEPARATOR = '\u0001';

export class Index {
  readonly fields: Array<{ path: string; parts: string[] }>;
  readonly entries = new Map<string, Set<string>>();
  /** Some indexed document has an array on an indexed path (stays set, as in MongoDB). */
  multikey = false;
  private orderedKeys?: OrderedKeys;
  /** Compound indexes only: ids by the first field's key, for lookups by equality on that prefix. */
  readonly prefixEntries?: Map<string, Set<string>>;
  private readonly partial?: Query;

  constructor(
    readonly ns: string,
    readonly spec: IndexSpec,
  ) {
    this.fields = Object.keys(spec.key).map((path) => ({ path, parts: path.split('.') }));
    if (this.fields.length > 1) this.prefixEntries = new Map();
    if (spec.partialFilterExpression) this.partial = new Query(checkedOperand(spec.partialFilterExpression) as Doc);
  }

  get name() {
    return this.spec.name;
  }
  get unique() {
    return this.spec.unique === true;
  }
  /** Sparse and partial indexes leave documents out, so they cannot answer every equality lookup. */
  get complete() {
    return !this.spec.sparse && !this.partial;
  }

  /** The keys a document has in this index (several for arrays), or none when it is left out. */
  keysOf(doc: Doc): IndexKey[] {
    if (this.partial && !this.partial.test(viewOf(doc))) return [];
    return this.singleKey(doc) ?? this.allKeys(doc);
  }

  /**
   * The common case without allocating per field: every indexed path goes through plain objects only
   * and ends at a value that is not an array (one key). Undefined when an array is in the way.
   */
  private singleKey(doc: Doc): IndexKey[] | undefined {
    const values: unknown[] = new Array(this.fields.length);
    let present = false;
    for (let f = 0; f < this.fields.length; f++) {
      let v: unknown = doc;
      for (const part of this.fields[f].parts) {
        if (Array.isArray(v)) return undefined;
        v = isPlainObject(v) ? v[part] : undefined;
      }
      if (Array.isArray(v)) return undefined;
      if (v !== undefined) present = true;
      values[f] = v;
    }
    if (this.spec.sparse && !present) return [];
    let key = keyOf(values[0]);
    for (let f = 1; f < values.length; f++) key += SEPARATOR + keyOf(values[f]);
    return [{ key, values }];
  }

  private allKeys(doc: Doc): IndexKey[] {
    const perField: unknown[][] = [];
    let arrays = 0;
    let present = false;
    for (const field of this.fields) {
      const raw = valuesAtPath(doc, field.parts);
      const values: unknown[] = [];
      let multikey = raw.length > 1;
      for (const v of raw) {
        if (Array.isArray(v)) {
          multikey = true;
          if (v.length === 0) values.push(undefined);
          else for (const element of v) values.push(element);
        } else values.push(v);
        if (v !== undefined) present = true;
      }
      if (multikey) arrays += 1;
      perField.push(values);
    }
    if (arrays > 1) throw cannotIndexParallelArrays(`cannot index parallel arrays [${this.fields.map((f) => f.path).join('] [')}]`);
    if (this.spec.sparse && !present) return [];
    let combos: unknown[][] = [[]];
    for (const values of perField) combos = combos.flatMap((c) => values.map((v) => [...c, v]));
    const seen = new Map<string, IndexKey>();
    for (const values of combos) {
      const key = values.map(keyOf).join(SEPARATOR);
      if (!seen.has(key)) seen.set(key, { key, values, multikey: true });
    }
    return [...seen.values()];
  }

  /** The key a lookup by these field values uses. */
  lookupKey(values: unknown[]): string {
    return values.map(keyOf).join(SEPARATOR);
  }

  add(idKey: string, keys: IndexKey[]) {
    for (const { key, values, multikey } of keys) {
      let ids = this.entries.get(key);
      if (!ids) {
        this.entries.set(key, (ids = new Set()));
        this.orderedKeys?.added(ids, values);
      }
      ids.add(idKey);
      if (multikey) this.multikey = true;
      if (this.prefixEntries) addId(this.prefixEntries, keyOf(values[0]), idKey);
    }
  }

  remove(idKey: string, keys: IndexKey[]) {
    for (const { key, values } of keys) {
      const ids = this.entries.get(key);
      if (ids?.delete(idKey) && ids.size === 0) {
        this.entries.delete(key);
        this.orderedKeys?.emptied(values);
      }
      if (this.prefixEntries) removeId(this.prefixEntries, keyOf(values[0]), idKey);
    }
  }

  /**
   * The keys in order within each group of all fields but the last: built on first use (each key's
   * values read from one document holding it, `docs` being the indexed documents by id key), then kept
   * with the index.
   */
  ordered(docs: ReadonlyMap<string, Doc>): OrderedKeys {
    if (this.orderedKeys) return this.orderedKeys;
    const ordered = new OrderedKeys((prefixValues) => this.lookupKey(prefixValues));
    for (const [key, ids] of this.entries) {
      const [holder] = ids;
      const values = this.keysOf(docs.get(holder)!).find((k) => k.key === key)!.values;
      ordered.added(ids, values);
    }
    this.orderedKeys = ordered;
    return ordered;
  }

  /** Takes a document (as it was indexed) out of the index. */
  unindex(idKey: string, doc: Doc) {
    this.remove(idKey, this.keysOf(doc));
  }

  /** Ids whose first indexed field equals `value` (compound indexes only). */
  idsByPrefix(value: unknown): Iterable<string> {
    return this.prefixEntries?.get(keyOf(value)) ?? [];
  }

  duplicateError(values: unknown[]): DuplicateKeyError {
    const keyValue: Doc = {};
    this.fields.forEach((f, i) => (keyValue[f.path] = values[i] === undefined ? null : values[i]));
    const shown = `{ ${this.fields.map((f, i) => `${f.path}: ${show(values[i])}`).join(', ')} }`;
    return new DuplicateKeyError(this.ns, this.name, this.spec.key, keyValue, shown);
  }
}

function addId(map: Map<string, Set<string>>, key: string, idKey: string) {
  let ids = map.get(key);
  if (!ids) map.set(key, (ids = new Set()));
  ids.add(idKey);
}

function removeId(map: Map<string, Set<string>>, key: string, idKey: string) {
  const ids = map.get(key);
  if (!ids) return;
  ids.delete(idKey);
  if (ids.size === 0) map.delete(key);
}

function show(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (isPlainObject(v) || Array.isArray(v)) return JSON.stringify(v);
  return String(v);
}

/** Normalizes a createIndexes spec and checks the options this server can honour. */
export function indexName(key: Doc): string {
  return Object.entries(key)
    .map(([k, v]) => `${k}_${v}`)
    .join('_');
}
