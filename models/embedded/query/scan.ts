/**
 * Runs a plan over the committed documents: fetches the candidates in the plan's order, evaluates the
 * filter unless the plan decided it, stops at a limit, and counts the index keys and documents it
 * examined. When a sort and a limit follow and the plan is an ordered scan in the sort's order (see
 * `OrderedScan.sortDirection`), the walk stops once enough documents matched and the sort field's value
 * changes: every tie reaches the in-memory sort, which then gives MongoDB's exact answer.
 */
import { type ScanCounts } from '../metrics.js';
import { type Collection } from '../store/collection.js';
import { type OrderedKey } from '../store/ordered-keys.js';
import { compareValues, type Doc } from '../values.js';
import { compileFilter, type Filter } from './filter.js';
import { type OrderedScan } from './ordered-scan.js';
import { type Plan } from './planner.js';
import { type SortSpec } from './sort.js';

export interface ScanOptions {
  variables?: Doc;
  /** Stop after this many matches (only when no sort follows). */
  limit?: number;
  /** A sort that follows, and how many of its first documents are kept (skip + limit). */
  sortLimit?: { sort: SortSpec; count: number };
}

/** What a find did (explain): its plan, what it examined, how it walked an ordered scan. */
export interface ScanReport extends ScanCounts {
  plan?: Plan;
  /** An ordered scan walked its last field descending. */
  descending?: boolean;
  /** The walk followed the sort and stopped early. */
  sortPushedDown?: boolean;
}

export const emptyReport = (): ScanReport => ({ keysExamined: 0, docsExamined: 0 });

function* idsOf(keys: Iterable<OrderedKey>): Generator<string> {
  for (const key of keys) yield* key.ids;
}

/** The id keys a plan reads from an index, in its order; undefined for a collection scan. */
export function planIds(p: Plan): Iterable<string> | undefined {
  return p.idKeys ?? (p.scan ? idsOf(p.scan.entries()) : undefined);
}

export function runPlan(coll: Collection, p: Plan, filter: Doc | undefined, options: ScanOptions, report: ScanReport): Doc[] {
  const test = p.exact ? undefined : compileFilter(filter, options.variables);
  const sortLimit = options.sortLimit;
  const direction = p.scan?.sortDirection(sortLimit?.sort);
  if (p.scan && direction && sortLimit) {
    report.descending = direction < 0;
    report.sortPushedDown = true;
    return walkInSortOrder(coll, p.scan, direction < 0, test, sortLimit.count, report);
  }
  if (p.scan) report.descending = p.scan.indexOrderDescending;
  const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
  const out: Doc[] = [];
  for (const doc of candidates(coll, planIds(p), report)) {
    report.docsExamined += 1;
    if (test && !test.test(doc)) continue;
    out.push(doc);
    if (out.length >= limit) break;
  }
  return out;
}

/** The documents a plan fetches: every document for a collection scan, else those its index keys name (each key counted). */
function* candidates(coll: Collection, ids: Iterable<string> | undefined, report: ScanReport): Iterable<Doc> {
  if (!ids) {
    yield* coll.docs.values();
    return;
  }
  for (const id of ids) {
    report.keysExamined += 1;
    const doc = coll.docs.get(id);
    if (doc) yield doc;
  }
}

function walkInSortOrder(coll: Collection, scan: OrderedScan, descending: boolean, test: Filter | undefined, count: number, report: ScanReport): Doc[] {
  const out: Doc[] = [];
  let enough = false;
  let tie: unknown;
  for (const key of scan.entries(descending)) {
    if (enough && compareValues(key.last, tie) !== 0) break;
    for (const id of key.ids) {
      report.keysExamined += 1;
      const doc = coll.docs.get(id);
      if (!doc) continue;
      report.docsExamined += 1;
      if (test && !test.test(doc)) continue;
      out.push(doc);
    }
    if (!enough && out.length >= count) {
      enough = true;
      tie = key.last;
    }
  }
  return out;
}
