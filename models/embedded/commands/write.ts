/** insert, update, delete and findAndModify, with MongoDB's write-error reporting. */
import { type CollectionAccess } from '../access.js';
import { type CommandContext, type CommandHandler } from '../context.js';
import { forgetRawBson } from '../raw-bson.js';
import { badValue, failedToParse, MongoCommandError } from '../errors.js';
import { project } from '../query/projection.js';
import { parseSort, sortDocs, sortsByTextScore } from '../query/sort.js';
import { splitMetaProjection, splitTextFilter, textScoreUnavailable, withScores } from '../query/text.js';
import { applyUpdate, validateUpdate } from '../query/update.js';
import { upsertDocument } from '../query/upsert.js';
import { isPlainObject, newObjectId, remark, sameValue, type Doc } from '../values.js';
import { collectionName, docArray, optionalDoc, rejectUnsupported } from './arguments.js';
import { checkHint, evaluateLet } from './read.js';

/** Waits while an open transaction holds one of these documents, as a write outside it does in MongoDB. */
async function afterLocks(access: CollectionAccess, select: () => Doc[]): Promise<Doc[]> {
  for (;;) {
    const docs = select();
    const holder = access.blockedBy(docs);
    if (!holder) return docs;
    await holder.done;
  }
}

function writeError(index: number, e: unknown): Doc {
  // A write conflict ends the whole command (and its transaction), labelled for the driver to retry.
  if (!(e instanceof MongoCommandError) || e.code === 112) throw e;
  return { index, code: e.code, codeName: e.codeName, errmsg: e.message, ...e.extra };
}

function withWriteErrors(reply: Doc, errors: Doc[]): Doc {
  if (errors.length) reply.writeErrors = errors;
  return reply;
}

const variablesOf = (ctx: CommandContext, stmt?: Doc) => evaluateLet(optionalDoc(stmt?.c, 'c') ?? optionalDoc(ctx.body.let, 'let'));

export const insert: CommandHandler = async (ctx) => {
  const name = collectionName(ctx.body.insert, 'insert');
  const docs = docArray(ctx.body.documents, 'documents');
  const ordered = ctx.body.ordered !== false;
  const access = ctx.access(name);
  // mongod stores _id as the first field, generating one when the client did not.
  const prepared = docs.map((d) => {
    if (Object.keys(d)[0] === '_id') return d;
    const id = d._id === undefined ? newObjectId() : d._id;
    const doc: Doc = { _id: id, ...d };
    doc._id = id;
    remark(doc);
    return doc;
  });
  const errors: Doc[] = [];
  let n = 0;
  try {
    await afterLocks(access, () => prepared);
    for (let i = 0; i < prepared.length; i++) {
      try {
        const id = prepared[i]._id;
        if (Array.isArray(id)) throw badValue("can't use an array for _id");
        if (isPlainObject(id) && Object.keys(id).some((k) => k.startsWith('$'))) throw badValue(`_id fields may not contain '$'-prefixed fields: ${Object.keys(id).find((k) => k.startsWith('$'))} is not valid for storage.`);
        access.insert(prepared[i]);
        n += 1;
      } catch (e) {
        errors.push(writeError(i, e));
        if (ordered) break;
      }
    }
  } finally {
    // The journal took the wire bytes of what it stored; the rest must not keep the message alive.
    for (const d of docs) forgetRawBson(d);
  }
  return withWriteErrors({ n, ok: 1 }, errors);
};

interface UpdateStatement {
  q: Doc;
  u: Doc | Doc[];
  multi: boolean;
  upsert: boolean;
  arrayFilters?: Doc[];
}

function parseUpdateStatement(raw: Doc): UpdateStatement {
  rejectUnsupported(raw, 'collation');
  const q = optionalDoc(raw.q, 'q') ?? {};
  const u = validateUpdate(raw.u);
  const multi = raw.multi === true;
  if (multi && !Array.isArray(u) && !Object.keys(u).some((k) => k.startsWith('$')) && Object.keys(u).length > 0) {
    throw failedToParse('multi update is not supported for replacement-style update');
  }
  const arrayFilters = raw.arrayFilters === undefined ? undefined : docArray(raw.arrayFilters, 'arrayFilters');
  return { q, u, multi, upsert: raw.upsert === true, arrayFilters };
}

