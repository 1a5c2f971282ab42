/** Databases, collections and indexes. */
import { Query } from 'mingo';
import { UUID } from 'bson';
import { type CommandContext, type CommandHandler } from '../context.js';
import {
  MongoCommandError,
  badValue,
  indexKeySpecsConflict,
  indexNotFound,
  indexOptionsConflict,
  invalidOptions,
  namespaceExists,
  namespaceNotFound,
  operationNotSupportedInTransaction,
  unsupported,
} from '../errors.js';
import { checkedOperand } from '../query/filter.js';
import { ID_INDEX } from '../store/collection.js';
import { indexName, type IndexSpec } from '../store/indexes.js';
import { isTextKey, isTextSpec, normalizeTextIndexSpec, TEXT_INDEX_OPTIONS } from '../text/spec.js';
import { isPlainObject, keyOf, numberOf, type Doc } from '../values.js';
import { collectionName, docArray, optionalDoc, rejectUnsupported } from './arguments.js';

const UNSUPPORTED_CREATE_OPTIONS = ['capped', 'validator', 'timeseries', 'viewOn', 'clusteredIndex', 'changeStreamPreAndPostImages', 'encryptedFields', 'collation'];

const filterWith = (filter: Doc | undefined) => (filter ? new Query(checkedOperand(filter) as Doc) : undefined);

export const listDatabases: CommandHandler = (ctx) => {
  const filter = filterWith(optionalDoc(ctx.body.filter, 'filter'));
  const databases = [...ctx.state.engine.databases.entries()]
    .map(([name, colls]) => ({ name, sizeOnDisk: [...colls.values()].reduce((n, c) => n + c.count * 128, 0), empty: false }))
    .filter((d) => !filter || filter.test(d));
  if (ctx.body.nameOnly) return { databases: databases.map((d) => ({ name: d.name })), ok: 1 };
  return { databases, totalSize: databases.reduce((n, d) => n + d.sizeOnDisk, 0), totalSizeMb: 0, ok: 1 };
};

export const listCollections: CommandHandler = (ctx) => {
  const filter = filterWith(optionalDoc(ctx.body.filter, 'filter'));
  const entry = (name: string, options: Doc, uuid: UUID) => ({ name, type: 'collection', options, info: { readOnly: false, uuid }, idIndex: ID_INDEX });
  const entries: Doc[] = [...(ctx.state.engine.databases.get(ctx.db)?.values() ?? [])].map((c) => entry(c.name, c.options, c.uuid));
  if (ctx.txn) {
    // Collections this transaction creates (explicitly or by writing) exist for it alone.
    const pending = [...ctx.txn.createdCollections.values(), ...ctx.txn.writes.values()];
    for (const p of pending) if (p.db === ctx.db && !entries.some((e) => e.name === p.coll)) entries.push(entry(p.coll, {}, new UUID()));
  }
  const listed = entries.filter((e) => !filter || filter.test(e));
  const batch = ctx.body.nameOnly ? listed.map((e) => ({ name: e.name, type: e.type })) : listed;
  const cursor = ctx.state.cursors.start(`${ctx.db}.$cmd.listCollections`, batch, isPlainObject(ctx.body.cursor) ? numberOf(ctx.body.cursor.batchSize) : undefined);
  return { cursor: { id: cursor.id, ns: cursor.ns, firstBatch: cursor.batch }, ok: 1 };
};

export const create: CommandHandler = (ctx) => {
  const name = collectionName(ctx.body.create, 'create');
  rejectUnsupported(ctx.body, ...UNSUPPORTED_CREATE_OPTIONS);
  if (ctx.txn) {
    const ns = `${ctx.db}.${name}`;
    if (ctx.state.engine.collection(ctx.db, name) || ctx.txn.createdCollections.has(ns)) throw namespaceExists(`Collection ${ns} already exists.`);
    ctx.txn.createdCollections.set(ns, { db: ctx.db, coll: name, indexes: [] });
    return { ok: 1 };
  }
  ctx.state.engine.createCollection(ctx.db, name, {});
  return { ok: 1 };
};

export const drop: CommandHandler = (ctx) => {
  const name = collectionName(ctx.body.drop, 'drop');
  const dropped = ctx.state.engine.dropCollection(ctx.db, name);
  if (!dropped) throw namespaceNotFound('ns not found');
  return { nIndexesWas: dropped.specs().length, ns: dropped.ns, ok: 1 };
};

export const dropDatabase: CommandHandler = (ctx) => {
  ctx.state.engine.dropDatabase(ctx.db);
  return { dropped: ctx.db, ok: 1 };
};

