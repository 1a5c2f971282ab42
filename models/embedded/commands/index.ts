/**
 * The command table and the pipeline every command goes through: session and transaction resolution,
 * retryable-write deduplication, the handler, durability, then cluster time on the reply.
 */
import { DirectAccess, TransactionAccess } from '../access.js';
import { type ClientConnection, type CommandContext, type CommandHandler, type ServerState } from '../context.js';
import {
  commandNotFound,
  MongoCommandError,
  noSuchTransaction,
  operationNotSupportedInTransaction,
  transactionTooOld,
  unsupported,
} from '../errors.js';
import { Transaction } from '../sessions.js';
import { isPlainObject, numberOf, Binary, Long, type Doc } from '../values.js';
import * as catalog from './catalog.js';
import { applyLabelsOverride, configureFailPoint, failCommandAfterRun, failCommandBeforeRun, waitForFailPoint, type FailCommandEffects } from './fail-command.js';
import * as handshake from './handshake.js';
import * as read from './read.js';
import * as txns from './transactions.js';
import * as write from './write.js';

const COMMANDS: Record<string, CommandHandler> = {
  hello: handshake.hello,
  isMaster: handshake.hello,
  ismaster: handshake.hello,
  ping: handshake.ping,
  buildInfo: handshake.buildInfo,
  buildinfo: handshake.buildInfo,
  whatsmyuri: handshake.whatsmyuri,
  getParameter: handshake.getParameter,
  hostInfo: handshake.hostInfo,
  connectionStatus: handshake.connectionStatus,
  serverStatus: handshake.serverStatus,
  listDatabases: catalog.listDatabases,
  listCollections: catalog.listCollections,
  create: catalog.create,
  drop: catalog.drop,
  dropDatabase: catalog.dropDatabase,
  createIndexes: catalog.createIndexes,
  listIndexes: catalog.listIndexes,
  dropIndexes: catalog.dropIndexes,
  deleteIndexes: catalog.dropIndexes,
  collMod: catalog.collMod,
  dbStats: catalog.dbStats,
  insert: write.insert,
  update: write.update,
  delete: write.del,
  findAndModify: write.findAndModify,
  findandmodify: write.findAndModify,
  find: read.find,
  getMore: read.getMore,
  killCursors: read.killCursors,
  count: read.count,
  distinct: read.distinct,
  aggregate: read.aggregate,
  explain: read.explain,
  commitTransaction: txns.commitTransaction,
  abortTransaction: txns.abortTransactionCommand,
  endSessions: txns.endSessions,
};

/** Registered only with test commands enabled (mongod's `enableTestCommands=1`); otherwise 59, as there. */
const TEST_COMMANDS: Record<string, CommandHandler> = {
  configureFailPoint,
  waitForFailPoint,
};

const handlerOf = (state: ServerState, name: string): CommandHandler | undefined =>
  Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : state.enableTestCommands && Object.hasOwn(TEST_COMMANDS, name) ? TEST_COMMANDS[name] : undefined;

/** The client metadata of a connection comes with its first hello / isMaster (legacy OP_QUERY included). */
function noteClientMetadata(connection: ClientConnection, handler: CommandHandler, body: Doc) {
  if (handler !== handshake.hello || connection.appName !== undefined || !isPlainObject(body.client)) return;
  const application = body.client.application;
  if (isPlainObject(application) && typeof application.name === 'string') connection.appName = application.name;
}

const RETRYABLE = new Set(['insert', 'update', 'delete', 'findAndModify', 'findandmodify']);
const ALLOWED_IN_TRANSACTION = new Set([
  'find', 'getMore', 'killCursors', 'insert', 'update', 'delete', 'findAndModify', 'findandmodify', 'aggregate', 'distinct',
  'commitTransaction', 'abortTransaction', 'create', 'createIndexes', 'listCollections', 'listIndexes', 'ping', 'hello', 'isMaster',
]);

const txnNumberOf = (v: unknown) => (v instanceof Long ? v.toNumber() : numberOf(v));

/** Resolves (or starts) the transaction a command belongs to. */
function transactionFor(state: ServerState, ctx: CommandContext, name: string): Transaction | undefined {
  const { body, session } = ctx;
  if (body.autocommit !== false || !session) return undefined;
  const txnNumber = txnNumberOf(body.txnNumber);
  if (txnNumber === undefined) return undefined;
  if (!ALLOWED_IN_TRANSACTION.has(name)) throw operationNotSupportedInTransaction(`Cannot run '${name}' in a multi-document transaction.`);
  if (body.startTransaction === true) {
    if (txnNumber < session.txnNumber) throw transactionTooOld(`Cannot start transaction ${txnNumber} on session because a newer transaction ${session.txnNumber} has already started.`);
    if (txnNumber === session.txnNumber && session.transaction) {
      throw new MongoCommandError(251, 'NoSuchTransaction', `Transaction ${txnNumber} has already been started.`);
    }
    if (session.transaction) txns.abortTransaction(state, session.transaction, 'superseded by a newer transaction');
    const txn = new Transaction(session, txnNumber);
    session.txnNumber = txnNumber;
    session.transaction = txn;
    state.engine.snapshots.add(txn);
    return txn;
  }
  const txn = session.transaction;
  if (!txn || txn.txnNumber !== txnNumber) {
    throw noSuchTransaction(`Given transaction number ${txnNumber} does not match any in-progress transactions.`);
  }
  if (txn.state === 'active' && Date.now() - txn.startedAt > state.transactionLifetimeLimitMs) {
    txns.abortTransaction(state, txn, 'it exceeded the transaction lifetime limit (transactionLifetimeLimitSeconds)');
  }
  if (txn.state === 'aborted' && name !== 'abortTransaction') {
    throw noSuchTransaction(`Transaction ${txnNumber} has been aborted${txn.abortReason ? ` because ${txn.abortReason}` : ''}.`);
  }
  return txn;
}

