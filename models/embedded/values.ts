/**
 * How the embedded server holds BSON values in memory.
 *
 * Stored documents keep every value mingo can reason about as a plain JS value (int32 and doubles whose
 * value already tells their type become `number`), and keep the wrapper classes only where a number's
 * BSON type would otherwise be lost on the way back out: integral doubles (`Double`), int64 (`Long`)
 * and `Decimal128`. Containers that hold such a wrapper are remembered, so queries build a plain-number
 * *view* only for those rare documents; comparing a Decimal128 or an unsafe int64 fails loudly.
 */
import { Binary, BSONRegExp, Decimal128, Double, Int32, Long, ObjectId, Timestamp, UUID } from 'bson';
import { unsupported } from './errors.js';

export type Doc = Record<string, unknown>;

export const isPlainObject = (v: unknown): v is Doc => {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const isInt32Value = (n: number) => Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX && !Object.is(n, -0);

/** Containers (objects, arrays) holding a Double, Long or Decimal128 somewhere below them. */
const exotic = new WeakSet<object>();
const isExoticScalar = (v: unknown) => v instanceof Double || v instanceof Long || v instanceof Decimal128;

export const isExotic = (container: object) => exotic.has(container);

/**
 * Normalizes a value deserialized with `promoteValues: false` into the stored form (see above).
 * Returns a new value; containers holding wrappers are marked.
 */
export function normalize(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Int32) return v.value;
  if (v instanceof Double) return isInt32Value(v.value) || Object.is(v.value, -0) ? v : v.value;
  if (Array.isArray(v)) {
    let marked = false;
    const out = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const x = normalize(v[i]);
      out[i] = x;
      if (!marked && (isExoticScalar(x) || (x !== null && typeof x === 'object' && exotic.has(x)))) marked = true;
    }
    if (marked) exotic.add(out);
    return out;
  }
  if (isPlainObject(v)) {
    let marked = false;
    const out: Doc = {};
    for (const k of Object.keys(v)) {
      const x = normalize(v[k]);
      out[k] = x;
      if (!marked && (isExoticScalar(x) || (x !== null && typeof x === 'object' && exotic.has(x)))) marked = true;
    }
    if (marked) exotic.add(out);
    return out;
  }
  return v;
}

/**
 * `normalize` for a value nothing else holds yet (just deserialized): the same result, but containers
 * are changed in place instead of copied (a bulk insert then allocates its documents once, not twice).
 */
export function normalizeInPlace(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Int32) return v.value;
  if (v instanceof Double) return isInt32Value(v.value) || Object.is(v.value, -0) ? v : v.value;
  if (Array.isArray(v)) {
    let marked = false;
    for (let i = 0; i < v.length; i++) {
      const before = v[i];
      const x = normalizeInPlace(before);
      if (x !== before) v[i] = x;
      if (!marked && (isExoticScalar(x) || (x !== null && typeof x === 'object' && exotic.has(x)))) marked = true;
    }
    if (marked) exotic.add(v);
    return v;
  }
  if (isPlainObject(v)) {
    let marked = false;
    for (const k of Object.keys(v)) {
      const before = v[k];
      const x = normalizeInPlace(before);
      if (x !== before) v[k] = x;
      if (!marked && (isExoticScalar(x) || (x !== null && typeof x === 'object' && exotic.has(x)))) marked = true;
    }
    if (marked) exotic.add(v);
    return v;
  }
  return v;
}

/** Re-marks a container after it was built or changed outside `normalize` (updates, upserts). */
export function remark(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (isExoticScalar(v)) return true;
  if (!Array.isArray(v) && !isPlainObject(v)) return false;
  let marked = false;
  for (const x of Array.isArray(v) ? v : Object.values(v)) if (remark(x)) marked = true;
  if (marked) exotic.add(v);
  else exotic.delete(v);
  return marked;
}

/** Re-marks one container from its direct children (their own marks are already right). */
export function remarkShallow(v: Doc | unknown[]): void {
  const children = Array.isArray(v) ? v : Object.values(v);
  const marked = children.some((x) => isExoticScalar(x) || (x !== null && typeof x === 'object' && exotic.has(x)));
  if (marked) exotic.add(v);
  else exotic.delete(v);
}

/** Stands in for a value mingo cannot compare correctly: any comparison touching it throws. */
class Uncomparable {
  constructor(what: string) {
    Object.defineProperty(this, 'constructor', {
      get() {
        throw unsupported(`comparing or computing with ${what}`);
      },
    });
  }
}

/**
 * Puts back the BSON number types a plain-number computation flattened: where the stored document had a
 * Double, Long or Decimal128 at the same place, the result keeps that type. A Decimal128 or unsafe int64
 * that reached any other place in a result cannot be represented faithfully, so it fails loudly.
 */
