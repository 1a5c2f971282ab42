/** Cards that choose cards from the player's own hand: Cellar, Chapel, Poacher, Moneylender. */
import { CARD_NAMES, COPPER } from '../cards.js';
import { moveError, type MoveError } from '../errors.js';
import { readChoice, readOptionalCard, readCard } from '../move-args.js';
import type { Move } from '../moves.js';
import type { GameState } from '../state.js';
import type { Decision } from '../tasks.js';
import { discardFromHand, distinctCards, draw, trashFrom } from '../zones.js';

type Of<K extends Decision['k']> = Extract<Decision, { k: K }>;

const notInHand = (c: number): MoveError => moveError('card_not_in_hand', `${CARD_NAMES[c]} is not in your hand`);

/** Empty piles in the Supply (Poacher; game end counts them the same way). */
export function emptyPiles(s: GameState): number {
  let n = 0;
  for (let i = 0; i < s.piles.length; i++) if (s.supply[s.piles[i]] === 0) n++;
  return n;
}

// Cellar: one card at a time, then "done" draws as many as were discarded.
export function cellar(s: GameState, p: number): void {
  s.actions += 1;
  if (s.players[p].hand.length > 0) s.stack.push({ k: 'discard_for_cellar', p, n: 0 });
}

export function resolveCellar(s: GameState, d: Of<'discard_for_cellar'>, move: Move): MoveError | null {
  const arg = readOptionalCard(move);
  if (!arg.ok) return arg.error;
  if (arg.card !== null) {
    if (!discardFromHand(s, d.p, arg.card)) return notInHand(arg.card);
    d.n++;
    if (s.players[d.p].hand.length > 0) return null;
  }
  s.stack.pop();
  draw(s, d.p, d.n);
  return null;
}

export const cellarMoves = (s: GameState, d: Of<'discard_for_cellar'>): Move[] => [
  ...distinctCards(s.players[d.p].hand).map((c): Move => ({ type: 'discard_for_cellar', card: CARD_NAMES[c] })),
  { type: 'discard_for_cellar', card: null },
];

// Chapel: up to 4, one at a time.
export function chapel(s: GameState, p: number): void {
  if (s.players[p].hand.length > 0) s.stack.push({ k: 'trash_cards', p, n: 0 });
}

export function resolveChapel(s: GameState, d: Of<'trash_cards'>, move: Move): MoveError | null {
  const arg = readOptionalCard(move);
  if (!arg.ok) return arg.error;
  if (arg.card !== null) {
    if (!trashFrom(s, d.p, s.players[d.p].hand, arg.card)) return notInHand(arg.card);
    d.n++;
    if (d.n < 4 && s.players[d.p].hand.length > 0) return null;
  }
  s.stack.pop();
  return null;
}

export const chapelMoves = (s: GameState, d: Of<'trash_cards'>): Move[] => [
  ...distinctCards(s.players[d.p].hand).map((c): Move => ({ type: 'trash_cards', card: CARD_NAMES[c] })),
  { type: 'trash_cards', card: null },
];

// Poacher: +1 Card +1 Action +$1, then discard a card per empty Supply pile.
export function poacher(s: GameState, p: number): void {
  draw(s, p, 1);
  s.actions += 1;
  s.coins += 1;
  const n = emptyPiles(s);
  if (n > 0 && !poacherForced(s, p, n)) s.stack.push({ k: 'discard_for_poacher', p, n });
}

/** Discards without asking when there is no real choice; true when that finished the discarding. */
function poacherForced(s: GameState, p: number, n: number): boolean {
  const hand = s.players[p].hand;
  if (n >= hand.length || distinctCards(hand).length === 1) {
    for (let i = Math.min(n, hand.length); i > 0; i--) discardFromHand(s, p, hand[hand.length - 1]);
    return true;
  }
  return false;
}

export function resolvePoacher(s: GameState, d: Of<'discard_for_poacher'>, move: Move): MoveError | null {
  const arg = readCard(move);
  if (!arg.ok) return arg.error;
  if (!discardFromHand(s, d.p, arg.card)) return notInHand(arg.card);
  d.n--;
  if (d.n === 0 || poacherForced(s, d.p, d.n)) s.stack.pop();
  return null;
}

export const poacherMoves = (s: GameState, d: Of<'discard_for_poacher'>): Move[] =>
  distinctCards(s.players[d.p].hand).map((c): Move => ({ type: 'discard_for_poacher', card: CARD_NAMES[c] }));

// Moneylender: you may trash a Copper for +$3.
export function moneylender(s: GameState, p: number): void {
  if (s.players[p].hand.includes(COPPER)) s.stack.push({ k: 'trash_copper', p });
}

export function resolveMoneylender(s: GameState, d: Of<'trash_copper'>, move: Move): MoveError | null {
  const arg = readChoice(move);
  if (!arg.ok) return arg.error;
  s.stack.pop();
  if (arg.choice && trashFrom(s, d.p, s.players[d.p].hand, COPPER)) s.coins += 3;
  return null;
}

export const moneylenderMoves = (): Move[] => [
  { type: 'trash_copper', choice: true },
  { type: 'trash_copper', choice: false },
];