export const update: CommandHandler = async (ctx) => {
  const name = collectionName(ctx.body.update, 'update');
  const statements = docArray(ctx.body.updates, 'updates');
  // Sorting an updateOne arrived in MongoDB 8.0; 7.0 rejects the field for the whole command.
  if (statements.some((s) => s.sort !== undefined)) throw new MongoCommandError(40415, 'Location40415', "BSON field 'update.updates.sort' is an unknown field.");
  const ordered = ctx.body.ordered !== false;
  const access = ctx.access(name);
  const errors: Doc[] = [];
  const upserted: Doc[] = [];
  let n = 0;
  let nModified = 0;
  for (let i = 0; i < statements.length; i++) {
    try {
      const raw = statements[i];
      checkHint(access, raw.hint);
      const stmt = parseUpdateStatement(raw);
      const variables = variablesOf(ctx, raw);
      const matches = await afterLocks(access, () => access.find(stmt.q, { variables, limit: stmt.multi ? undefined : 1 }));
      if (matches.length === 0 && stmt.upsert) {
        const doc = upsertDocument(stmt.q, stmt.u, { arrayFilters: stmt.arrayFilters, variables });
        access.insert(doc);
        upserted.push({ index: i, _id: doc._id });
        n += 1;
        continue;
      }
      for (const before of matches) {
        const after = applyUpdate(before, stmt.u, { arrayFilters: stmt.arrayFilters, filter: stmt.q, variables });
        if (!sameValue(before, after)) {
          access.replace(before, after);
          nModified += 1;
        }
        n += 1;
      }
    } catch (e) {
      errors.push(writeError(i, e));
      if (ordered) break;
    }
  }
  const reply: Doc = { n, nModified, ok: 1 };
  if (upserted.length) reply.upserted = upserted;
  return withWriteErrors(reply, errors);
};

export const del: CommandHandler = async (ctx) => {
  const name = collectionName(ctx.body.delete, 'delete');
  const statements = docArray(ctx.body.deletes, 'deletes');
  const ordered = ctx.body.ordered !== false;
  const access = ctx.access(name);
  const errors: Doc[] = [];
  let n = 0;
  for (let i = 0; i < statements.length; i++) {
    try {
      const raw = statements[i];
      rejectUnsupported(raw, 'collation');
      checkHint(access, raw.hint);
      const q = optionalDoc(raw.q, 'q') ?? {};
      const limit = raw.limit === 1 || raw.limit === true ? 1 : undefined;
      const matches = await afterLocks(access, () => access.find(q, { variables: variablesOf(ctx, raw), limit }));
      for (const doc of matches) access.remove(doc);
      n += matches.length;
    } catch (e) {
      errors.push(writeError(i, e));
      if (ordered) break;
    }
  }
  return withWriteErrors({ n, ok: 1 }, errors);
};

export const findAndModify: CommandHandler = async (ctx) => {
  const body = ctx.body;
  const name = collectionName(body.findAndModify ?? body.findandmodify, 'findAndModify');
  rejectUnsupported(body, 'collation');
  const access = ctx.access(name);
  checkHint(access, body.hint);
  const query = optionalDoc(body.query, 'query') ?? {};
  const sort = parseSort(body.sort);
  const remove = body.remove === true;
  if (remove && body.update !== undefined) throw failedToParse('Cannot specify both an update and remove=true');
  if (!remove && body.update === undefined) throw failedToParse('Either an update or remove=true must be specified');
  if (remove && body.upsert === true) throw failedToParse('Cannot specify both upsert=true and remove=true');
  const u = remove ? undefined : validateUpdate(body.update);
  const returnNew = body.new === true;
  const variables = evaluateLet(optionalDoc(body.let, 'let'));
  const arrayFilters = body.arrayFilters === undefined ? undefined : docArray(body.arrayFilters, 'arrayFilters');
  const fields = body.fields;
  const text = splitTextFilter(query);
  const { rest: projection, scoreFields } = splitMetaProjection(fields);
  if (!text && (scoreFields.length || sortsByTextScore(sort))) throw textScoreUnavailable();
  const textScores = text ? new Map<Doc, number>() : undefined;
  let score: number | undefined;
  const shown = (doc: Doc | null) =>
    doc && isPlainObject(fields) ? withScores(project([doc], projection, text ? text.rest : query), scoreFields, () => score, [doc])[0] : doc;

  const select = () => access.find(query, { variables, limit: sort ? undefined : 1, sortLimit: sort ? { sort, count: 1 } : undefined, textScores });
  const [target] = await afterLocks(access, () => sortDocs(select(), sort, textScores).slice(0, 1));
  if (target) score = textScores?.get(target);
  if (remove) {
    if (target) access.remove(target);
    return { lastErrorObject: { n: target ? 1 : 0 }, value: shown(target ?? null), ok: 1 };
  }
  if (target) {
    const after = applyUpdate(target, u!, { arrayFilters, filter: query, variables });
    if (!sameValue(target, after)) access.replace(target, after);
    return { lastErrorObject: { n: 1, updatedExisting: true }, value: shown(returnNew ? after : target), ok: 1 };
  }
  if (body.upsert === true) {
    const doc = upsertDocument(query, u!, { arrayFilters, variables });
    access.insert(doc);
    return { lastErrorObject: { n: 1, updatedExisting: false, upserted: doc._id }, value: shown(returnNew ? doc : null), ok: 1 };
  }
  return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
};
