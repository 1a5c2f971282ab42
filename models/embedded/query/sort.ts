/** Sorting as MongoDB does: BSON type order; an array sorts by its smallest element ascending, largest descending. */
import { unsupported, badValue } from '../errors.js';
import { compareValues, isPlainObject, valuesAtPath, type Doc } from '../values.js';

export type SortSpec = Array<[string[], 1 | -1]>;

export function parseSort(sort: unknown): SortSpec | undefined {
  if (sort === undefined || sort === null) return undefined;
  if (!isPlainObject(sort)) throw badValue('sort must be an object');
  const spec: SortSpec = [];
  for (const [path, dir] of Object.entries(sort)) {
    if (isPlainObject(dir)) throw unsupported(`sorting by ${JSON.stringify(dir)}`);
    const n = Number(dir);
    if (n !== 1 && n !== -1) throw badValue(`$sort key ordering must be 1 (for ascending) or -1 (for descending)`);
    spec.push([path.split('.'), n as 1 | -1]);
  }
  return spec.length ? spec : undefined;
}

function sortKey(doc: Doc, parts: string[], dir: 1 | -1): unknown {
  const values = valuesAtPath(doc, parts).flatMap((v) => (Array.isArray(v) ? (v.length ? v : [undefined]) : [v]));
  let best = values[0];
  for (const v of values.slice(1)) if (compareValues(v, best) * dir < 0) best = v;
  return best;
}

export function sortDocs(docs: Doc[], spec: SortSpec | undefined): Doc[] {
  if (!spec) return docs;
  const keyed = docs.map((doc) => ({ doc, keys: spec.map(([parts, dir]) => sortKey(doc, parts, dir)) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < spec.length; i++) {
      const c = compareValues(a.keys[i], b.keys[i]) * spec[i][1];
      if (c) return c;
    }
    return 0;
  });
  return keyed.map((k) => k.doc);
}
