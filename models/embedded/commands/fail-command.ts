/**
 * MongoDB's test-only fault injection, as mongod has it with `--setParameter enableTestCommands=1`:
 * the `configureFailPoint` and `waitForFailPoint` commands and the `failCommand` fail point that
 * drivers' spec tests use (closeConnection, errorCode, errorLabels, writeConcernError, blockConnection,
 * appName, namespace, threadName, failAllCommands, errorExtraInfo).
 *
 * Where mongod evaluates it, so do we (src/mongo/db/commands.cpp, service_entry_point_common.cpp):
 * - before the command runs (after the command lookup, before sessions and transactions are
 *   touched), for a matching command whose data has closeConnection, blockConnection or errorCode:
 *   first block `blockTimeMS` on a timer, then close the connection, then fail with `errorCode`;
 *   a block alone lets the command run normally afterwards. An error injected here does not abort
 *   the session's transaction;
 * - after a command that takes a write concern (and getMore) ran, for data with writeConcernError:
 *   the reply gets that `writeConcernError`.
 * Each of the two is one pass over the fail point: it counts as entered, and consumes `times`, when
 * it activates.
 */
import { type ClientConnection, type CommandContext, type CommandHandler } from '../context.js';
import { MongoCommandError } from '../errors.js';
import { type FailPointMode } from '../fail-points.js';
import { isPlainObject, numberOf, type Doc } from '../values.js';

const FAILPOINT_MESSAGE = "Failing command via 'failCommand' failpoint";
const INT32_MAX = 2 ** 31 - 1;

const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** bsonExtractIntegerField: a number with an exact integral value, else undefined. */
function integerOf(v: unknown): number | undefined {
  const n = numberOf(v);
  return n !== undefined && Number.isInteger(n) ? n : undefined;
}

function requireInteger(v: unknown, field: string): number {
  const n = numberOf(v);
  if (n === undefined) throw new MongoCommandError(14, 'TypeMismatch', `"${field}" had the wrong type. Expected a number, found ${typeName(v)}`);
  if (!Number.isInteger(n)) {
    throw new MongoCommandError(2, 'BadValue', `Expected field "${field}" to have a value exactly representable as a 64-bit integer, but found ${field}: ${n}`);
  }
  return n;
}

function requireAdmin(ctx: CommandContext, command: string) {
  if (ctx.db !== 'admin') throw new MongoCommandError(13, 'Unauthorized', `${command} may only be run against the admin database.`);
}

const failPointNotFound = (name: string) =>
  new MongoCommandError(266, 'FailPointSetFailed', `${name} not found (troupe's embedded server has only the 'failCommand' fail point)`);

/** FailPoint::parseBSON */
function parseMode(body: Doc): { mode: FailPointMode; value: number; data: Doc } {
  const mode = body.mode;
  let parsed: { mode: FailPointMode; value: number };
  if (mode === undefined) {
    throw new MongoCommandError(20, 'IllegalOperation', "When setting a failpoint, you must supply a 'mode'");
  } else if (typeof mode === 'string') {
    if (mode !== 'off' && mode !== 'alwaysOn') throw new MongoCommandError(2, 'BadValue', `unknown mode: ${mode}`);
    parsed = { mode, value: 0 };
  } else if (isPlainObject(mode)) {
    if ('times' in mode || 'skip' in mode) {
      const field = 'times' in mode ? 'times' : 'skip';
      const n = requireInteger(mode[field], field);
      if (n < 0) throw new MongoCommandError(2, 'BadValue', `'${field}' option to 'mode' must be positive`);
      if (n > INT32_MAX) throw new MongoCommandError(2, 'BadValue', `'${field}' option to 'mode' is too large`);
      parsed = { mode: field, value: n };
    } else if ('activationProbability' in mode) {
      const p = numberOf(mode.activationProbability);
      if (p === undefined) {
        throw new MongoCommandError(14, 'TypeMismatch', "the 'activationProbability' option to 'mode' must be a double between 0 and 1");
      }
      if (p < 0 || p > 1) throw new MongoCommandError(2, 'BadValue', `activationProbability must be between 0.0 and 1.0; found ${p}`);
      parsed = { mode: 'random', value: Math.trunc(INT32_MAX * p) };
    } else {
      throw new MongoCommandError(2, 'BadValue', "'mode' must be one of 'off', 'alwaysOn', '{times:n}', '{skip:n}' or '{activationProbability:p}'");
    }
  } else {
    throw new MongoCommandError(14, 'TypeMismatch', "'mode' must be a string or JSON object");
  }
  const data = body.data;
  if (data !== undefined && !isPlainObject(data)) throw new MongoCommandError(14, 'TypeMismatch', "the 'data' option must be a JSON object");
  return { ...parsed, data: data ?? {} };
}