function withClusterTime(state: ServerState, reply: Doc, wrote: boolean): Doc {
  const time = wrote ? state.clock.tick() : state.clock.now();
  reply.operationTime = time;
  reply.$clusterTime = { clusterTime: time, signature: { hash: new Binary(Buffer.alloc(20), 0), keyId: Long.ZERO } };
  return reply;
}

/** Runs one command and returns its reply document (errors become `{ ok: 0, ... }` replies). */
export async function runCommand(state: ServerState, db: string, body: Doc, connection: ClientConnection): Promise<Doc> {
  const name = Object.keys(body)[0];
  const handler = name === undefined ? undefined : handlerOf(state, name);
  if (!handler || name === undefined) return withClusterTime(state, commandNotFound(name ?? '').toReply(), false);
  noteClientMetadata(connection, handler, body);
  const ctx: CommandContext = {
    state,
    db,
    body,
    connectionId: connection.id,
    connection,
    session: isPlainObject(body.lsid) ? state.sessions.get(body.lsid) : undefined,
    access: (coll: string) =>
      ctx.txn ? new TransactionAccess(state.engine, state.metrics, ctx.txn, db, coll) : new DirectAccess(state.engine, state.metrics, db, coll),
  };
  state.metrics.command(name, body);
  // Aliases (isMaster / hello, findandmodify / findAndModify, …) share a handler: failCommands may name any.
  const sameCommand = (listed: string, running: string) => handlerOf(state, listed) !== undefined && handlerOf(state, listed) === handlerOf(state, running);
  const faults: FailCommandEffects = {};
  let reply: Doc;
  let ran = false;
  try {
    // Before sessions and transactions are looked at, as in mongod: an injected error leaves them as they were.
    if (state.enableTestCommands) await failCommandBeforeRun(ctx, name, sameCommand, faults);
    const readConcern = isPlainObject(body.readConcern) ? body.readConcern : undefined;
    if (readConcern?.level === 'snapshot' && body.autocommit !== false) throw unsupported('readConcern level "snapshot" outside a transaction (snapshot sessions)');
    if (readConcern?.level === 'linearizable' && (name === 'aggregate' || RETRYABLE.has(name))) {
      throw new MongoCommandError(2, 'BadValue', `readConcern level "linearizable" is not allowed for ${name} with writes`);
    }
    ran = true; // from here on mongod waits for write concern, on errors too
    ctx.txn = transactionFor(state, ctx, name);
    const retryNumber = !ctx.txn && ctx.session && RETRYABLE.has(name) ? txnNumberOf(body.txnNumber) : undefined;
    const previous = ctx.session?.lastRetryable;
    if (retryNumber !== undefined && previous?.txnNumber === retryNumber) {
      reply = previous.reply;
    } else {
      reply = await handler(ctx);
      if (retryNumber !== undefined && ctx.session) ctx.session.lastRetryable = { txnNumber: retryNumber, reply };
    }
    const w = isPlainObject(body.writeConcern) ? numberOf(body.writeConcern.w) : undefined;
    if (w !== undefined && w > 1 && (RETRYABLE.has(name) || name === 'commitTransaction')) {
      // One node cannot acknowledge for several: the write is applied, the concern reported unsatisfiable.
      reply = { ...reply, writeConcernError: { code: 100, codeName: 'UnsatisfiableWriteConcern', errmsg: 'Not enough data-bearing nodes' } };
    }
    if (ctx.txn && ctx.txn.state === 'active' && Array.isArray(reply.writeErrors) && reply.writeErrors.length) {
      txns.abortTransaction(state, ctx.txn, 'a write in it failed');
    }
    if (!ctx.txn) await state.engine.durable();
  } catch (e) {
    if (ctx.txn && ctx.txn.state === 'active' && name !== 'commitTransaction' && name !== 'abortTransaction') {
      txns.abortTransaction(state, ctx.txn, 'an operation in it failed');
    }
    if (e instanceof MongoCommandError) reply = e.toReply();
    else {
      state.logger.error({ err: e, command: name }, 'embedded mongo: command failed unexpectedly');
      reply = { ok: 0, errmsg: e instanceof Error ? e.message : String(e), code: 1, codeName: 'InternalError' };
    }
  }
  if (state.enableTestCommands) {
    if (ran) reply = failCommandAfterRun(ctx, name, sameCommand, faults, reply);
    reply = applyLabelsOverride(faults, reply);
  }
  return withClusterTime(state, reply, RETRYABLE.has(name) || name === 'commitTransaction');
}