const INDEX_OPTIONS = new Set(['v', 'key', 'name', 'unique', 'sparse', 'partialFilterExpression', 'expireAfterSeconds', 'background', 'hidden', 'ns']);

/** A text index: MongoDB's stored form (see text/spec.ts); unique, partial and TTL text indexes are refused. */
function normalizeTextSpec(raw: Doc): IndexSpec {
  for (const option of Object.keys(raw)) {
    if (!INDEX_OPTIONS.has(option) && !TEXT_INDEX_OPTIONS.has(option)) throw unsupported(`the index option '${option}'`);
  }
  if (raw.unique) throw unsupported('a unique text index');
  if (raw.partialFilterExpression !== undefined) throw unsupported('a partial text index (partialFilterExpression)');
  if (raw.expireAfterSeconds !== undefined) throw invalidOptions('TTL indexes are single-field indexes, compound indexes do not support TTL');
  return normalizeTextIndexSpec(raw, indexName, raw.sparse ? { sparse: true } : {});
}

function normalizeIndexSpec(raw: Doc): IndexSpec {
  const key = raw.key;
  if (!isPlainObject(key) || Object.keys(key).length === 0) throw badValue('Index key pattern must be a non-empty object');
  if (isTextKey(key)) return normalizeTextSpec(raw);
  for (const [field, dir] of Object.entries(key)) {
    const n = numberOf(dir);
    if (n === undefined || n === 0) throw unsupported(`index type ${JSON.stringify(dir)} on '${field}' (only ascending/descending indexes)`);
  }
  for (const option of Object.keys(raw)) {
    if (!INDEX_OPTIONS.has(option)) throw unsupported(`the index option '${option}'`);
  }
  const spec: IndexSpec = { v: 2, key: Object.fromEntries(Object.entries(key).map(([k, v]) => [k, numberOf(v)! > 0 ? 1 : -1])), name: '' };
  spec.name = typeof raw.name === 'string' ? raw.name : indexName(spec.key);
  if (raw.unique) spec.unique = true;
  if (raw.sparse) spec.sparse = true;
  if (raw.partialFilterExpression !== undefined) spec.partialFilterExpression = optionalDoc(raw.partialFilterExpression, 'partialFilterExpression');
  if (raw.expireAfterSeconds !== undefined) {
    const secs = numberOf(raw.expireAfterSeconds);
    if (secs === undefined || secs < 0) throw invalidOptions('TTL index expireAfterSeconds must be a non-negative number');
    if (Object.keys(spec.key).length !== 1) throw invalidOptions('TTL indexes are single-field indexes, compound indexes do not support TTL');
    spec.expireAfterSeconds = secs;
  }
  return spec;
}

const oneTextIndex = (existing: string) =>
  new MongoCommandError(67, 'CannotCreateIndex', `only one text index per collection allowed, found existing text index "${existing}"`);

const sameSpec = (a: IndexSpec, b: IndexSpec) => {
  const { v: _va, ...ra } = a;
  const { v: _vb, ...rb } = b;
  return keyOf(ra) === keyOf(rb);
};

export const createIndexes: CommandHandler = (ctx) => {
  const name = collectionName(ctx.body.createIndexes, 'createIndexes');
  rejectUnsupported(ctx.body, 'collation');
  const specs = docArray(ctx.body.indexes, 'indexes').map(normalizeIndexSpec);
  const engine = ctx.state.engine;
  if (ctx.txn) return createIndexesInTransaction(ctx, name, specs);
  const existed = engine.collection(ctx.db, name);
  const coll = existed ?? engine.ensureCollection(ctx.db, name);
  // Checked against the specs: an unloaded collection is loaded only to build an index it lacks.
  const before = coll.specs().length;
  let created = 0;
  for (const spec of specs) {
    if (spec.name === '_id_' || keyOf(spec.key) === keyOf({ _id: 1 })) continue;
    const existing = coll.indexSpecs();
    const sameName = existing.find((s) => s.name === spec.name);
    if (sameName) {
      if (sameSpec(sameName, spec)) continue;
      if (keyOf(sameName.key) === keyOf(spec.key)) {
        throw indexOptionsConflict(`An equivalent index already exists with the same name but different options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(sameName)}`);
      }
      throw indexKeySpecsConflict(`An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(sameName)}`);
    }
    // Every text index without prefix fields has the key { _fts: 'text', _ftsx: 1 }: a second one lands here.
    const sameKey = existing.find((s) => keyOf(s.key) === keyOf(spec.key) && keyOf(s.partialFilterExpression) === keyOf(spec.partialFilterExpression));
    if (sameKey) {
      if (sameSpec(sameKey, { ...spec, name: sameKey.name })) throw indexOptionsConflict(`Index already exists with a different name: ${sameKey.name}`);
      throw indexOptionsConflict(`An equivalent index already exists with a different name and options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(sameKey)}`);
    }
    const text = coll.textIndexSpec();
    if (text && isTextSpec(spec)) throw oneTextIndex(text.name);
    engine.createIndex(coll, spec);
    created += 1;
  }
  const reply: Doc = { createdCollectionAutomatically: !existed, numIndexesBefore: before, numIndexesAfter: coll.specs().length, ok: 1 };
  if (created === 0) reply.note = 'all indexes already exist';
  return reply;
};

