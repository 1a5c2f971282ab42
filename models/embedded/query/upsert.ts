/** The document an upsert starts from: the filter's equality fields (also inside $and), dotted paths made nested. */
import { pathNotViable } from '../errors.js';
import { cloneValue, isPlainObject, newObjectId, remark, type Doc } from '../values.js';
import { applyUpdate, isOperatorUpdate, type UpdateContext, type UpdateSpec } from './update.js';

const isOperatorObject = (v: unknown) => isPlainObject(v) && Object.keys(v).some((k) => k.startsWith('$'));

function setPath(doc: Doc, path: string, value: unknown) {
  const parts = path.split('.');
  let cur = doc;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (next === undefined) cur = cur[part] = {};
    else if (isPlainObject(next)) cur = next;
    else throw pathNotViable(`cannot infer query fields to set, path '${path}' is matched twice`);
  }
  cur[parts[parts.length - 1]] = cloneValue(value);
}

function collectEqualities(filter: Doc, into: Doc) {
  for (const [k, v] of Object.entries(filter)) {
    if (k === '$and' && Array.isArray(v)) {
      for (const clause of v) if (isPlainObject(clause)) collectEqualities(clause, into);
    } else if (k.startsWith('$')) {
      continue;
    } else if (isOperatorObject(v)) {
      if ('$eq' in (v as Doc)) setPath(into, k, (v as Doc).$eq);
    } else if (!(v instanceof RegExp)) {
      setPath(into, k, v);
    }
  }
}

export function upsertDocument(filter: Doc, u: UpdateSpec, ctx: UpdateContext): Doc {
  let doc: Doc;
  if (Array.isArray(u) || isOperatorUpdate(u)) {
    const seed: Doc = {};
    collectEqualities(filter, seed);
    doc = applyUpdate(seed, u, { ...ctx, inserting: true });
  } else {
    doc = applyUpdate({}, u, { ...ctx, inserting: true });
    if (doc._id === undefined) {
      const seed: Doc = {};
      collectEqualities(filter, seed);
      if (seed._id !== undefined) doc = { _id: seed._id, ...doc };
    }
  }
  if (doc._id === undefined) doc = { _id: newObjectId(), ...doc };
  remark(doc);
  return doc;
}
