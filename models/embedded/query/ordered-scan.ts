/**
 * An ordered index scan: the groups an equality (or `$in`) on every indexed field but the last selects,
 * and within each the keys whose last-field value lies in a range, in index order. Ids are read lazily,
 * so a scan that stops early (a limit, a sort pushed down) reads only what it returns.
 */
import { type Index } from '../store/indexes.js';
import { type OrderedKey, type OrderedKeys } from '../store/ordered-keys.js';
import { compareValues, type Doc } from '../values.js';
import { describeValue, type LastFieldRange } from './bounds.js';
import { type SortSpec } from './sort.js';

export class OrderedScan {
  /**
   * @param keys the index's ordered keys
   * @param prefixes the prefix values of each group to scan, in index order (one empty prefix for a
   *   single-field index)
   */
  constructor(
    readonly index: Index,
    private readonly keys: OrderedKeys,
    readonly prefixes: unknown[][],
    readonly range: LastFieldRange,
  ) {}

  private get lastField() {
    return this.index.fields[this.index.fields.length - 1];
  }

  /** In index order the last field descends (the index has -1 on it). */
  get indexOrderDescending(): boolean {
    return Number(this.index.spec.key[this.lastField.path]) < 0;
  }

  /** The keys in range, group by group, the last field ascending in BSON order or descending. */
  *entries(descending = this.indexOrderDescending): Generator<OrderedKey> {
    for (const prefix of this.prefixes) yield* this.keys.group(this.index.lookupKey(prefix))?.entriesIn(this.range, descending) ?? [];
  }

  /** How many ids the scan would read, counting no further than past `cap`. */
  count(cap: number): number {
    let n = 0;
    for (const prefix of this.prefixes) {
      n += this.keys.group(this.index.lookupKey(prefix))?.countIn(this.range, cap - n) ?? 0;
      if (n > cap) break;
    }
    return n;
  }

  /**
   * The direction (1 ascending, -1 descending) in which walking this scan gives `sort`'s order up to
   * ties, or undefined: one group, sorted by the last field alone or by it and then `_id`.
   */
  sortDirection(sort: SortSpec | undefined): 1 | -1 | undefined {
    return this.prefixes.length === 1 ? sortDirectionOn(this.lastField.path, sort) : undefined;
  }

  /** explain's `direction` for a walk ascending or descending. */
  explainDirection(descending: boolean): 'forward' | 'backward' {
    return descending === this.indexOrderDescending ? 'forward' : 'backward';
  }

  /** explain's `indexBounds`: each field's intervals in scan order. */
  explainBounds(descending: boolean): Doc {
    const forward = this.explainDirection(descending) === 'forward';
    const bounds: Doc = {};
    this.index.fields.slice(0, -1).forEach((field, i) => {
      const values = [...new Map(this.prefixes.map((prefix) => [describeValue(prefix[i]), prefix[i]])).values()];
      const dir = Number(this.index.spec.key[field.path]) < 0 ? -1 : 1;
      values.sort((a, b) => compareValues(a, b) * dir * (forward ? 1 : -1));
      bounds[field.path] = values.map((v) => `[${describeValue(v)}, ${describeValue(v)}]`);
    });
    bounds[this.lastField.path] = [this.range.describe(descending)];
    return bounds;
  }
}

/** The direction of `sort` when it sorts by `path` alone or by it and then `_id`, else undefined. */
export function sortDirectionOn(path: string, sort: SortSpec | undefined): 1 | -1 | undefined {
  if (!sort || sort.length > 2 || sort.some((key) => key.textScore)) return undefined;
  const [first, second] = sort;
  if (first.parts.join('.') !== path || (second && second.parts.join('.') !== '_id')) return undefined;
  return first.dir;
}

/** Prefix combinations beyond this many make the scan not worth planning (MongoDB caps its own too). */
const MAX_GROUPS = 4096;

/** Every combination of the prefix fields' values, in the index's order, or undefined when too many. */
export function prefixCombinations(index: Index, perField: unknown[][]): unknown[][] | undefined {
  if (perField.reduce((n, values) => n * values.length, 1) > MAX_GROUPS) return undefined;
  let combos: unknown[][] = [[]];
  for (const values of perField) {
    const distinct = [...new Map(values.map((v) => [index.lookupKey([v]), v])).values()];
    combos = combos.flatMap((combo) => distinct.map((v) => [...combo, v]));
  }
  const dirs = index.fields.map((f) => (Number(index.spec.key[f.path]) < 0 ? -1 : 1));
  return combos.sort((a, b) => {
    for (let i = 0; i < a.length; i++) {
      const c = compareValues(a[i], b[i]) * dirs[i];
      if (c) return c;
    }
    return 0;
  });
}
