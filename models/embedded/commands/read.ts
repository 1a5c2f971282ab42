/** find, getMore, killCursors, count, distinct, aggregate and explain. */
import { Long } from 'bson';
import { Aggregator } from 'mingo';
import { type CollectionAccess, type FindOptions } from '../access.js';
import { type CommandContext, type CommandHandler } from '../context.js';
import { badValue, failedToParse, MongoCommandError, operationNotSupportedInTransaction, unsupported } from '../errors.js';
import { winningPlan } from '../query/explain-plan.js';
import { asCommandError, checkedOperand, compileFilter } from '../query/filter.js';
import { fastGroup } from '../query/group.js';
import { project } from '../query/projection.js';
import { emptyReport } from '../query/scan.js';
import { parseSort, sortDocs, sortsByTextScore, type SortSpec } from '../query/sort.js';
import {
  prepareTextPipeline,
  splitMetaProjection,
  splitTextFilter,
  stripTextScoreField,
  TEXT_SCORE_FIELD,
  textScoreUnavailable,
  textWinningPlan,
  withScores,
  type TextSearchStats,
} from '../query/text.js';
import { isExotic, isPlainObject, keyOf, restoreNumberTypes, newObjectId, remark, valuesAtPath, viewOf, cloneValue, type Doc } from '../values.js';
import { collectionName, docArray, optionalDoc, optionalNumber, rejectUnsupported } from './arguments.js';

/** A hint must name an existing index (by name or key pattern), as in MongoDB. */
export function checkHint(access: CollectionAccess, hint: unknown) {
  if (hint === undefined || hint === null) return;
  if (!access.exists()) return;
  const specs = access.indexSpecs();
  const found = typeof hint === 'string' ? specs.some((s) => s.name === hint) : isPlainObject(hint) ? specs.some((s) => keyOf(s.key) === keyOf(hint)) : false;
  if (!found) throw badValue('hint provided does not correspond to an existing index');
}

/** `let` values are expressions, evaluated once before the command runs (`{$literal: ...}` and friends). */
export function evaluateLet(vars: Doc | undefined): Doc | undefined {
  if (!vars) return undefined;
  try {
    const [row] = new Aggregator([{ $addFields: checkedOperand(vars) as Doc }], { scriptEnabled: false }).run([{}]) as Doc[];
    return row;
  } catch (e) {
    throw asCommandError(e);
  }
}

function cursorReply(ctx: CommandContext, ns: string, docs: Doc[], batchSize?: number, singleBatch = false): Doc {
  const c = ctx.state.cursors.start(ns, docs, batchSize, singleBatch);
  ctx.state.metrics.returned(c.batch.length);
  return { cursor: { firstBatch: c.batch, id: c.id, ns: c.ns }, ok: 1 };
}

/** What a find asks for besides its projection. */
interface FindShape {
  filter?: Doc;
  sort?: SortSpec;
  skip: number;
  /** 0 = no limit. */
  limit: number;
  /** A negative limit asks for one batch. */
  singleBatch: boolean;
}

function findShape(body: Doc): FindShape {
  const skip = optionalNumber(body.skip, 'skip') ?? 0;
  if (skip < 0) throw badValue('skip value must be non-negative');
  const limit = optionalNumber(body.limit, 'limit') ?? 0;
  return { filter: optionalDoc(body.filter, 'filter'), sort: parseSort(body.sort), skip, limit: Math.abs(limit), singleBatch: body.singleBatch === true || limit < 0 };
}

/**
 * A find's page: the matches (the access stops early when a limit allows, and with a sort whose order
 * its index scan follows), sorted, skipped and limited. explain runs the same.
 */
function findPage(access: CollectionAccess, shape: FindShape, options: FindOptions): Doc[] {
  const { filter, sort, skip, limit } = shape;
  const matched = access.find(filter, {
    ...options,
    limit: sort || !limit ? undefined : skip + limit,
    sortLimit: sort && limit ? { sort, count: skip + limit } : undefined,
  });
  return sortDocs(matched, sort, options.textScores).slice(skip, limit ? skip + limit : undefined);
}

