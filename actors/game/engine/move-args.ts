/** Reading a move's argument (card name or yes/no) into engine terms, with the error to report. */
import { cardId } from './cards.js';
import { moveError, type MoveError } from './errors.js';
import type { Move } from './moves.js';

export type CardArg = { ok: true; card: number } | { ok: false; error: MoveError };
export type OptionalCardArg = { ok: true; card: number | null } | { ok: false; error: MoveError };

export function readCard(move: Move): CardArg {
  const name = (move as { card?: unknown }).card;
  if (typeof name !== 'string') return { ok: false, error: moveError('invalid_move', `${move.type} needs a card name`) };
  const id = cardId(name);
  if (id < 0) return { ok: false, error: moveError('unknown_card', `Unknown card: ${name}`) };
  return { ok: true, card: id };
}

/** Like readCard, but null (or an absent card) means "none": done, skip, don't. */
export function readOptionalCard(move: Move): OptionalCardArg {
  const name = (move as { card?: unknown }).card;
  if (name === null || name === undefined) return { ok: true, card: null };
  return readCard(move);
}

export type ChoiceArg = { ok: true; choice: boolean } | { ok: false; error: MoveError };

export function readChoice(move: Move): ChoiceArg {
  const choice = (move as { choice?: unknown }).choice;
  if (typeof choice !== 'boolean') return { ok: false, error: moveError('invalid_move', `${move.type} needs choice: true or false`) };
  return { ok: true, choice };
}
