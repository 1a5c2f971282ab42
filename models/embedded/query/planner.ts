/**
 * Chooses the documents a filter needs to look at: an `_id` lookup, an equality lookup on a complete
 * secondary index, an equality lookup on a compound index's first field, or a collection scan. `exact` says the lookup alone already decides the filter.
 */
import { type Collection } from '../store/collection.js';
import { type Index } from '../store/indexes.js';
import { isPlainObject, keyOf, type Doc } from '../values.js';

export interface Plan {
  stage: 'EOF' | 'IDHACK' | 'IXSCAN' | 'COLLSCAN';
  index?: string;
  /** Id keys to look up, or undefined for a scan. */
  idKeys?: string[];
  exact: boolean;
}

/** Values a condition selects by plain equality (several for $in), or undefined. */
function equalityValues(cond: unknown): unknown[] | undefined {
  const usable = (v: unknown) =>
    v !== null && v !== undefined && !Array.isArray(v) && !(v instanceof RegExp) && !(isPlainObject(v) && Object.keys(v).some((k) => k.startsWith('$')));
  if (isPlainObject(cond) && Object.keys(cond).some((k) => k.startsWith('$'))) {
    const keys = Object.keys(cond);
    if (keys.length !== 1) return undefined;
    if (keys[0] === '$eq' && usable(cond.$eq)) return [cond.$eq];
    if (keys[0] === '$in' && Array.isArray(cond.$in) && cond.$in.every(usable)) return cond.$in;
    return undefined;
  }
  if (isPlainObject(cond) && Object.keys(cond).length === 0) return undefined;
  return usable(cond) ? [cond] : undefined;
}

function ids(index: Index, values: unknown[]): string[] {
  const out = new Set<string>();
  for (const v of values) for (const id of index.entries.get(index.lookupKey([v])) ?? []) out.add(id);
  return [...out];
}

export function plan(coll: Collection | undefined, filter: Doc | undefined): Plan {
  if (!coll) return { stage: 'EOF', idKeys: [], exact: true };
  const fields = filter ? Object.keys(filter) : [];
  if (!filter || fields.length === 0) return { stage: 'COLLSCAN', exact: true };
  const onlyField = fields.length === 1;
  const idValues = '_id' in filter ? equalityValues(filter._id) : undefined;
  if (idValues) {
    const idKeys = [...new Set(idValues.map(keyOf))].filter((k) => coll.docs.has(k));
    return { stage: 'IDHACK', idKeys, exact: onlyField };
  }
  for (const index of coll.indexes.values()) {
    if (!index.complete) continue;
    if (index.fields.length === 1) {
      const values = index.fields[0].path in filter ? equalityValues(filter[index.fields[0].path]) : undefined;
      if (values) return { stage: 'IXSCAN', index: index.name, idKeys: ids(index, values), exact: onlyField };
      continue;
    }
    const perField = index.fields.map((f) => (f.path in filter ? equalityValues(filter[f.path]) : undefined));
    if (perField.every((v) => v && v.length === 1)) {
      const key = index.lookupKey(perField.map((v) => v![0]));
      return { stage: 'IXSCAN', index: index.name, idKeys: [...(index.entries.get(key) ?? [])], exact: fields.length === index.fields.length };
    }
  }
  // A compound index whose first field the filter pins down narrows the scan to that prefix (e.g.
  // { format, date: { $gte } } on { format: 1, date: 1 }); the rest of the filter is then matched.
  for (const index of coll.indexes.values()) {
    if (!index.complete || !index.prefixEntries) continue;
    const first = index.fields[0].path;
    const values = first in filter ? equalityValues(filter[first]) : undefined;
    if (values) {
      const idKeys = new Set<string>();
      for (const value of values) for (const id of index.idsByPrefix(value)) idKeys.add(id);
      return { stage: 'IXSCAN', index: index.name, idKeys: [...idKeys], exact: false };
    }
  }
  return { stage: 'COLLSCAN', exact: false };
}