/** `{ configureFailPoint: name, mode, data }` → `{ count: <times entered before this change>, ok: 1 }` */
export const configureFailPoint: CommandHandler = (ctx) => {
  requireAdmin(ctx, 'configureFailPoint');
  const name = typeof ctx.body.configureFailPoint === 'string' ? ctx.body.configureFailPoint : '';
  const failPoint = ctx.state.failPoints.find(name);
  if (!failPoint) throw failPointNotFound(name);
  const { mode, value, data } = parseMode(ctx.body);
  const count = failPoint.setMode(mode, value, data);
  ctx.state.logger.info({ failPoint: name, mode: ctx.body.mode, data, timesEntered: count }, 'embedded mongo: set fail point');
  return { count, ok: 1 };
};

/**
 * `{ waitForFailPoint: name, timesEntered: n, maxTimeMS: m }`: returns `{ ok: 1 }` once the fail point
 * has been entered n times in total since the server started (configureFailPoint's `count` plus the
 * entries awaited), or fails with 50 MaxTimeMSExpired after m ms (0 = no limit, as for any maxTimeMS).
 */
export const waitForFailPoint: CommandHandler = async (ctx) => {
  requireAdmin(ctx, 'waitForFailPoint');
  const { body, state } = ctx;
  const name = body.waitForFailPoint;
  if (typeof name !== 'string') {
    throw new MongoCommandError(14, 'TypeMismatch', `BSON field 'waitForFailPoint.waitForFailPoint' is the wrong type '${typeName(name)}', expected type 'string'`);
  }
  if (body.timesEntered === undefined) {
    throw new MongoCommandError(40414, 'Location40414', "BSON field 'waitForFailPoint.timesEntered' is missing but a required field");
  }
  const target = numberOf(body.timesEntered);
  if (target === undefined) {
    throw new MongoCommandError(14, 'TypeMismatch', `BSON field 'waitForFailPoint.timesEntered' is the wrong type '${typeName(body.timesEntered)}', expected types '[long, int, decimal, double]'`);
  }
  if (body.maxTimeMS === undefined) throw new MongoCommandError(9, 'FailedToParse', 'Missing maxTimeMS');
  const maxTimeMS = numberOf(body.maxTimeMS);
  if (maxTimeMS === undefined || !Number.isInteger(maxTimeMS) || maxTimeMS < 0) {
    throw new MongoCommandError(2, 'BadValue', 'maxTimeMS must be a non-negative integer');
  }
  const failPoint = state.failPoints.find(name);
  if (!failPoint) throw failPointNotFound(name);
  const reached = await failPoint.waitForTimesEntered(target, maxTimeMS === 0 ? undefined : maxTimeMS, [ctx.connection.closed, state.failPoints.stopping]);
  if (reached) return { ok: 1 };
  if (state.failPoints.stopping.aborted) throw new MongoCommandError(11600, 'InterruptedAtShutdown', 'interrupted at shutdown');
  if (ctx.connection.closed.aborted) throw new MongoCommandError(279, 'ClientDisconnect', 'operation was interrupted because a client disconnected');
  throw new MongoCommandError(50, 'MaxTimeMSExpired', 'operation exceeded time limit');
};

/** The namespace a command works on, as mongod's `CommandInvocation::ns()` gives it (for `namespace`). */
function namespaceOf(db: string, name: string, body: Doc): string {
  if (name === 'getMore') return typeof body.collection === 'string' ? `${db}.${body.collection}` : db;
  if (name === 'explain' && isPlainObject(body.explain)) {
    const inner = Object.keys(body.explain)[0];
    return inner === undefined ? db : namespaceOf(db, inner, body.explain);
  }
  if (name === 'waitForFailPoint') return db;
  const first = body[name];
  return typeof first === 'string' ? `${db}.${first}` : db;
}

