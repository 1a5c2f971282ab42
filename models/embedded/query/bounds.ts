/**
 * The values of an index's last field that a filter's condition on it can select, for ordered scans.
 * `$gt`/`$gte`/`$lt`/`$lte`/`$eq` (or a plain value) with a number, string or date operand become ends
 * in BSON order; an end also closes the operand's type bracket on the other side (`{ $gte: date }` goes
 * no further than the last date), as MongoDB's bounds do and as range operators match. Any other
 * operator leaves the range open: the filter is still evaluated on every candidate, so the range only
 * has to hold every match.
 */
import { type ValueRange } from '../store/ordered-keys.js';
import { compareValues, Double, Int32, isPlainObject, Long, typeRank } from '../values.js';

/** One end: an operand value, or the edge of a type bracket (rank in BSON type order). */
type End = { value: unknown; inclusive: boolean } | { rank: number };

const RANK_NUMBER = 3;
const RANK_STRING = 4;
const RANK_DATE = 10;

/** Operands whose BSON order matches how range operators compare them (mingo and MongoDB alike). */
const isBoundOperand = (v: unknown) =>
  typeof v === 'number' || typeof v === 'string' || v instanceof Date || v instanceof Double || v instanceof Int32 || v instanceof Long;

export class LastFieldRange implements ValueRange {
  private readonly lowers: End[] = [];
  private readonly uppers: End[] = [];

  get bounded(): boolean {
    return this.lowers.length > 0 || this.uppers.length > 0;
  }

  addLower(value: unknown, inclusive: boolean) {
    this.lowers.push({ value, inclusive });
    this.uppers.push({ rank: typeRank(value) });
  }

  addUpper(value: unknown, inclusive: boolean) {
    this.uppers.push({ value, inclusive });
    this.lowers.push({ rank: typeRank(value) });
  }

  fromLower(v: unknown): boolean {
    for (const end of this.lowers) {
      if ('rank' in end) {
        if (typeRank(v) < end.rank) return false;
        continue;
      }
      const c = compareValues(v, end.value);
      if (c < 0 || (c === 0 && !end.inclusive)) return false;
    }
    return true;
  }

  toUpper(v: unknown): boolean {
    for (const end of this.uppers) {
      if ('rank' in end) {
        if (typeRank(v) > end.rank) return false;
        continue;
      }
      const c = compareValues(v, end.value);
      if (c > 0 || (c === 0 && !end.inclusive)) return false;
    }
    return true;
  }

  /** The interval in explain's notation (`[new Date(1), new Date(2))`), reversed for a backward scan. */
  describe(descending: boolean): string {
    const lower = tightest(this.lowers, 1);
    const upper = tightest(this.uppers, -1);
    const low = lower ? describeEnd(lower, 'low') : { text: 'MinKey', inclusive: true };
    const high = upper ? describeEnd(upper, 'high') : { text: 'MaxKey', inclusive: true };
    if (descending) return `${high.inclusive ? '[' : '('}${high.text}, ${low.text}${low.inclusive ? ']' : ')'}`;
    return `${low.inclusive ? '[' : '('}${low.text}, ${high.text}${high.inclusive ? ']' : ')'}`;
  }
}

/** The range a condition on the last field selects (open when it selects nothing usable). */
export function lastFieldRange(cond: unknown): LastFieldRange {
  const range = new LastFieldRange();
  const isOperatorObject = isPlainObject(cond) && Object.keys(cond).some((k) => k.startsWith('$'));
  if (!isOperatorObject) {
    if (isBoundOperand(cond)) {
      range.addLower(cond, true);
      range.addUpper(cond, true);
    }
    return range;
  }
  for (const [op, operand] of Object.entries(cond)) {
    if (!isBoundOperand(operand)) continue;
    if (op === '$gt' || op === '$gte' || op === '$eq') range.addLower(operand, op !== '$gt');
    if (op === '$lt' || op === '$lte' || op === '$eq') range.addUpper(operand, op !== '$lt');
  }
  return range;
}

/** The end that bounds the most: the greatest lower (`sign` 1) or least upper (-1) operand, else a bracket edge. */
function tightest(ends: End[], sign: 1 | -1): End | undefined {
  let best: { value: unknown; inclusive: boolean } | undefined;
  for (const end of ends) {
    if ('rank' in end) continue;
    const c = best ? compareValues(end.value, best.value) * sign : 1;
    if (c > 0 || (c === 0 && !end.inclusive)) best = end;
  }
  return best ?? ends[0];
}

function describeEnd(end: End, side: 'low' | 'high'): { text: string; inclusive: boolean } {
  if (!('rank' in end)) return { text: describeValue(end.value), inclusive: end.inclusive };
  switch (end.rank) {
    case RANK_NUMBER:
      return { text: side === 'low' ? '-inf.0' : 'inf.0', inclusive: true };
    case RANK_STRING:
      return side === 'low' ? { text: '""', inclusive: true } : { text: '{}', inclusive: false };
    case RANK_DATE:
      return { text: side === 'low' ? 'new Date(-9223372036854775808)' : 'new Date(9223372036854775807)', inclusive: true };
    default:
      return { text: side === 'low' ? 'MinKey' : 'MaxKey', inclusive: true };
  }
}

/** A value as MongoDB's explain prints it in index bounds. */
export function describeValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  if (v === null || v === undefined) return 'null';
  if (v instanceof Double || v instanceof Int32) return String(v.value);
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
