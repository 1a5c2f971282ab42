/**
 * Chooses the documents a filter needs to look at, in this order of preference:
 * - an `_id` lookup;
 * - an equality lookup on a complete secondary index that decides the filter alone (`exact`);
 * - of the other equality lookups and ordered scans (every indexed field but the last pinned by
 *   equality or `$in`, a range or nothing on the last; a single-field index with a range), the one
 *   reading the fewest ids;
 * - an equality lookup on a compound index's first field;
 * - with a sort that a limit follows, an ordered scan of a single-field index on the sort field, which
 *   the caller can stop early;
 * - a collection scan.
 * Ordered scans are used only on complete indexes that are not multikey: MongoDB bounds a multikey
 * index differently (an array matches a range when each bound is met by some element).
 */
import { type Collection } from '../store/collection.js';
import { type Index } from '../store/indexes.js';
import { type OrderedKeys } from '../store/ordered-keys.js';
import { isPlainObject, keyOf, type Doc } from '../values.js';
import { lastFieldRange, LastFieldRange } from './bounds.js';
import { OrderedScan, prefixCombinations, sortDirectionOn } from './ordered-scan.js';
import { type SortSpec } from './sort.js';

export interface Plan {
  stage: 'EOF' | 'IDHACK' | 'IXSCAN' | 'COLLSCAN';
  index?: Index;
  /** Id keys to look up (equality plans). */
  idKeys?: string[];
  /** An ordered scan to walk instead (range and sort plans). Neither: a collection scan. */
  scan?: OrderedScan;
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

/** An equality lookup on every field of the index, if the filter pins them all. */
function equalityPlan(index: Index, filter: Doc, filterFields: number): Plan | undefined {
  if (index.fields.length === 1) {
    const path = index.fields[0].path;
    const values = path in filter ? equalityValues(filter[path]) : undefined;
    return values ? { stage: 'IXSCAN', index, idKeys: ids(index, values), exact: filterFields === 1 } : undefined;
  }
  const perField = index.fields.map((f) => (f.path in filter ? equalityValues(filter[f.path]) : undefined));
  if (!perField.every((v) => v && v.length === 1)) return undefined;
  const key = index.lookupKey(perField.map((v) => v![0]));
  return { stage: 'IXSCAN', index, idKeys: [...(index.entries.get(key) ?? [])], exact: filterFields === index.fields.length };
}

/** The index's ordered keys, when ordered scans can use it (built on first use). */
function orderedKeys(coll: Collection, index: Index): OrderedKeys | undefined {
  if (!index.complete || index.multikey) return undefined;
  const keys = index.ordered(coll.docs);
  return keys.comparable ? keys : undefined;
}

/** An ordered scan of the index, if the filter pins every field but the last (and bounds a single field). */
function orderedScan(coll: Collection, index: Index, filter: Doc): OrderedScan | undefined {
  if (!index.complete || index.multikey) return undefined;
  const prefixValues: unknown[][] = [];
  for (const field of index.fields.slice(0, -1)) {
    const values = field.path in filter ? equalityValues(filter[field.path]) : undefined;
    if (!values) return undefined;
    prefixValues.push(values);
  }
  const last = index.fields[index.fields.length - 1].path;
  const range = last in filter ? lastFieldRange(filter[last]) : new LastFieldRange();
  if (index.fields.length === 1 && !range.bounded) return undefined;
  const prefixes = prefixCombinations(index, prefixValues);
  if (!prefixes) return undefined;
  const keys = orderedKeys(coll, index);
  return keys && new OrderedScan(index, keys, prefixes, range);
}

/** A whole single-field index on the sort's field, walked in the sort's order (the caller stops early). */
function sortPlan(coll: Collection, sort: SortSpec | undefined, exact: boolean): Plan | undefined {
  for (const index of coll.indexes.values()) {
    if (index.fields.length !== 1 || !sortDirectionOn(index.fields[0].path, sort)) continue;
    const keys = orderedKeys(coll, index);
    if (keys) return { stage: 'IXSCAN', index, scan: new OrderedScan(index, keys, [[]], new LastFieldRange()), exact };
  }
  return undefined;
}

/** Chooses how to find the filter's documents; `sort` is given when a limit follows it. */
export function plan(coll: Collection | undefined, filter: Doc | undefined, sort?: SortSpec): Plan {
  if (!coll) return { stage: 'EOF', idKeys: [], exact: true };
  const fields = filter ? Object.keys(filter) : [];
  if (!filter || fields.length === 0) return sortPlan(coll, sort, true) ?? { stage: 'COLLSCAN', exact: true };
  const idValues = '_id' in filter ? equalityValues(filter._id) : undefined;
  if (idValues) {
    const idKeys = [...new Set(idValues.map(keyOf))].filter((k) => coll.docs.has(k));
    return { stage: 'IDHACK', idKeys, exact: fields.length === 1 };
  }
  const candidates: Plan[] = [];
  for (const index of coll.indexes.values()) {
    if (!index.complete) continue;
    const equality = equalityPlan(index, filter, fields.length);
    if (equality?.exact) return equality;
    if (equality) candidates.push(equality);
  }
  for (const index of coll.indexes.values()) {
    const scan = orderedScan(coll, index, filter);
    if (scan) candidates.push({ stage: 'IXSCAN', index, scan, exact: false });
  }
  if (candidates.length) return cheapest(candidates);
  // A compound index whose first field the filter pins down narrows the scan to that prefix (e.g.
  // { format } on { format: 1, archetype: 1, date: 1 }); the rest of the filter is then matched.
  for (const index of coll.indexes.values()) {
    if (!index.complete || !index.prefixEntries) continue;
    const first = index.fields[0].path;
    const values = first in filter ? equalityValues(filter[first]) : undefined;
    if (values) {
      const idKeys = new Set<string>();
      for (const value of values) for (const id of index.idsByPrefix(value)) idKeys.add(id);
      return { stage: 'IXSCAN', index, idKeys: [...idKeys], exact: false };
    }
  }
  return sortPlan(coll, sort, false) ?? { stage: 'COLLSCAN', exact: false };
}

/** The plan reading the fewest ids (ordered scans are counted only as far as the best so far). */
function cheapest(candidates: Plan[]): Plan {
  if (candidates.length === 1) return candidates[0];
  let best = candidates[0];
  let bestCost = cost(best, Infinity);
  for (const candidate of candidates.slice(1)) {
    const c = cost(candidate, bestCost);
    if (c < bestCost) [best, bestCost] = [candidate, c];
  }
  return best;
}

const cost = (p: Plan, cap: number) => p.idKeys?.length ?? p.scan!.count(cap);