/** `failCommands` names the command or one of its aliases (mongod's `Command::hasAlias`). */
export type SameCommand = (listed: string, running: string) => boolean;

/** CommandHelpers::shouldActivateFailCommandFailPoint */
function shouldActivate(data: Doc, ctx: CommandContext, name: string, sameCommand: SameCommand): boolean {
  if (name === 'configureFailPoint') return false; // banned even if listed
  const stringField = (v: unknown) => (typeof v === 'string' ? v : '');
  const connection: ClientConnection = ctx.connection;
  if ('threadName' in data && stringField(data.threadName) !== `conn${connection.id}`) return false;
  if ('appName' in data && stringField(data.appName) !== (connection.appName ?? '')) return false;
  if ('namespace' in data && stringField(data.namespace) !== namespaceOf(ctx.db, name, ctx.body)) return false;
  if ('failAllCommands' in data) return true;
  const listed = data.failCommands;
  const names = Array.isArray(listed) ? listed : isPlainObject(listed) ? Object.values(listed) : [];
  return names.some((n) => typeof n === 'string' && sameCommand(n, name));
}

// Error categories from mongod's error_codes.yml, for the labels on injected errors.
const RETRIABLE = new Set([6, 7, 89, 91, 189, 262, 317, 358, 9001, 10107, 11600, 11602, 13435, 13436, 50915]);
const SNAPSHOT = new Set([239, 246, 250, 272]);
const NEED_RETARGETTING = new Set([150, 13388]);
const ALWAYS_TRANSIENT = new Set([24, 112, 249, 267, 304, 321, 325, 343]);

/** mongo::isTransientTransactionError */
function isTransientTransactionError(code: number, hasWriteConcernError: boolean, isCommitOrAbort: boolean): boolean {
  if (code === 358) return false; // InternalTransactionNotSupported
  if (ALWAYS_TRANSIENT.has(code)) return true;
  if (SNAPSHOT.has(code) || NEED_RETARGETTING.has(code)) return true;
  if (isCommitOrAbort) return code === 251 && !hasWriteConcernError;
  return RETRIABLE.has(code) || code === 251;
}

/**
 * The labels mongod's ErrorLabelBuilder puts on an error (`code`) or a write concern error (`wcCode`):
 * TransientTransactionError inside transactions, RetryableWriteError for retryable writes and for
 * commitTransaction / abortTransaction.
 */
export function errorLabelsFor(body: Doc, name: string, code: number | undefined, wcCode: number | undefined): string[] {
  const hasTxnNumber = body.txnNumber !== undefined;
  const hasAutocommit = body.autocommit !== undefined;
  const isCommitOrAbort = name === 'commitTransaction' || name === 'abortTransaction';
  if (code !== undefined && hasTxnNumber && hasAutocommit && isTransientTransactionError(code, wcCode !== undefined, isCommitOrAbort)) {
    return ['TransientTransactionError'];
  }
  const retryableWrite = hasTxnNumber && !hasAutocommit;
  const commitOrAbort = hasTxnNumber && hasAutocommit && isCommitOrAbort;
  if ((retryableWrite || commitOrAbort) && ((code !== undefined && RETRIABLE.has(code)) || (wcCode !== undefined && RETRIABLE.has(wcCode)))) {
    return ['RetryableWriteError'];
  }
  return [];
}