export function restoreNumberTypes(before: unknown, after: unknown): unknown {
  if (after instanceof Uncomparable) {
    if (before instanceof Decimal128 || before instanceof Long) return before;
    throw unsupported('computing with Decimal128 values or int64 values beyond 2^53');
  }
  if (typeof after === 'number') {
    if (before instanceof Double && Number.isInteger(after)) return new Double(after);
    if (before instanceof Long && Number.isInteger(after)) return Long.fromNumber(after);
    return after;
  }
  if (Array.isArray(after)) {
    const b = Array.isArray(before) ? before : [];
    const out = after.map((x, i) => restoreNumberTypes(b[i], x));
    remark(out);
    return out;
  }
  if (isPlainObject(after)) {
    const b = isPlainObject(before) ? before : {};
    const out: Doc = {};
    for (const k of Object.keys(after)) out[k] = restoreNumberTypes(b[k], after[k]);
    remark(out);
    return out;
  }
  return after;
}

const MAX_SAFE = Long.fromNumber(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = Long.fromNumber(Number.MIN_SAFE_INTEGER);

function toView(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Double) return v.value;
  if (v instanceof Long) return v.lessThanOrEqual(MAX_SAFE) && v.greaterThanOrEqual(MIN_SAFE) ? v.toNumber() : new Uncomparable('an int64 beyond 2^53');
  if (v instanceof Decimal128) return new Uncomparable('Decimal128 values');
  if (!exotic.has(v)) return v;
  if (Array.isArray(v)) return v.map(toView);
  const out: Doc = {};
  for (const k of Object.keys(v)) out[k] = toView((v as Doc)[k]);
  return out;
}

const views = new WeakMap<object, Doc>();

/** The document as mingo should see it: itself, unless it holds number wrappers. Cached per stored document. */
export function viewOf(doc: Doc): Doc {
  if (!exotic.has(doc)) return doc;
  let view = views.get(doc);
  if (!view) {
    view = toView(doc) as Doc;
    views.set(doc, view);
  }
  return view;
}

/** A value as mingo should see it (query operands, update operands, pipelines). */
export const valueView = (v: unknown): unknown => (isExoticScalar(v) ? toView(v) : v !== null && typeof v === 'object' && exotic.has(v) ? toView(v) : v);

/** Deep copy of plain containers; BSON value objects are immutable here and shared. */
export function cloneValue<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out = v.map(cloneValue);
    if (exotic.has(v)) exotic.add(out);
    return out as T;
  }
  if (isPlainObject(v)) {
    const out: Doc = {};
    for (const k of Object.keys(v)) out[k] = cloneValue(v[k]);
    if (exotic.has(v)) exotic.add(out);
    return out as T;
  }
  if (v instanceof Date) return new Date(v.getTime()) as T;
  return v;
}

/** Numeric value of any BSON number, or undefined. Decimal128 is not converted (see Uncomparable). */
export function numberOf(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (v instanceof Double || v instanceof Int32) return v.value;
  if (v instanceof Long) return v.toNumber();
  return undefined;
}

/**
 * Canonical string for equality as MongoDB sees it: numbers of every type compare by value, everything
 * else by type and content (field order matters in documents, as in MongoDB).
 */
export function keyOf(v: unknown): string {
  switch (typeof v) {
    case 'number':
      return Object.is(v, -0) ? 'n0' : `n${v}`;
    case 'string':
      return `s${v}`;
    case 'boolean':
      return v ? 'b1' : 'b0';
    case 'undefined':
      return 'z';
    case 'bigint':
      return `n${v}`;
  }
  if (v === null) return 'z';
  if (v instanceof Double || v instanceof Int32) return keyOf(v.value);
  if (v instanceof Long) return `n${v.toString()}`;
  if (v instanceof Decimal128) return `d${v.toString()}`;
  if (v instanceof ObjectId) return `o${v.toHexString()}`;
  if (v instanceof Date) return `t${v.getTime()}`;
  if (v instanceof UUID) return `x4:${v.toHexString()}`;
  if (v instanceof Binary) return `x${v.sub_type}:${Buffer.from(v.buffer).toString('base64')}`;
  if (v instanceof Timestamp) return `T${v.toString()}`;
  if (v instanceof RegExp) return `r/${v.source}/${v.flags}`;
  if (v instanceof BSONRegExp) return `r/${v.pattern}/${v.options}`;
  if (Array.isArray(v)) return `[${v.map(keyOf).join(',')}]`;
  if (isPlainObject(v)) {
    let s = '{';
    for (const k of Object.keys(v)) s += `${JSON.stringify(k)}:${keyOf(v[k])},`;
    return `${s}}`;
  }
  const bsontype = (v as { _bsontype?: string })._bsontype;
  return `?${bsontype ?? typeof v}:${JSON.stringify(v)}`;
}

