/**
 * explain's `winningPlan` for a query that ran (find, count, distinct, update, delete, findAndModify),
 * in the shape MongoDB 7's classic engine reports: COLLSCAN, IDHACK, or FETCH over IXSCAN (with
 * `direction` and, for ordered scans, `indexBounds`), under SORT when the sort is done in memory, or
 * under LIMIT / SKIP when the index order is the sort's.
 */
import { type Doc } from '../values.js';
import { type ScanReport } from './scan.js';

export interface ExplainedQuery {
  filter?: Doc;
  /** The sort as the command gave it. */
  sort?: Doc;
  skip: number;
  /** 0 = none. */
  limit: number;
}

/** The 100 MB MongoDB allows an in-memory sort (internalQueryMaxBlockingSortMemoryUsageBytes). */
const SORT_MEMORY_LIMIT = 100 * 1024 * 1024;

function accessStage(report: ScanReport, filter: Doc | undefined): Doc {
  const p = report.plan;
  const matchFilter = filter && Object.keys(filter).length ? { filter } : {};
  if (!p || p.stage === 'EOF') return { stage: 'EOF' };
  if (p.stage === 'IDHACK') return { stage: 'IDHACK' };
  if (p.stage === 'COLLSCAN' || !p.index) return { stage: 'COLLSCAN', ...matchFilter, direction: 'forward' };
  const index = p.index;
  const descending = report.descending ?? false;
  const ixscan: Doc = {
    stage: 'IXSCAN',
    keyPattern: index.spec.key,
    indexName: index.name,
    isMultiKey: index.multikey,
    isUnique: index.unique,
    isSparse: index.spec.sparse === true,
    isPartial: index.spec.partialFilterExpression !== undefined,
    indexVersion: 2,
    direction: p.scan ? p.scan.explainDirection(descending) : 'forward',
  };
  if (p.scan) ixscan.indexBounds = p.scan.explainBounds(descending);
  return { stage: 'FETCH', ...(p.exact ? {} : matchFilter), inputStage: ixscan };
}

export function winningPlan(report: ScanReport, query: ExplainedQuery): Doc {
  let stage = accessStage(report, query.filter);
  const sortKeys = query.sort ? Object.keys(query.sort) : [];
  // The walk gives the sort's order itself when it follows the sort's only field; with a tie-breaker
  // (`_id`) the documents it collected are still sorted in memory.
  const sortedByIndex = report.sortPushedDown === true && sortKeys.length === 1;
  if (sortKeys.length && !sortedByIndex) {
    stage = {
      stage: 'SORT',
      sortPattern: query.sort,
      memLimit: SORT_MEMORY_LIMIT,
      ...(query.limit ? { limitAmount: query.skip + query.limit } : {}),
      type: 'simple',
      inputStage: stage,
    };
    if (query.skip) stage = { stage: 'SKIP', skipAmount: query.skip, inputStage: stage };
    return stage;
  }
  if (query.skip) stage = { stage: 'SKIP', skipAmount: query.skip, inputStage: stage };
  if (query.limit) stage = { stage: 'LIMIT', limitAmount: query.limit, inputStage: stage };
  return stage;
}
