/**
 * Applying an update to one document: replacement, pipeline, or update operators.
 * Common operators on plain paths ($set, $unset, $inc, $mul, $min, $max, $rename, $currentDate,
 * $setOnInsert, simple $push) run here directly with MongoDB's numeric type rules; array operators and
 * positional paths go through mingo's updater on a plain-number view, after which number types are restored.
 */
import { Aggregator, update as mingoUpdate } from 'mingo';
import {
  badValue,
  conflictingUpdateOperators,
  failedToParse,
  immutableField,
  MongoCommandError,
  pathNotViable,
  typeMismatch,
  unsupported,
} from '../errors.js';
import { asCommandError, checkedOperand } from './filter.js';
import {
  cloneValue,
  compareValues,
  Decimal128,
  Double,
  isPlainObject,
  keyOf,
  Long,
  remark,
  remarkShallow,
  restoreNumberTypes,
  Timestamp,
  type Doc,
} from '../values.js';

export type UpdateSpec = Doc | Doc[];

export interface UpdateContext {
  arrayFilters?: Doc[];
  /** The filter that selected the document (for the positional `$`). */
  filter?: Doc;
  /** True when the document is being created by an upsert ($setOnInsert applies). */
  inserting?: boolean;
  variables?: Doc;
}

const OPERATORS = new Set([
  '$set', '$unset', '$inc', '$mul', '$min', '$max', '$rename', '$currentDate', '$setOnInsert',
  '$push', '$addToSet', '$pull', '$pullAll', '$pop', '$bit',
]);
const PIPELINE_STAGES = new Set(['$addFields', '$set', '$project', '$unset', '$replaceRoot', '$replaceWith']);

export const isOperatorUpdate = (u: UpdateSpec): u is Doc => !Array.isArray(u) && Object.keys(u).some((k) => k.startsWith('$'));

/** Validates an update's shape up front, so a bad update fails before any document is touched. */
export function validateUpdate(u: unknown): UpdateSpec {
  if (Array.isArray(u)) {
    for (const stage of u) {
      const name = isPlainObject(stage) ? Object.keys(stage)[0] : undefined;
      if (!name || !PIPELINE_STAGES.has(name)) {
        throw new MongoCommandError(72, 'InvalidOptions', `${name ?? 'stage'} is not allowed to be used within an update`);
      }
    }
    return u as Doc[];
  }
  if (!isPlainObject(u)) throw failedToParse('Update argument must be either an object or an array');
  const keys = Object.keys(u);
  if (keys.length && keys[0].startsWith('$')) {
    for (const k of keys) {
      if (!OPERATORS.has(k)) throw failedToParse(`Unknown modifier: ${k}. Expected a valid update modifier or pipeline-style update specified as an array`);
      if (!isPlainObject(u[k])) throw failedToParse(`Modifiers operate on fields but we found type ${typeof u[k]} instead. For example: {$mod: {<field>: ...}} not {${k}: ${JSON.stringify(u[k])}}`);
    }
    checkConflicts(u);
  } else {
    for (const k of keys) if (k.startsWith('$')) throw badValue(`The dollar ($) prefixed field '${k}' in '${k}' is not allowed in a replacement document`);
  }
  return u;
}

function checkConflicts(u: Doc) {
  const paths: string[] = [];
  for (const [op, fields] of Object.entries(u)) {
    for (const [path, arg] of Object.entries(fields as Doc)) {
      paths.push(path);
      if (op === '$rename') paths.push(String(arg));
    }
  }
  const sorted = [...paths].sort();
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1];
    const b = sorted[i];
    if (a === b || b.startsWith(`${a}.`)) throw conflictingUpdateOperators(`Updating the path '${b}' would create a conflict at '${a}'`);
  }
}

// ---- numeric rules -------------------------------------------------------------------------------