export const find: CommandHandler = (ctx) => {
  const body = ctx.body;
  const name = collectionName(body.find, 'find');
  rejectUnsupported(body, 'collation', 'min', 'max', 'tailable', 'awaitData', 'returnKey', 'showRecordId');
  const access = ctx.access(name);
  checkHint(access, body.hint);
  const shape = findShape(body);
  const batchSize = optionalNumber(body.batchSize, 'batchSize');
  const text = splitTextFilter(shape.filter);
  const { rest: projection, scoreFields } = splitMetaProjection(body.projection);
  if (!text && (scoreFields.length || sortsByTextScore(shape.sort))) throw textScoreUnavailable();
  const textScores = text ? new Map<Doc, number>() : undefined;
  const page = findPage(access, shape, { variables: evaluateLet(optionalDoc(body.let, 'let')), textScores });
  const docs = withScores(project(page, projection, text ? text.rest : shape.filter), scoreFields, (d) => textScores?.get(d), page);
  return cursorReply(ctx, `${ctx.db}.${name}`, docs, batchSize, shape.singleBatch);
};

export const getMore: CommandHandler = (ctx) => {
  const batchSize = optionalNumber(ctx.body.batchSize, 'batchSize');
  const c = ctx.state.cursors.more(ctx.body.getMore, batchSize);
  ctx.state.metrics.returned(c.batch.length);
  return { cursor: { nextBatch: c.batch, id: c.id, ns: c.ns }, ok: 1 };
};

export const killCursors: CommandHandler = (ctx) => {
  const ids = Array.isArray(ctx.body.cursors) ? ctx.body.cursors : [];
  const { killed, notFound } = ctx.state.cursors.kill(ids);
  return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
};

export const count: CommandHandler = (ctx) => {
  const name = collectionName(ctx.body.count, 'count');
  rejectUnsupported(ctx.body, 'collation');
  const access = ctx.access(name);
  checkHint(access, ctx.body.hint);
  const skip = optionalNumber(ctx.body.skip, 'skip') ?? 0;
  const limit = Math.abs(optionalNumber(ctx.body.limit, 'limit') ?? 0);
  const query = optionalDoc(ctx.body.query, 'query');
  // No filter, outside a transaction: the collection's count (an unloaded collection stays unloaded).
  const whole = !ctx.txn && (query === undefined || Object.keys(query).length === 0) ? ctx.state.engine.collection(ctx.db, name) : undefined;
  const n = whole ? whole.count : access.find(query, { limit: limit ? skip + limit : undefined }).length;
  const afterSkip = Math.max(0, n - skip);
  return { n: limit ? Math.min(limit, afterSkip) : afterSkip, ok: 1 };
};

export const distinct: CommandHandler = (ctx) => {
  const name = collectionName(ctx.body.distinct, 'distinct');
  rejectUnsupported(ctx.body, 'collation');
  if (typeof ctx.body.key !== 'string') throw failedToParse("'key' must be a string");
  const parts = ctx.body.key.split('.');
  const seen = new Map<string, unknown>();
  for (const doc of ctx.access(name).find(optionalDoc(ctx.body.query, 'query'))) {
    for (const v of valuesAtPath(doc, parts)) {
      for (const x of Array.isArray(v) ? v : [v]) {
        if (x === undefined) continue;
        const k = keyOf(x);
        if (!seen.has(k)) seen.set(k, x);
      }
    }
  }
  return { values: [...seen.values()], ok: 1 };
};

// ---- aggregation -------------------------------------------------------------------------------

const stageName = (stage: Doc) => Object.keys(stage)[0];

interface OutputStage {
  kind: '$out' | '$merge';
  db: string;
  coll: string;
  spec: Doc;
}

