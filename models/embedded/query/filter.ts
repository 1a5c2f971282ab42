/** Query filters: mingo evaluates them; this module rejects what mingo would answer differently from MongoDB. */
import { Query } from 'mingo';
import { badValue, MongoCommandError, unsupported } from '../errors.js';
import { Decimal128, isPlainObject, keyOf, valuesAtPath, valueView, viewOf, type Doc } from '../values.js';

export interface Filter {
  test(doc: Doc): boolean;
}

const UNSUPPORTED_OPERATORS: Record<string, string> = {
  $text: '$text below the top level of a filter (a top-level $text, or one in a top-level $and, is supported; MongoDB also allows it in an $or whose other branches are indexed, and nowhere else)',
  $near: 'the $near query operator (geospatial queries)',
  $nearSphere: 'the $nearSphere query operator (geospatial queries)',
  $geoWithin: 'the $geoWithin query operator (geospatial queries)',
  $geoIntersects: 'the $geoIntersects query operator (geospatial queries)',
  $where: 'the $where query operator (server-side JavaScript)',
  $meta: "$meta other than { $meta: 'textScore' } (in a find projection or sort, or after a $text $match)",
};

/** Walks a filter/expression: rejects unsupported operators and Decimal128 operands; returns a view with plain numbers. */
export function checkedOperand(v: unknown): unknown {
  if (v instanceof Decimal128) throw unsupported('comparing or computing with Decimal128 values');
  if (Array.isArray(v)) return v.map(checkedOperand);
  if (isPlainObject(v)) {
    const out: Doc = {};
    for (const k of Object.keys(v)) {
      if (k in UNSUPPORTED_OPERATORS) throw unsupported(UNSUPPORTED_OPERATORS[k]);
      out[k] = checkedOperand(v[k]);
    }
    return out;
  }
  return valueView(v);
}

/** Translates mingo's errors into MongoDB's (BadValue naming the operator). */
export function asCommandError(e: unknown): MongoCommandError {
  if (e instanceof MongoCommandError) return e;
  const message = e instanceof Error ? e.message : String(e);
  const operator = /(\$[A-Za-z]+)/.exec(message)?.[1];
  if (/unknown|unregistered|not supported|invalid operator/i.test(message) && operator) {
    return badValue(`unknown operator: ${operator} (${message})`);
  }
  return badValue(message);
}

const MATCH_ALL: Filter = { test: () => true };

/** A value plain equality can decide with canonical keys (no regex, no operators, no Decimal128). */
const isPlainEqualityValue = (v: unknown): boolean =>
  !(v instanceof RegExp) &&
  !(v instanceof Decimal128) &&
  !(isPlainObject(v) && Object.keys(v).some((k) => k.startsWith('$'))) &&
  !(Array.isArray(v) && v.some((x) => !isPlainEqualityValue(x))) &&
  !(isPlainObject(v) && Object.values(v).some((x) => !isPlainEqualityValue(x)));

/**
 * Filters made only of field equalities (`{a: 1, 'b.c': 'x'}`, `$eq`, `$in` of such values) are
 * decided here with canonical keys, as MongoDB defines equality (an array field matches when it
 * equals the value or holds it). mingo would compile an operator context per query, which is most
 * of the cost of a small update.
 */
function equalityFilter(filter: Doc): Filter | undefined {
  const checks: Array<{ parts: string[]; keys: Set<string> }> = [];
  const ranges: Array<{ parts: string[]; bounds: DateBound[] }> = [];
  for (const [path, cond] of Object.entries(filter)) {
    if (path.startsWith('$')) return undefined;
    let values: unknown[];
    if (isPlainObject(cond) && Object.keys(cond).some((k) => k.startsWith('$'))) {
      const bounds = dateBounds(cond);
      if (bounds) {
        ranges.push({ parts: path.split('.'), bounds });
        continue;
      }
      const ops = Object.keys(cond);
      if (ops.length !== 1) return undefined;
      if (ops[0] === '$eq') values = [cond.$eq];
      else if (ops[0] === '$in' && Array.isArray(cond.$in)) values = cond.$in;
      else return undefined;
    } else values = [cond];
    if (!values.every(isPlainEqualityValue)) return undefined;
    checks.push({ parts: path.split('.'), keys: new Set(values.map(keyOf)) });
  }
  return {
    test(doc: Doc) {
      return (
        checks.every(({ parts, keys }) => valuesAtPath(doc, parts).some((v) => keys.has(keyOf(v)) || (Array.isArray(v) && v.some((x) => keys.has(keyOf(x)))))) &&
        ranges.every(({ parts, bounds }) => valuesAtPath(doc, parts).some((v) => withinBounds(v, bounds)))
      );
    },
  };
}

