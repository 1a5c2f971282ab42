/** Reading command arguments the way mongod does: typed, with MongoDB's errors for wrong types. */
import { badValue, invalidNamespace, MongoCommandError, unsupported } from '../errors.js';
import { isPlainObject, numberOf, type Doc } from '../values.js';

export function collectionName(v: unknown, command: string): string {
  if (typeof v !== 'string' || v.length === 0) throw invalidNamespace(`Failed to parse namespace element for ${command}: collection name must be a non-empty string`);
  if (v.includes('\0') || v.startsWith('.') || v.includes('$')) throw invalidNamespace(`Invalid collection name: ${v}`);
  return v;
}

export function optionalDoc(v: unknown, field: string): Doc | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) throw new MongoCommandError(14, 'TypeMismatch', `BSON field '${field}' is the wrong type '${Array.isArray(v) ? 'array' : typeof v}', expected type 'object'`);
  return v;
}

export function optionalNumber(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = numberOf(v);
  if (n === undefined) throw new MongoCommandError(14, 'TypeMismatch', `BSON field '${field}' is the wrong type '${typeof v}', expected a number`);
  return n;
}

export function docArray(v: unknown, field: string): Doc[] {
  if (!Array.isArray(v) || !v.every(isPlainObject)) throw badValue(`'${field}' must be an array of documents`);
  return v;
}

/** Options whose exact semantics this server does not implement fail loudly instead of being ignored. */
export function rejectUnsupported(body: Doc, ...fields: string[]) {
  for (const f of fields) {
    const v = body[f];
    if (v === undefined || v === null) continue;
    if (f === 'collation' && isPlainObject(v) && (v.locale === 'simple' || Object.keys(v).length === 0)) continue;
    throw unsupported(`the '${f}' option`);
  }
}