function outputStage(ctx: CommandContext, pipeline: Doc[]): OutputStage | undefined {
  const last = pipeline[pipeline.length - 1];
  if (!last) return undefined;
  const name = stageName(last);
  if (name !== '$out' && name !== '$merge') return undefined;
  if (ctx.txn) throw operationNotSupportedInTransaction(`${name} cannot be used in a transaction`);
  const arg = last[name];
  const target = name === '$merge' ? (isPlainObject(arg) ? arg.into : arg) : arg;
  if (typeof target === 'string') return { kind: name, db: ctx.db, coll: target, spec: isPlainObject(arg) ? arg : {} };
  if (isPlainObject(target) && typeof target.coll === 'string') {
    return { kind: name, db: typeof target.db === 'string' ? target.db : ctx.db, coll: target.coll, spec: isPlainObject(arg) ? arg : {} };
  }
  throw failedToParse(`${name} needs a target collection`);
}

function writeOut(ctx: CommandContext, out: OutputStage, results: Doc[]) {
  const engine = ctx.state.engine;
  const docs = results.map((d) => {
    const doc = d._id === undefined ? { _id: newObjectId(), ...d } : d;
    remark(doc);
    return doc;
  });
  if (out.kind === '$out') {
    const seen = new Set<string>();
    for (const d of docs) {
      const k = keyOf(d._id);
      if (seen.has(k)) throw new MongoCommandError(11000, 'DuplicateKey', `E11000 duplicate key error collection: ${out.db}.${out.coll} index: _id_ dup key: { _id: ${String(d._id)} }`, { keyPattern: { _id: 1 }, keyValue: { _id: d._id } });
      seen.add(k);
    }
    const previous = engine.collection(out.db, out.coll);
    const specs = previous ? previous.indexSpecs() : [];
    engine.dropCollection(out.db, out.coll);
    const coll = engine.createCollection(out.db, out.coll, {});
    for (const spec of specs) engine.createIndex(coll, spec);
    for (const d of docs) engine.put(coll, d, true);
    return;
  }
  const on = out.spec.on === undefined ? ['_id'] : Array.isArray(out.spec.on) ? out.spec.on.map(String) : [String(out.spec.on)];
  const whenMatched = out.spec.whenMatched ?? 'merge';
  const whenNotMatched = out.spec.whenNotMatched ?? 'insert';
  const access = ctx.access(out.coll);
  const target = out.db === ctx.db ? access : undefined;
  if (!target) throw unsupported('$merge into another database');
  for (const d of docs) {
    const filter = Object.fromEntries(on.map((f) => [f, valuesAtPath(d, f.split('.'))[0] ?? null]));
    const [existing] = target.find(filter, { limit: 1 });
    if (existing) {
      if (whenMatched === 'keepExisting') continue;
      if (whenMatched === 'fail') {
        throw new MongoCommandError(11000, 'DuplicateKey', `E11000 duplicate key error collection: ${out.db}.${out.coll} (found by $merge with whenMatched: fail)`, {
          keyPattern: Object.fromEntries(on.map((f) => [f, 1])),
          keyValue: filter,
        });
      }
      if (Array.isArray(whenMatched)) throw unsupported('$merge with a pipeline in whenMatched');
      const merged = whenMatched === 'replace' ? { ...d, _id: existing._id } : { ...existing, ...d, _id: existing._id };
      remark(merged);
      target.replace(existing, merged);
    } else if (whenNotMatched === 'insert') target.insert(d);
    else if (whenNotMatched === 'fail') throw new MongoCommandError(13113, 'MergeStageNoMatchingDocument', `$merge could not find a matching document in the target collection for ${JSON.stringify(filter)}`);
  }
}

/** MongoDB's $count emits nothing for no input (mingo emits a zero); $group has MongoDB's behaviour. */
function withEmptyCount(pipeline: Doc[]): Doc[] {
  return pipeline.flatMap((stage) => {
    const name = stageName(stage);
    if (name === '$count' && typeof stage.$count === 'string') {
      return [{ $group: { _id: null, [stage.$count]: { $sum: 1 } } }, { $project: { _id: 0 } }];
    }
    if (name === '$facet' && isPlainObject(stage.$facet)) {
      return [{ $facet: Object.fromEntries(Object.entries(stage.$facet).map(([k, p]) => [k, Array.isArray(p) ? withEmptyCount(p as Doc[]) : p])) }];
    }
    return [stage];
  });
}