/** Strict equality: same BSON types, same values, same field order. Decides whether an update modified a document. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b) return false;
  if (typeof a === 'number') return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b as number));
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k, i) => k === kb[i] && sameValue(a[k], b[k]));
  }
  if (a.constructor !== b.constructor) return false;
  return keyOf(a) === keyOf(b);
}

/** BSON comparison order of types (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/). */
export function typeRank(v: unknown): number {
  if (v === undefined || v === null) return 2;
  switch (typeof v) {
    case 'number':
    case 'bigint':
      return 3;
    case 'string':
      return 4;
    case 'boolean':
      return 9;
  }
  const t = (v as { _bsontype?: string })._bsontype;
  if (t === 'MinKey') return 1;
  if (t === 'MaxKey') return 13;
  if (v instanceof Double || v instanceof Int32 || v instanceof Long || v instanceof Decimal128) return 3;
  if (t === 'BSONSymbol') return 4;
  if (Array.isArray(v)) return 6;
  if (isPlainObject(v)) return 5;
  if (v instanceof Binary) return 7;
  if (v instanceof ObjectId) return 8;
  if (v instanceof Date) return 10;
  if (v instanceof Timestamp) return 11;
  if (v instanceof RegExp || v instanceof BSONRegExp) return 12;
  return 5;
}

const cmp = <T>(a: T, b: T) => (a < b ? -1 : a > b ? 1 : 0);

/** Total order over BSON values, as MongoDB sorts them. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return cmp(ra, rb);
  switch (ra) {
    case 3: {
      if (a instanceof Decimal128 || b instanceof Decimal128) throw unsupported('sorting by Decimal128 values');
      if (a instanceof Long && b instanceof Long) return a.compare(b);
      const x = numberOf(a) as number;
      const y = numberOf(b) as number;
      // NaN sorts before every other number in MongoDB (and must not compare equal to them here).
      if (Number.isNaN(x) || Number.isNaN(y)) return cmp(Number.isNaN(x) ? 0 : 1, Number.isNaN(y) ? 0 : 1);
      return cmp(x, y);
    }
    case 4:
      return cmp(String(a), String(b));
    case 5: {
      const ea = Object.entries(a as Doc);
      const eb = Object.entries(b as Doc);
      for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
        const byType = cmp(typeRank(ea[i][1]), typeRank(eb[i][1]));
        if (byType) return byType;
        const byName = cmp(ea[i][0], eb[i][0]);
        if (byName) return byName;
        const byValue = compareValues(ea[i][1], eb[i][1]);
        if (byValue) return byValue;
      }
      return cmp(ea.length, eb.length);
    }
    case 6: {
      const xa = a as unknown[];
      const xb = b as unknown[];
      for (let i = 0; i < Math.min(xa.length, xb.length); i++) {
        const c = compareValues(xa[i], xb[i]);
        if (c) return c;
      }
      return cmp(xa.length, xb.length);
    }
    case 7: {
      const ba = a as Binary;
      const bb = b as Binary;
      return cmp(ba.length(), bb.length()) || cmp(ba.sub_type, bb.sub_type) || Buffer.compare(Buffer.from(ba.buffer), Buffer.from(bb.buffer));
    }
    case 8:
      return cmp((a as ObjectId).toHexString(), (b as ObjectId).toHexString());
    case 9:
      return cmp(Number(a), Number(b));
    case 10:
      return cmp((a as Date).getTime(), (b as Date).getTime());
    case 11:
      return (a as Timestamp).compare(b as Timestamp);
    default:
      return cmp(keyOf(a), keyOf(b));
  }
}

/** Whether `compareValues` can order this value (it refuses Decimal128, here or nested). */
export function isComparable(v: unknown): boolean {
  if (v instanceof Decimal128) return false;
  if (v === null || typeof v !== 'object' || !exotic.has(v)) return true;
  return (Array.isArray(v) ? v : Object.values(v)).every(isComparable);
}

/**
 * Every value a dotted path reaches, traversing arrays as MongoDB does for queries and multikey
 * indexes (a numeric component also indexes into an array). Missing paths yield `undefined`.
 */
export function valuesAtPath(v: unknown, parts: string[], i = 0, out: unknown[] = []): unknown[] {
  if (i === parts.length) {
    out.push(v);
    return out;
  }
  if (Array.isArray(v)) {
    const part = parts[i];
    if (/^\d+$/.test(part)) {
      const idx = Number(part);
      if (idx < v.length) valuesAtPath(v[idx], parts, i + 1, out);
    }
    let any = false;
    for (const el of v) {
      if (isPlainObject(el) || Array.isArray(el)) {
        any = true;
        valuesAtPath(el, parts, i, out);
      }
    }
    if (!any && !/^\d+$/.test(part)) out.push(undefined);
    return out;
  }
  if (isPlainObject(v)) return valuesAtPath(v[parts[i]], parts, i + 1, out);
  out.push(undefined);
  return out;
}

/** The value at a dotted path without array traversal (numeric components index arrays). */
export function getPath(doc: unknown, path: string): unknown {
  let v: unknown = doc;
  for (const part of path.split('.')) {
    if (Array.isArray(v) && /^\d+$/.test(part)) v = v[Number(part)];
    else if (isPlainObject(v)) v = v[part];
    else return undefined;
  }
  return v;
}

export const newObjectId = () => new ObjectId();
export { Binary, Decimal128, Double, Int32, Long, ObjectId, Timestamp };