const CODE_NAMES: Record<number, string> = {
  1: 'InternalError', 2: 'BadValue', 4: 'NoSuchKey', 6: 'HostUnreachable', 7: 'HostNotFound', 8: 'UnknownError',
  9: 'FailedToParse', 11: 'UserNotFound', 13: 'Unauthorized', 14: 'TypeMismatch', 18: 'AuthenticationFailed',
  20: 'IllegalOperation', 24: 'LockTimeout', 26: 'NamespaceNotFound', 27: 'IndexNotFound', 43: 'CursorNotFound',
  46: 'LockBusy', 48: 'NamespaceExists', 50: 'MaxTimeMSExpired', 59: 'CommandNotFound', 64: 'WriteConcernFailed',
  66: 'ImmutableField', 67: 'CannotCreateIndex', 72: 'InvalidOptions', 73: 'InvalidNamespace', 79: 'UnknownReplWriteConcern',
  85: 'IndexOptionsConflict', 86: 'IndexKeySpecsConflict', 89: 'NetworkTimeout', 90: 'CallbackCanceled',
  91: 'ShutdownInProgress', 96: 'OperationFailed', 100: 'UnsatisfiableWriteConcern', 112: 'WriteConflict',
  115: 'CommandNotSupported', 117: 'ConflictingOperationInProgress', 121: 'DocumentValidationFailure',
  125: 'CommandFailed', 133: 'FailedToSatisfyReadPreference', 134: 'ReadConcernMajorityNotAvailableYet',
  136: 'CappedPositionLost', 150: 'StaleEpoch', 175: 'QueryPlanKilled', 189: 'PrimarySteppedDown',
  202: 'NetworkInterfaceExceededTimeLimit', 211: 'KeyNotFound', 225: 'TransactionTooOld', 237: 'CursorKilled',
  239: 'SnapshotTooOld', 244: 'NOT_YET_AVAILABLE_TransactionAborted', 246: 'SnapshotUnavailable', 249: 'StaleDbVersion',
  250: 'StaleChunkHistory', 251: 'NoSuchTransaction', 256: 'TransactionCommitted', 257: 'TransactionTooLarge',
  262: 'ExceededTimeLimit', 263: 'OperationNotSupportedInTransaction', 266: 'FailPointSetFailed',
  267: 'PreparedTransactionInProgress', 272: 'MigrationConflict', 279: 'ClientDisconnect', 280: 'ChangeStreamFatalError',
  286: 'ChangeStreamHistoryLost', 290: 'TransactionExceededLifetimeLimitSeconds', 304: 'ShardInvalidatedForTargeting',
  317: 'ConnectionPoolExpired', 321: 'TenantMigrationCommitted', 325: 'TenantMigrationAborted',
  343: 'ShardCannotRefreshDueToLocksHeld', 358: 'InternalTransactionNotSupported', 9001: 'SocketException',
  10107: 'NotWritablePrimary', 11000: 'DuplicateKey', 11600: 'InterruptedAtShutdown', 11601: 'Interrupted',
  11602: 'InterruptedDueToReplStateChange', 13388: 'StaleConfig', 13435: 'NotPrimaryNoSecondaryOk',
  13436: 'NotPrimaryOrSecondary', 46841: 'ClientMarkedKilled', 50915: 'BackupCursorOpenConflictWithCheckpoint',
};

/** The codeName mongod reports; codes outside ErrorCodes are named `Location<code>`, as mongod does. */
export const codeNameOf = (code: number) => CODE_NAMES[code] ?? `Location${code}`;

/** What one command's failCommand activations left for its reply. */
export interface FailCommandEffects {
  /** The fail point's `errorLabels`: they replace the labels of this command's error reply. */
  labelsOverride?: unknown[];
}

const labelsOverrideOf = (data: Doc) => (Array.isArray(data.errorLabels) ? data.errorLabels : undefined);

/**
 * CommandHelpers::evaluateFailCommandFailPoint: before the command runs. Throws the injected error
 * (after closing the connection, for closeConnection); resolves when the command should run.
 */