type NumKind = 'int' | 'long' | 'double';
const numKind = (v: unknown): NumKind | undefined => {
  if (typeof v === 'number') return Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 && !Object.is(v, -0) ? 'int' : 'double';
  if (v instanceof Double) return 'double';
  if (v instanceof Long) return 'long';
  if (v instanceof Decimal128) throw unsupported('arithmetic on Decimal128 values');
  return undefined;
};
const asNumber = (v: unknown) => (v instanceof Double ? v.value : v instanceof Long ? v.toNumber() : (v as number));
const asLong = (v: unknown) => (v instanceof Long ? v : Long.fromNumber(asNumber(v)));

function arithmetic(op: '$inc' | '$mul', current: unknown, arg: unknown, path: string, doc: Doc): unknown {
  const argKind = numKind(arg);
  if (!argKind) throw typeMismatch(`Cannot ${op === '$inc' ? 'increment' : 'multiply'} with non-numeric argument: {${path}: ${JSON.stringify(arg)}}`);
  if (current === undefined) {
    if (op === '$inc') return arg;
    return argKind === 'long' ? Long.ZERO : argKind === 'double' ? new Double(0) : 0;
  }
  const curKind = numKind(current);
  if (!curKind) {
    throw typeMismatch(`Cannot apply ${op} to a value of non-numeric type. {_id: ${JSON.stringify(doc._id)}} has the field '${path}' of non-numeric type ${Array.isArray(current) ? 'array' : typeof current}`);
  }
  if (curKind === 'double' || argKind === 'double') {
    const n = op === '$inc' ? asNumber(current) + asNumber(arg) : asNumber(current) * asNumber(arg);
    return numKind(n) === 'int' ? new Double(n) : n;
  }
  if (curKind === 'long' || argKind === 'long') {
    return op === '$inc' ? asLong(current).add(asLong(arg)) : asLong(current).multiply(asLong(arg));
  }
  const n = op === '$inc' ? (current as number) + (arg as number) : (current as number) * (arg as number);
  return numKind(n) === 'int' ? n : Long.fromNumber(n);
}

// ---- plain-path access ---------------------------------------------------------------------------

class NotPlain extends Error {}

/**
 * Copy-on-write over an immutable stored document: containers on a modified path are shallow-copied
 * once, everything else is shared with the stored version.
 */
class Draft {
  readonly root: Doc;
  private readonly copies: Array<Doc | unknown[]> = [];
  private readonly copied = new WeakSet<object>();

  constructor(stored: Doc) {
    this.root = this.own({ ...stored });
  }

  own<T extends Doc | unknown[]>(container: T): T {
    this.copies.push(container);
    this.copied.add(container);
    return container;
  }

  /** The child container at `key`, copied into the draft if it is still shared. */
  child(parent: Doc, key: string): Doc {
    const c = parent[key] as Doc;
    if (this.copied.has(c)) return c;
    return (parent[key] = this.own({ ...c }));
  }

  /** Number-type marks of the copied containers, deepest first. */
  finish(): Doc {
    for (let i = this.copies.length - 1; i >= 0; i--) remarkShallow(this.copies[i]);
    return this.root;
  }
}

/** Walks to the parent of a dotted path through objects only; arrays on the way send the update to mingo. */
function parentOf(draft: Draft, path: string, create: boolean): { parent: Doc; key: string } | undefined {
  const parts = path.split('.');
  let cur: Doc = draft.root;
  for (let i = 0; i < parts.length - 1; i++) {
    const part = parts[i];
    if (part.startsWith('$')) throw new NotPlain();
    const next = cur[part];
    if (next === undefined || next === null) {
      if (!create) return undefined;
      if (next === null) throw pathNotViable(`Cannot create field '${parts[i + 1]}' in element {${part}: null}`);
      cur = cur[part] = draft.own({});
    } else if (Array.isArray(next)) {
      throw new NotPlain();
    } else if (isPlainObject(next)) {
      cur = draft.child(cur, part);
    } else {
      if (!create) return undefined;
      throw pathNotViable(`Cannot create field '${parts[i + 1]}' in element {${part}: ${JSON.stringify(next)}}`);
    }
  }
  const key = parts[parts.length - 1];
  if (key.startsWith('$')) throw new NotPlain();
  if (path === '') throw badValue('An empty update path is not valid.');
  return { parent: cur, key };
}

