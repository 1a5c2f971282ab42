/**
 * Sorting as MongoDB does: BSON type order; an array sorts by its smallest element ascending, largest
 * descending; `{ $meta: 'textScore' }` sorts by text score, highest first.
 */
import { unsupported, badValue } from '../errors.js';
import { compareValues, isPlainObject, valuesAtPath, type Doc } from '../values.js';
import { isTextScoreMeta } from './text.js';

export interface SortKey {
  parts: string[];
  dir: 1 | -1;
  /** Sort by the document's text score (descending) instead of a field. */
  textScore?: boolean;
}

export type SortSpec = SortKey[];

export function parseSort(sort: unknown): SortSpec | undefined {
  if (sort === undefined || sort === null) return undefined;
  if (!isPlainObject(sort)) throw badValue('sort must be an object');
  const spec: SortSpec = [];
  for (const [path, dir] of Object.entries(sort)) {
    if (isTextScoreMeta(dir)) {
      spec.push({ parts: path.split('.'), dir: -1, textScore: true });
      continue;
    }
    if (isPlainObject(dir)) throw unsupported(`sorting by ${JSON.stringify(dir)}`);
    const n = Number(dir);
    if (n !== 1 && n !== -1) throw badValue(`$sort key ordering must be 1 (for ascending) or -1 (for descending)`);
    spec.push({ parts: path.split('.'), dir: n as 1 | -1 });
  }
  return spec.length ? spec : undefined;
}

export const sortsByTextScore = (spec: SortSpec | undefined) => spec?.some((k) => k.textScore) ?? false;

function sortKey(doc: Doc, parts: string[], dir: 1 | -1): unknown {
  const values = valuesAtPath(doc, parts).flatMap((v) => (Array.isArray(v) ? (v.length ? v : [undefined]) : [v]));
  let best = values[0];
  for (const v of values.slice(1)) if (compareValues(v, best) * dir < 0) best = v;
  return best;
}

/** Sorts (stable); `scores` gives the text score of each document for `$meta: 'textScore'` keys. */
export function sortDocs(docs: Doc[], spec: SortSpec | undefined, scores?: ReadonlyMap<Doc, number>): Doc[] {
  if (!spec) return docs;
  const keyed = docs.map((doc) => ({ doc, keys: spec.map((k) => (k.textScore ? (scores?.get(doc) ?? 0) : sortKey(doc, k.parts, k.dir))) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < spec.length; i++) {
      const c = compareValues(a.keys[i], b.keys[i]) * spec[i].dir;
      if (c) return c;
    }
    return 0;
  });
  return keyed.map((k) => k.doc);
}
