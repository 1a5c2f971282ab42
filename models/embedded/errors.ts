/** A MongoDB server error as the wire protocol reports it: `{ ok: 0, errmsg, code, codeName, errorLabels? }`. */
export class MongoCommandError extends Error {
  constructor(
    readonly code: number,
    readonly codeName: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly labels: string[] = [],
  ) {
    super(message);
    this.name = 'MongoCommandError';
  }

  toReply(): Record<string, unknown> {
    const reply: Record<string, unknown> = { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
    if (this.labels.length > 0) reply.errorLabels = this.labels;
    return reply;
  }
}

export const badValue = (message: string) => new MongoCommandError(2, 'BadValue', message);
export const failedToParse = (message: string) => new MongoCommandError(9, 'FailedToParse', message);
export const typeMismatch = (message: string) => new MongoCommandError(14, 'TypeMismatch', message);
export const namespaceNotFound = (message: string) => new MongoCommandError(26, 'NamespaceNotFound', message);
export const indexNotFound = (message: string) => new MongoCommandError(27, 'IndexNotFound', message);
export const pathNotViable = (message: string) => new MongoCommandError(28, 'PathNotViable', message);
export const conflictingUpdateOperators = (message: string) => new MongoCommandError(40, 'ConflictingUpdateOperators', message);
export const cursorNotFound = (id: string) => new MongoCommandError(43, 'CursorNotFound', `cursor id ${id} not found`);
export const namespaceExists = (message: string) => new MongoCommandError(48, 'NamespaceExists', message);
export const commandNotFound = (name: string) => new MongoCommandError(59, 'CommandNotFound', `no such command: '${name}'`);
export const immutableField = (message: string) => new MongoCommandError(66, 'ImmutableField', message);
export const invalidOptions = (message: string) => new MongoCommandError(72, 'InvalidOptions', message);
export const invalidNamespace = (message: string) => new MongoCommandError(73, 'InvalidNamespace', message);
export const indexOptionsConflict = (message: string) => new MongoCommandError(85, 'IndexOptionsConflict', message);
export const indexKeySpecsConflict = (message: string) => new MongoCommandError(86, 'IndexKeySpecsConflict', message);
export const cannotIndexParallelArrays = (message: string) => new MongoCommandError(171, 'CannotIndexParallelArrays', message);
export const operationNotSupportedInTransaction = (message: string) =>
  new MongoCommandError(263, 'OperationNotSupportedInTransaction', message);

export const TRANSIENT = 'TransientTransactionError';
export const writeConflict = () =>
  new MongoCommandError(
    112,
    'WriteConflict',
    'Caused by :: Write conflict during plan execution and yielding is disabled. :: Please retry your operation or multi-document transaction.',
    {},
    [TRANSIENT],
  );
export const noSuchTransaction = (message: string) => new MongoCommandError(251, 'NoSuchTransaction', message, {}, [TRANSIENT]);
export const transactionTooOld = (message: string) => new MongoCommandError(225, 'TransactionTooOld', message);
export const transactionCommitted = (message: string) => new MongoCommandError(256, 'TransactionCommitted', message);

/** What the embedded server cannot do exactly: said loudly, never answered wrongly. */
export const unsupported = (what: string) =>
  new MongoCommandError(2, 'BadValue', `${what} is not supported by troupe's embedded MongoDB-compatible server (use a real MongoDB via MONGODB_URI)`);

/** E11000 with keyPattern and keyValue, as MongoDB reports a unique index violation. */
export class DuplicateKeyError extends MongoCommandError {
  constructor(ns: string, indexName: string, keyPattern: Record<string, unknown>, keyValue: Record<string, unknown>, shown: string) {
    super(11000, 'DuplicateKey', `E11000 duplicate key error collection: ${ns} index: ${indexName} dup key: ${shown}`, {
      keyPattern,
      keyValue,
    });
  }
}