function applyOperatorsDirectly(draft: Draft, u: Doc, ctx: UpdateContext): void {
  const doc = draft.root;
  if (ctx.arrayFilters?.length) throw new NotPlain();
  for (const [op, fields] of Object.entries(u)) {
    for (const [path, arg] of Object.entries(fields as Doc)) {
      switch (op) {
        case '$setOnInsert':
        case '$set': {
          if (op === '$setOnInsert' && !ctx.inserting) break;
          const at = parentOf(draft, path, true)!;
          at.parent[at.key] = cloneValue(arg);
          break;
        }
        case '$unset': {
          const at = parentOf(draft, path, false);
          if (at) delete at.parent[at.key];
          break;
        }
        case '$inc':
        case '$mul': {
          const at = parentOf(draft, path, true)!;
          at.parent[at.key] = arithmetic(op, at.parent[at.key], arg, path, doc);
          break;
        }
        case '$min':
        case '$max': {
          const at = parentOf(draft, path, true)!;
          const cur = at.parent[at.key];
          const c = cur === undefined ? 0 : compareValues(arg, cur);
          if (cur === undefined || (op === '$min' ? c < 0 : c > 0)) at.parent[at.key] = cloneValue(arg);
          break;
        }
        case '$currentDate': {
          const at = parentOf(draft, path, true)!;
          const wantsTimestamp = isPlainObject(arg) && arg.$type === 'timestamp';
          at.parent[at.key] = wantsTimestamp ? Timestamp.fromNumber(Math.floor(Date.now() / 1000) * 2 ** 32) : new Date();
          break;
        }
        case '$rename': {
          if (typeof arg !== 'string') throw badValue(`The 'to' field for $rename must be a string: ${path}: ${JSON.stringify(arg)}`);
          const from = parentOf(draft, path, false);
          if (!from || !(from.key in from.parent)) break;
          const value = from.parent[from.key];
          delete from.parent[from.key];
          const to = parentOf(draft, arg, true)!;
          to.parent[to.key] = value;
          break;
        }
        case '$push': {
          const modifiers = isPlainObject(arg) && '$each' in arg ? arg : undefined;
          if (modifiers && Object.keys(modifiers).some((k) => k !== '$each' && k !== '$slice' && k !== '$position')) throw new NotPlain();
          const items = modifiers ? modifiers.$each : [arg];
          if (!Array.isArray(items)) throw badValue(`The argument to $each in $push must be an array but it was of type: ${typeof items}`);
          const at = parentOf(draft, path, true)!;
          const cur = at.parent[at.key];
          if (cur !== undefined && !Array.isArray(cur)) {
            throw badValue(`The field '${path}' must be an array but is of type ${typeof cur} in document {_id: ${JSON.stringify(doc._id)}}`);
          }
          const list = [...((cur as unknown[] | undefined) ?? [])];
          const position = modifiers?.$position === undefined ? list.length : pushIndex(modifiers.$position, list.length);
          list.splice(position, 0, ...items.map(cloneValue));
          at.parent[at.key] = draft.own(modifiers?.$slice === undefined ? list : sliced(list, modifiers.$slice));
          break;
        }
        default:
          throw new NotPlain();
      }
    }
  }
}

function pushIndex(position: unknown, length: number): number {
  const n = typeof position === 'number' && Number.isInteger(position) ? position : NaN;
  if (Number.isNaN(n)) throw badValue(`The value for $position must be an integer value, not of type: ${typeof position}`);
  return n < 0 ? Math.max(0, length + n) : Math.min(n, length);
}

function sliced(list: unknown[], slice: unknown): unknown[] {
  const n = typeof slice === 'number' && Number.isInteger(slice) ? slice : NaN;
  if (Number.isNaN(n)) throw badValue(`The value for $slice must be an integer value but was given type: ${typeof slice}`);
  return n >= 0 ? list.slice(0, n) : list.slice(Math.max(0, list.length + n));
}