/**
 * Aggregation runs on plain-number views; a result that is still one of the input documents (same _id)
 * gets the stored number types back. Results with no such source are checked for values that cannot be
 * represented faithfully.
 */
function restoreTypesById(input: Doc[], results: Doc[], readsOtherCollections: boolean): Doc[] {
  const exoticInputs = input.filter((d) => isExotic(d));
  if (exoticInputs.length === 0 && !readsOtherCollections) return results;
  const byId = new Map(exoticInputs.map((d) => [keyOf(d._id), d]));
  return results.map((r) => restoreNumberTypes(r._id !== undefined ? byId.get(keyOf(r._id)) : undefined, r) as Doc);
}

/** Pipeline stages that build new documents and never change the ones they are given. */
const READ_ONLY_STAGES = new Set(['$match', '$group', '$sort', '$limit', '$skip', '$count', '$sortByCount']);

export const aggregate: CommandHandler = async (ctx) => {
  const body = ctx.body;
  rejectUnsupported(body, 'collation');
  let pipeline = docArray(body.pipeline, 'pipeline');
  if (!isPlainObject(body.cursor) && body.explain !== true) {
    throw failedToParse("The 'cursor' option is required, except for aggregate with the explain argument");
  }
  const variables = evaluateLet(optionalDoc(body.let, 'let'));
  const out = outputStage(ctx, pipeline);
  if (out) pipeline = pipeline.slice(0, -1);
  for (const stage of pipeline) {
    const n = stageName(stage);
    if (n === '$out' || n === '$merge') throw badValue(`${n} can only be the final stage in the pipeline`);
  }

  let input: Doc[];
  let ns: string;
  let textScores: Map<Doc, number> | undefined;
  if (body.aggregate === 1) {
    ns = `${ctx.db}.$cmd.aggregate`;
    const first = pipeline[0];
    const source = first ? stageName(first) : 'nothing';
    if (source === '$documents') input = docArray(first.$documents, '$documents');
    else if (source === '$listLocalSessions') {
      input = [...ctx.state.sessions.all()].map((s) => ({ _id: s.lsid, lastUse: new Date(s.lastUsed) }));
    } else throw unsupported(`database-level aggregation starting with ${source}`);
    pipeline = pipeline.slice(1);
  } else {
    const name = collectionName(body.aggregate, 'aggregate');
    ns = `${ctx.db}.${name}`;
    const access = ctx.access(name);
    checkHint(access, body.hint);
    const first = pipeline[0];
    const firstMatch = first && stageName(first) === '$match' ? optionalDoc(first.$match, '$match') : undefined;
    // A $text $match must come first (MongoDB's rule), and only the collection's text index answers it.
    const text = splitTextFilter(firstMatch);
    if (firstMatch && (text || !JSON.stringify(firstMatch).includes('"$expr"'))) {
      if (text) textScores = new Map();
      input = access.find(firstMatch, { variables, textScores });
      pipeline = pipeline.slice(1);
    } else {
      input = access.find(undefined);
    }
  }
  const prepared = prepareTextPipeline(pipeline, textScores !== undefined);
  pipeline = prepared.pipeline;
  const scored = prepared.usesScore ? textScores : undefined;
  const group = !scored && pipeline[0] && stageName(pipeline[0]) === '$group' ? fastGroup(pipeline[0]) : undefined;
  const grouped = group?.(input);
  if (grouped) {
    input = grouped;
    pipeline = pipeline.slice(1);
  }
  let results: Doc[];
  try {
    const aggregator = new Aggregator(withEmptyCount(checkedOperand(pipeline) as Doc[]), {
      scriptEnabled: false,
      variables: variables ? (checkedOperand(variables) as Doc) : undefined,
      collectionResolver: (name: string) => ctx.access(name).find(undefined).map(viewOf),
    });
    // Stages that only read their input may see the stored documents themselves; the others get copies.
    const readOnly = pipeline.every((stage) => READ_ONLY_STAGES.has(stageName(stage)));
    const view = scored ? (d: Doc) => ({ ...viewOf(d), [TEXT_SCORE_FIELD]: scored.get(d) ?? 0 }) : viewOf;
    results = aggregator.run(input.map((d) => (readOnly ? view(d) : cloneValue(view(d))))) as Doc[];
  } catch (e) {
    throw asCommandError(e);
  }
  results = restoreTypesById(input, results, pipeline.some((st) => ['$lookup', '$graphLookup', '$unionWith'].includes(stageName(st))));
  if (scored) stripTextScoreField(results);
  if (out) {
    writeOut(ctx, out, results);
    return { cursor: { firstBatch: [], id: Long.ZERO, ns }, ok: 1 };
  }
  if (body.explain === true) return { stages: pipeline, ok: 1 };
  const batchSize = isPlainObject(body.cursor) ? optionalNumber(body.cursor.batchSize, 'cursor.batchSize') : undefined;
  return cursorReply(ctx, ns, results, batchSize);
};