const RANGE_OPERATORS: Record<string, (a: number, b: number) => boolean> = { $gt: (a, b) => a > b, $gte: (a, b) => a >= b, $lt: (a, b) => a < b, $lte: (a, b) => a <= b };

type DateBound = (time: number) => boolean;

/** A condition made only of $gt/$gte/$lt/$lte with Date operands (a time window), as one test per bound. */
function dateBounds(cond: Doc): DateBound[] | undefined {
  const entries = Object.entries(cond);
  if (entries.length === 0 || !entries.every(([op, value]) => op in RANGE_OPERATORS && value instanceof Date)) return undefined;
  return entries.map(([op, value]) => {
    const compare = RANGE_OPERATORS[op];
    const at = (value as Date).getTime();
    return (time: number) => compare(time, at);
  });
}

/**
 * Ranges compare within one type in MongoDB, so only Date values can match a Date bound. A Date must
 * meet every bound; an array matches when each bound is met by some element (not necessarily the same).
 */
function withinBounds(value: unknown, bounds: DateBound[]): boolean {
  if (value instanceof Date) return bounds.every((bound) => bound(value.getTime()));
  if (!Array.isArray(value)) return false;
  return bounds.every((bound) => value.some((x) => x instanceof Date && bound(x.getTime())));
}

const TYPE_ALIASES: Record<string, string> = {
  1: 'double', 2: 'string', 3: 'object', 4: 'array', 5: 'binData', 6: 'undefined', 7: 'objectId', 8: 'bool', 9: 'date',
  10: 'null', 11: 'regex', 13: 'javascript', 14: 'symbol', 16: 'int', 17: 'timestamp', 18: 'long', 19: 'decimal', [-1]: 'minKey', 127: 'maxKey',
};

/** The BSON type alias of a stored value, as `$type` names it. */
export function bsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'missing';
  if (typeof v === 'number') return Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 && !Object.is(v, -0) ? 'int' : 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  if (v instanceof Date) return 'date';
  if (v instanceof RegExp) return 'regex';
  if (isPlainObject(v)) return 'object';
  const t = (v as { _bsontype?: string })._bsontype;
  switch (t) {
    case 'Double': return 'double';
    case 'Long': return 'long';
    case 'Decimal128': return 'decimal';
    case 'ObjectId': return 'objectId';
    case 'Binary': return 'binData';
    case 'Timestamp': return 'timestamp';
    case 'MinKey': return 'minKey';
    case 'MaxKey': return 'maxKey';
    case 'BSONRegExp': return 'regex';
    case 'Code': return 'javascript';
    case 'BSONSymbol': return 'symbol';
  }
  return 'object';
}

const NUMERIC = new Set(['int', 'long', 'double', 'decimal']);

/**
 * `$type` on top-level field conditions is decided here, on the stored document, because mingo only
 * sees plain numbers and cannot tell int32, int64 and double apart.
 */
function takeTypeConditions(filter: Doc): { rest: Doc; checks: Array<(doc: Doc) => boolean> } {
  const rest: Doc = {};
  const checks: Array<(doc: Doc) => boolean> = [];
  for (const [path, cond] of Object.entries(filter)) {
    if (path.startsWith('$') || !isPlainObject(cond) || !('$type' in cond)) {
      rest[path] = cond;
      continue;
    }
    const wanted = (Array.isArray(cond.$type) ? cond.$type : [cond.$type]).map((t) => TYPE_ALIASES[String(valueView(t))] ?? String(t));
    const matches = (v: unknown) => wanted.some((w) => w === bsonTypeOf(v) || (w === 'number' && NUMERIC.has(bsonTypeOf(v))));
    const parts = path.split('.');
    checks.push((doc) => valuesAtPath(doc, parts).some((v) => v !== undefined && (matches(v) || (Array.isArray(v) && v.some(matches)))));
    const { $type: _type, ...others } = cond;
    if (Object.keys(others).length) rest[path] = others;
  }
  return { rest, checks };
}

export function compileFilter(filter: Doc | undefined, variables?: Doc): Filter {
  if (!filter || Object.keys(filter).length === 0) return MATCH_ALL;
  if (!isPlainObject(filter)) throw new MongoCommandError(14, 'TypeMismatch', 'filter must be an object');
  const byEquality = !variables ? equalityFilter(filter) : undefined;
  if (byEquality) return byEquality;
  const { rest, checks } = takeTypeConditions(filter);
  const checked = checkedOperand(rest) as Doc;
  let query: Query;
  try {
    query = new Query(checked, { scriptEnabled: false, variables: variables ? (checkedOperand(variables) as Doc) : undefined });
  } catch (e) {
    throw asCommandError(e);
  }
  return {
    test(doc: Doc) {
      if (!checks.every((check) => check(doc))) return false;
      try {
        return query.test(viewOf(doc));
      } catch (e) {
        throw asCommandError(e);
      }
    },
  };
}