// ---- mingo path ----------------------------------------------------------------------------------

/** Plain numbers for mingo; Decimal128 and unsafe int64 stay as they are (moved, never computed on). */
function toUpdateView(v: unknown): unknown {
  if (v instanceof Double) return v.value;
  if (v instanceof Long) return Number.isSafeInteger(v.toNumber()) ? v.toNumber() : v;
  if (Array.isArray(v)) return v.map(toUpdateView);
  if (isPlainObject(v)) {
    const out: Doc = {};
    for (const k of Object.keys(v)) out[k] = toUpdateView(v[k]);
    return out;
  }
  return v;
}

function applyWithMingo(original: Doc, u: Doc, ctx: UpdateContext): Doc {
  const working = toUpdateView(original) as Doc;
  const modifier: Doc = {};
  for (const [op, fields] of Object.entries(u)) {
    if (op === '$setOnInsert') {
      if (ctx.inserting) modifier.$set = { ...((modifier.$set as Doc) ?? {}), ...(checkedOperand(fields) as Doc) };
    } else {
      modifier[op] = op === '$set' ? { ...((modifier.$set as Doc) ?? {}), ...(toUpdateView(fields) as Doc) } : checkedOperand(fields);
    }
  }
  try {
    mingoUpdate(working, modifier, ctx.arrayFilters?.map((f) => checkedOperand(f) as Doc), ctx.filter ? (checkedOperand(ctx.filter) as Doc) : undefined, {
      cloneMode: 'deep',
      queryOptions: { scriptEnabled: false },
    });
  } catch (e) {
    throw asCommandError(e);
  }
  return restoreNumberTypes(original, working) as Doc;
}

function applyPipeline(original: Doc, pipeline: Doc[], ctx: UpdateContext): Doc {
  let out: Doc[];
  try {
    out = new Aggregator(checkedOperand(pipeline) as Doc[], { scriptEnabled: false, variables: ctx.variables }).run([toUpdateView(original) as Doc]) as Doc[];
  } catch (e) {
    throw asCommandError(e);
  }
  const next = restoreNumberTypes(original, out[0] ?? {}) as Doc;
  // A pipeline that drops _id keeps the document's identity, as in MongoDB.
  return next._id === undefined && original._id !== undefined ? { _id: original._id, ...next } : next;
}

// ---- entry point ---------------------------------------------------------------------------------

const idFirst = (doc: Doc, id: unknown): Doc => {
  if (id === undefined) return doc;
  const out: Doc = { _id: id };
  for (const k of Object.keys(doc)) if (k !== '_id') out[k] = doc[k];
  return out;
};

/** Returns the updated document (a new object; the stored one is never mutated). */
export function applyUpdate(stored: Doc, u: UpdateSpec, ctx: UpdateContext = {}): Doc {
  let next: Doc;
  if (Array.isArray(u)) {
    next = applyPipeline(stored, u, ctx);
    remark(next);
  } else if (isOperatorUpdate(u)) {
    try {
      const draft = new Draft(stored);
      applyOperatorsDirectly(draft, u, ctx);
      next = draft.finish();
    } catch (e) {
      if (!(e instanceof NotPlain)) throw e;
      next = applyWithMingo(stored, u, ctx);
      remark(next);
    }
  } else {
    const replacement = u as Doc;
    if ('_id' in replacement && stored._id !== undefined && keyOf(replacement._id) !== keyOf(stored._id)) {
      throw immutableField(`After applying the update, the (immutable) field '_id' was found to have been altered to _id: ${JSON.stringify(replacement._id)}`);
    }
    next = cloneValue(replacement);
    if (stored._id !== undefined) next = idFirst(next, stored._id);
    remark(next);
  }
  if (stored._id !== undefined && keyOf(next._id) !== keyOf(stored._id)) {
    throw immutableField(`Performing an update on the path '_id' would modify the immutable field '_id'`);
  }
  if ('_id' in next && next._id !== undefined && Object.keys(next)[0] !== '_id') {
    next = idFirst(next, next._id);
    remark(next);
  }
  return next;
}
