/** find-style projections (inclusion, exclusion, nested paths, $slice, $elemMatch, positional `$`) through mingo. */
import { Query } from 'mingo';
import { asCommandError, checkedOperand } from './filter.js';
import { isPlainObject, viewOf, type Doc } from '../values.js';

/**
 * Top-level fields only, each 0/1/true/false: which fields a document keeps (in its own order, as
 * MongoDB returns them), or undefined for anything else. Kept values are shared, not copied.
 */
function topLevelFields(projection: Doc): ((doc: Doc) => Doc) | undefined {
  const entries = Object.entries(projection);
  if (!entries.every(([k, v]) => !k.includes('.') && !k.startsWith('$') && (v === 0 || v === 1 || v === true || v === false))) return undefined;
  const included = new Set(entries.filter(([k, v]) => k !== '_id' && (v === 1 || v === true)).map(([k]) => k));
  const excluded = new Set(entries.filter(([k, v]) => k !== '_id' && (v === 0 || v === false)).map(([k]) => k));
  if (included.size > 0 && excluded.size > 0) return undefined; // mingo reports MongoDB's error
  const keepId = projection._id === undefined || projection._id === 1 || projection._id === true;
  // { _id: 1 } alone is an inclusion of _id only.
  const inclusion = included.size > 0 || (excluded.size === 0 && '_id' in projection && keepId);
  return (doc) => {
    const out: Doc = {};
    for (const key of Object.keys(doc)) {
      if (key === '_id' ? keepId : inclusion ? included.has(key) : !excluded.has(key)) out[key] = doc[key];
    }
    return out;
  };
}

export function project(docs: Doc[], projection: unknown, filter?: Doc): Doc[] {
  if (!isPlainObject(projection) || Object.keys(projection).length === 0) return docs;
  const pick = topLevelFields(projection);
  if (pick) return docs.map(pick);
  const positional = Object.keys(projection).some((k) => k.endsWith('.$'));
  try {
    if (positional) {
      // The positional operator needs the filter that matched; mingo evaluates it on plain-number views.
      return new Query((checkedOperand(filter ?? {}) as Doc) ?? {}, { scriptEnabled: false }).find(docs.map(viewOf), checkedOperand(projection) as Doc).all() as Doc[];
    }
    return new Query({}, { scriptEnabled: false }).find(docs, projection).all() as Doc[];
  } catch (e) {
    throw asCommandError(e);
  }
}