/** explain for find/count/distinct/update/delete/findAndModify: runs the query and reports how. */
export const explain: CommandHandler = (ctx) => {
  const inner = ctx.body.explain;
  if (!isPlainObject(inner)) throw failedToParse('explain must be an object');
  const command = Object.keys(inner)[0];
  const collection = collectionName(inner[command], 'explain');
  const access = ctx.access(collection);
  const filter =
    command === 'find' ? optionalDoc(inner.filter, 'filter')
      : command === 'count' || command === 'distinct' ? optionalDoc(inner.query, 'query')
        : command === 'update' ? optionalDoc(docArray(inner.updates, 'updates')[0]?.q, 'q')
          : command === 'delete' ? optionalDoc(docArray(inner.deletes, 'deletes')[0]?.q, 'q')
            : command === 'findAndModify' ? optionalDoc(inner.query, 'query')
              : undefined;
  if (filter === undefined && !['find', 'count', 'distinct'].includes(command)) throw unsupported(`explain of ${command}`);
  const namespace = `${ctx.db}.${collection}`;
  if (splitTextFilter(filter)) {
    const stats: TextSearchStats = { keysExamined: 0, docsExamined: 0 };
    const nReturned = access.find(filter, { textStats: stats }).length;
    const keyPattern = access.indexSpecs().find((s) => s.name === stats.indexName)?.key ?? {};
    return {
      queryPlanner: { namespace, parsedQuery: filter ?? {}, winningPlan: textWinningPlan(stats, keyPattern), rejectedPlans: [] },
      executionStats: { executionSuccess: true, nReturned, totalKeysExamined: stats.keysExamined, totalDocsExamined: stats.docsExamined },
      ok: 1,
    };
  }
  compileFilter(filter);
  const shape: FindShape = command === 'find' ? findShape(inner) : { filter, skip: 0, limit: 0, singleBatch: false };
  const report = emptyReport();
  const started = performance.now();
  const nReturned = findPage(access, shape, { report }).length;
  const executionTimeMillis = Math.round(performance.now() - started);
  const plan = winningPlan(report, { filter, sort: command === 'find' && isPlainObject(inner.sort) ? inner.sort : undefined, skip: shape.skip, limit: shape.limit });
  return {
    queryPlanner: { namespace, parsedQuery: filter ?? {}, winningPlan: plan, rejectedPlans: [] },
    executionStats: {
      executionSuccess: true,
      nReturned,
      executionTimeMillis,
      totalKeysExamined: report.keysExamined,
      totalDocsExamined: report.docsExamined,
    },
    ok: 1,
  };
};