export async function failCommandBeforeRun(ctx: CommandContext, name: string, sameCommand: SameCommand, effects: FailCommandEffects): Promise<void> {
  let closeConnection = false;
  let blockConnection = false;
  let errorCode: number | undefined;
  const data = ctx.state.failPoints.failCommand.evaluate((d) => {
    closeConnection = d.closeConnection === true;
    blockConnection = d.blockConnection === true;
    errorCode = integerOf(d.errorCode);
    return shouldActivate(d, ctx, name, sameCommand) && (closeConnection || blockConnection || errorCode !== undefined);
  });
  if (!data) return;
  const { logger } = ctx.state;
  const labelsOverride = labelsOverrideOf(data);
  if (labelsOverride) effects.labelsOverride = labelsOverride;
  const fail = (code: number, extra: Doc = {}) => {
    const labels = labelsOverride ?? errorLabelsFor(ctx.body, name, code, undefined);
    return new MongoCommandError(code, codeNameOf(code), FAILPOINT_MESSAGE, extra, labels.filter((l): l is string => typeof l === 'string'));
  };

  if (blockConnection) {
    const blockTimeMS = integerOf(data.blockTimeMS);
    if (blockTimeMS === undefined) throw invalidOptions("must specify 'blockTimeMS' when 'blockConnection' is true", labelsOverride);
    if (blockTimeMS < 0) throw invalidOptions("'blockTimeMS' must be non-negative", labelsOverride);
    logger.debug({ command: name, connectionId: ctx.connection.id, blockTimeMS }, 'embedded mongo: blocking command via failCommand fail point');
    await ctx.state.failPoints.sleep(blockTimeMS);
    logger.debug({ command: name, connectionId: ctx.connection.id }, 'embedded mongo: unblocking command via failCommand fail point');
  }

  if (closeConnection) {
    logger.info({ command: name, connectionId: ctx.connection.id }, 'embedded mongo: failing command via failCommand fail point: closing connection');
    ctx.connection.close();
    throw fail(50985);
  }

  if (errorCode !== undefined && errorCode !== 0) {
    let extra: Doc = {};
    if ('errorExtraInfo' in data) {
      if (!isPlainObject(data.errorExtraInfo)) {
        throw new MongoCommandError(14, 'TypeMismatch', `"errorExtraInfo" had the wrong type. Expected object, found ${typeName(data.errorExtraInfo)}`);
      }
      extra = data.errorExtraInfo;
    }
    logger.info({ command: name, connectionId: ctx.connection.id, errorCode }, 'embedded mongo: failing command via failCommand fail point');
    throw fail(errorCode, extra);
  }
}

function invalidOptions(message: string, labelsOverride: unknown[] | undefined) {
  const labels = (labelsOverride ?? []).filter((l): l is string => typeof l === 'string');
  return new MongoCommandError(72, 'InvalidOptions', message, {}, labels);
}

const WRITE_CONCERN_COMMANDS = new Set([
  'insert', 'update', 'delete', 'findAndModify', 'findandmodify', 'create', 'drop', 'dropDatabase', 'createIndexes',
  'dropIndexes', 'deleteIndexes', 'collMod', 'commitTransaction', 'abortTransaction',
]);

/** Commands for which mongod waits for write concern (and so may inject a writeConcernError). */
function waitsForWriteConcern(name: string, body: Doc): boolean {
  if (WRITE_CONCERN_COMMANDS.has(name) || name === 'getMore') return true;
  if (name !== 'aggregate' || !Array.isArray(body.pipeline)) return false;
  return body.pipeline.some((stage) => isPlainObject(stage) && ('$out' in stage || '$merge' in stage));
}

/**
 * RunCommandAndWaitForWriteConcern::_waitForWriteConcern: after a command that takes a write
 * concern ran (successfully or not), `writeConcernError` from the fail point goes on its reply.
 */
export function failCommandAfterRun(ctx: CommandContext, name: string, sameCommand: SameCommand, effects: FailCommandEffects, reply: Doc): Doc {
  if (!waitsForWriteConcern(name, ctx.body)) return reply;
  const data = ctx.state.failPoints.failCommand.evaluate((d) => shouldActivate(d, ctx, name, sameCommand) && 'writeConcernError' in d);
  if (!data) return reply;
  const labelsOverride = labelsOverrideOf(data);
  if (labelsOverride) effects.labelsOverride = labelsOverride;
  ctx.state.logger.info({ command: name, connectionId: ctx.connection.id }, 'embedded mongo: writeConcernError via failCommand fail point');
  const writeConcernError = data.writeConcernError;
  const wcCode = isPlainObject(writeConcernError) ? integerOf(writeConcernError.code) : undefined;
  const failed = numberOf(reply.ok) !== 1;
  const code = failed ? integerOf(reply.code) : undefined;
  const next: Doc = { ...reply, writeConcernError };
  const labels = errorLabelsFor(ctx.body, name, code, wcCode);
  if (labels.length) next.errorLabels = [...new Set([...(Array.isArray(reply.errorLabels) ? reply.errorLabels : []), ...labels])];
  return next;
}

/** getErrorLabels: a fail point's `errorLabels` replace the labels of the command's error reply. */
export function applyLabelsOverride(effects: FailCommandEffects, reply: Doc): Doc {
  const override = effects.labelsOverride;
  if (!override || (numberOf(reply.ok) === 1 && reply.writeConcernError === undefined)) return reply;
  const next: Doc = { ...reply };
  if (override.length) next.errorLabels = override;
  else delete next.errorLabels;
  return next;
}
