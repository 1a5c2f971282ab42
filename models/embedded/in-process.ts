/**
 * Inserting into an embedded server from the process that runs it, without the wire: the documents are
 * not serialized by the driver and parsed again by the server (for a bulk load that round trip, and the
 * garbage it makes, costs more than the insert itself). They go through the same insert command as a
 * wire request, as copies holding exactly what a BSON round trip would give the server.
 */
import { deserialize, serialize } from 'bson';
import { isPlainObject, normalizeInPlace, type Doc } from './values.js';

/**
 * A copy of a value made only of what a BSON round trip returns unchanged (strings, booleans, null,
 * finite numbers other than -0, valid dates, dense arrays, plain objects), or undefined when the value
 * holds anything else.
 */
function plainCopy(v: unknown): unknown {
  switch (typeof v) {
    case 'string':
      // BSON stores UTF-8: a lone surrogate would come back as U+FFFD.
      return (v as unknown as { isWellFormed(): boolean }).isWellFormed() ? v : undefined;
    case 'boolean':
      return v;
    case 'number':
      // An int32 value travels as int32, any other as a double whose value is not an int32's: the server
      // keeps both as plain numbers. -0 comes back as a Double wrapper.
      return Number.isFinite(v) && !Object.is(v, -0) ? v : undefined;
    case 'object': {
      if (v === null) return null;
      if (Array.isArray(v)) {
        const out = new Array(v.length);
        for (let i = 0; i < v.length; i++) {
          if (!(i in v)) return undefined;
          const x = plainCopy(v[i]);
          if (x === undefined) return undefined;
          out[i] = x;
        }
        return out;
      }
      if (v instanceof Date) {
        const time = v.getTime();
        return Number.isFinite(time) ? new Date(time) : undefined;
      }
      if (!isPlainObject(v) || Object.getPrototypeOf(v) !== Object.prototype) return undefined;
      const out: Doc = {};
      for (const k of Object.keys(v)) {
        if (k === '__proto__' || k === 'toBSON' || k.includes('\u0000')) return undefined;
        const x = plainCopy(v[k]);
        if (x === undefined) return undefined;
        out[k] = x;
      }
      return out;
    }
    default:
      return undefined;
  }
}

/** The document as the server would hold it had it come over the wire (a copy: the caller keeps its own). */
export function asIfFromWire(doc: Doc): Doc {
  const copy = plainCopy(doc);
  if (copy !== undefined) return copy as Doc;
  // Anything else takes the real round trip, with the driver's serialization options (undefined -> null).
  return normalizeInPlace(deserialize(serialize(doc, { checkKeys: false, serializeFunctions: false, ignoreUndefined: false }), { promoteValues: false, promoteBuffers: false })) as Doc;
}
