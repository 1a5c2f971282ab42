/** Query filters: mingo evaluates them; this module rejects what mingo would answer differently from MongoDB. */
import { Query } from 'mingo';
import { badValue, MongoCommandError, unsupported } from '../errors.js';
import { Decimal128, isPlainObject, valueView, viewOf, type Doc } from '../values.js';

export interface Filter {
  test(doc: Doc): boolean;
}

const UNSUPPORTED_OPERATORS: Record<string, string> = {
  $text: 'the $text query operator (text search)',
  $near: 'the $near query operator (geospatial queries)',
  $nearSphere: 'the $nearSphere query operator (geospatial queries)',
  $geoWithin: 'the $geoWithin query operator (geospatial queries)',
  $geoIntersects: 'the $geoIntersects query operator (geospatial queries)',
  $where: 'the $where query operator (server-side JavaScript)',
  $meta: 'the $meta operator (text search scores)',
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

export function compileFilter(filter: Doc | undefined, variables?: Doc): Filter {
  if (!filter || Object.keys(filter).length === 0) return MATCH_ALL;
  if (!isPlainObject(filter)) throw new MongoCommandError(14, 'TypeMismatch', 'filter must be an object');
  const checked = checkedOperand(filter) as Doc;
  let query: Query;
  try {
    query = new Query(checked, { scriptEnabled: false, variables: variables ? (checkedOperand(variables) as Doc) : undefined });
  } catch (e) {
    throw asCommandError(e);
  }
  return {
    test(doc: Doc) {
      try {
        return query.test(viewOf(doc));
      } catch (e) {
        throw asCommandError(e);
      }
    },
  };
}
