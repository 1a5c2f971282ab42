/** commitTransaction, abortTransaction, endSessions, and the transaction lifecycle they drive. */
import { type CommandContext, type CommandHandler, type ServerState } from '../context.js';
import { noSuchTransaction, transactionCommitted } from '../errors.js';
import { lockKey } from '../store/engine.js';
import { type Transaction } from '../sessions.js';

/** Ends a transaction: releases its locks and stops preserving snapshot versions for it. */
export function finishTransaction(state: ServerState, txn: Transaction, outcome: 'committed' | 'aborted', reason?: string) {
  state.engine.snapshots.delete(txn);
  for (const [ns, w] of txn.writes) for (const idKey of w.docs.keys()) {
    const key = lockKey(ns, idKey);
    if (state.engine.locks.get(key) === txn) state.engine.locks.delete(key);
  }
  txn.end(outcome, reason);
}

export function abortTransaction(state: ServerState, txn: Transaction, reason: string) {
  if (txn.state !== 'active') return;
  finishTransaction(state, txn, 'aborted', reason);
}

function currentTransaction(ctx: CommandContext): Transaction {
  const txn = ctx.txn;
  if (!txn) throw noSuchTransaction('Given transaction number does not match any in-progress transactions.');
  return txn;
}

export const commitTransaction: CommandHandler = async (ctx) => {
  const txn = currentTransaction(ctx);
  if (txn.state === 'committed') return { ok: 1 };
  if (txn.state === 'aborted') throw noSuchTransaction(`Transaction ${txn.txnNumber} has been aborted${txn.abortReason ? `: ${txn.abortReason}` : ''}.`);
  // Leave the snapshot set first, so the commit's own writes are not preserved for itself.
  ctx.state.engine.snapshots.delete(txn);
  try {
    ctx.state.engine.applyAtomically(txn.writes, txn.createdCollections.values());
  } catch (e) {
    finishTransaction(ctx.state, txn, 'aborted', 'commit failed');
    throw e;
  }
  finishTransaction(ctx.state, txn, 'committed');
  await ctx.state.engine.durable();
  return { ok: 1 };
};

export const abortTransactionCommand: CommandHandler = (ctx) => {
  const txn = currentTransaction(ctx);
  if (txn.state === 'committed') throw transactionCommitted(`Transaction ${txn.txnNumber} has been committed.`);
  if (txn.state === 'aborted') throw noSuchTransaction(`Transaction ${txn.txnNumber} has been aborted.`);
  abortTransaction(ctx.state, txn, 'aborted by the client');
  return { ok: 1 };
};

export const endSessions: CommandHandler = (ctx) => {
  const ids = Array.isArray(ctx.body.endSessions) ? ctx.body.endSessions : [];
  for (const txn of ctx.state.sessions.end(ids)) abortTransaction(ctx.state, txn, 'session ended');
  return { ok: 1 };
};