/** Inside a transaction, as in MongoDB, only a collection the transaction creates can get indexes. */
function createIndexesInTransaction(ctx: CommandContext, name: string, specs: IndexSpec[]): Doc {
  const txn = ctx.txn!;
  const ns = `${ctx.db}.${name}`;
  if (ctx.state.engine.collection(ctx.db, name)) {
    throw operationNotSupportedInTransaction(`Cannot create new indexes on existing collection ${ns} in a multi-document transaction.`);
  }
  let pending = txn.createdCollections.get(ns);
  const createdAutomatically = !pending;
  if (!pending) txn.createdCollections.set(ns, (pending = { db: ctx.db, coll: name, indexes: [] }));
  const before = pending.indexes.length + 1;
  for (const spec of specs) {
    if (pending.indexes.some((i) => i.name === spec.name)) continue;
    const text = pending.indexes.find(isTextSpec);
    if (text && isTextSpec(spec)) throw oneTextIndex(text.name);
    pending.indexes.push(spec);
  }
  return { createdCollectionAutomatically: createdAutomatically, numIndexesBefore: before, numIndexesAfter: pending.indexes.length + 1, ok: 1 };
}

export const listIndexes: CommandHandler = (ctx) => {
  const name = collectionName(ctx.body.listIndexes, 'listIndexes');
  const coll = ctx.state.engine.collection(ctx.db, name);
  if (!coll) throw namespaceNotFound(`ns does not exist: ${ctx.db}.${name}`);
  const cursor = ctx.state.cursors.start(`${ctx.db}.${name}`, coll.specs() as Doc[], isPlainObject(ctx.body.cursor) ? numberOf(ctx.body.cursor.batchSize) : undefined);
  return { cursor: { id: cursor.id, ns: cursor.ns, firstBatch: cursor.batch }, ok: 1 };
};

export const dropIndexes: CommandHandler = (ctx) => {
  const name = collectionName(ctx.body.dropIndexes, 'dropIndexes');
  const coll = ctx.state.engine.collection(ctx.db, name);
  if (!coll) throw namespaceNotFound(`ns not found ${ctx.db}.${name}`);
  const was = coll.indexes.size + 1;
  const target = ctx.body.index;
  let names: string[];
  if (target === '*') names = [...coll.indexes.keys()];
  else if (typeof target === 'string') names = [target];
  else if (Array.isArray(target)) names = target.map(String);
  else if (isPlainObject(target)) {
    const found = [...coll.indexes.values()].find((i) => keyOf(i.spec.key) === keyOf(target));
    if (!found) throw indexNotFound(`can't find index with key: ${JSON.stringify(target)}`);
    names = [found.name];
  } else throw badValue("'index' must be a string, an array of strings or a key pattern");
  for (const n of names) {
    if (n === '_id_') throw invalidOptions('cannot drop _id index');
    if (!coll.indexes.has(n)) throw indexNotFound(`index not found with name [${n}]`);
  }
  for (const n of names) ctx.state.engine.dropIndex(coll, n);
  return { nIndexesWas: was, ok: 1 };
};

export const collMod: CommandHandler = (ctx) => {
  const name = collectionName(ctx.body.collMod, 'collMod');
  if (!ctx.state.engine.collection(ctx.db, name)) throw namespaceNotFound(`ns does not exist: ${ctx.db}.${name}`);
  const options = Object.keys(ctx.body).filter((k) => k !== 'collMod' && !k.startsWith('$') && !['lsid', 'txnNumber', 'writeConcern', 'comment'].includes(k));
  if (options.length) throw unsupported(`collMod options (${options.join(', ')})`);
  return { ok: 1 };
};

export const dbStats: CommandHandler = (ctx) => {
  const colls = [...(ctx.state.engine.databases.get(ctx.db)?.values() ?? [])];
  return {
    db: ctx.db,
    collections: colls.length,
    objects: colls.reduce((n, c) => n + c.count, 0),
    indexes: colls.reduce((n, c) => n + c.specs().length, 0),
    ok: 1,
  };
};

