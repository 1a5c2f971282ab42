/** Helpers for the game tests: build a state with chosen hands/decks, apply moves, read zones by name. */
import { expect } from 'chai';
import { applyMove, createGame, type CardName, type GameState, type Move } from '../../../actors/game/engine/index.js';
import { CARD_NAMES, cardId } from '../../../actors/game/engine/cards.js';
import type { Decision } from '../../../actors/game/engine/tasks.js';

export const ids = (names: readonly CardName[]): number[] => names.map((n) => {
  const id = cardId(n);
  if (id < 0) throw new Error(`unknown card ${n}`);
  return id;
});
export const names = (cards: readonly number[]): CardName[] => cards.map((c) => CARD_NAMES[c]);
export const sorted = (cards: readonly number[]): CardName[] => names([...cards].sort((a, b) => a - b));
export const sortNames = (cards: readonly CardName[]): CardName[] => sorted(ids(cards));

export interface Setup {
  players?: number;
  kingdom?: string | CardName[];
  seed?: number | string;
  /** Hands per player (replacing the dealt ones). */
  hands?: CardName[][];
  /** Decks per player, TOP FIRST. */
  decks?: CardName[][];
  discards?: CardName[][];
  current?: number;
}

const TEST_KINGDOM: CardName[] = ['Cellar', 'Chapel', 'Moat', 'Village', 'Workshop', 'Militia', 'Remodel', 'Smithy', 'Throne Room', 'Mine'];

/** A game with the given zones. Card totals are NOT conserved by such edits (tests that check conservation use real games). */
export function gameWith(setup: Setup = {}): GameState {
  const players = setup.players ?? 2;
  const created = createGame({ players, seed: setup.seed ?? 1, kingdom: setup.kingdom ?? TEST_KINGDOM, firstPlayer: setup.current ?? 0 });
  if (!created.ok) throw new Error(created.error.message);
  const s = created.state;
  for (let p = 0; p < players; p++) {
    const pl = s.players[p];
    if (setup.hands?.[p] !== undefined) pl.hand = ids(setup.hands[p]);
    if (setup.decks?.[p] !== undefined) pl.deck = ids(setup.decks[p]).reverse();
    if (setup.discards?.[p] !== undefined) pl.discard = ids(setup.discards[p]);
  }
  return s;
}

/** Applies a move that must succeed. */
export function play(s: GameState, player: number, move: Move): GameState {
  const r = applyMove(s, player, move);
  if (!r.ok) throw new Error(`move ${JSON.stringify(move)} by ${player} failed: ${r.error.code} ${r.error.message}`);
  return r.state;
}

/** Applies several moves by the same or different players: [player, move] pairs. */
export function playAll(s: GameState, steps: Array<[number, Move]>): GameState {
  for (const [p, m] of steps) s = play(s, p, m);
  return s;
}

/** Expects a move to fail with `code`, and the state to be unchanged. */
export function rejects(s: GameState, player: number, move: Move, code: string): string {
  const before = JSON.stringify(s);
  const r = applyMove(s, player, move);
  expect(r.ok, `expected ${JSON.stringify(move)} to fail`).to.equal(false);
  if (r.ok) throw new Error('unreachable');
  expect(r.error.code).to.equal(code);
  expect(r.state).to.equal(s);
  expect(JSON.stringify(s)).to.equal(before);
  return r.error.message;
}

export const pending = (s: GameState): Decision | null => (s.stack.length > 0 ? (s.stack[s.stack.length - 1] as Decision) : null);

export const hand = (s: GameState, p: number): CardName[] => sorted(s.players[p].hand);
export const deckTopFirst = (s: GameState, p: number): CardName[] => names([...s.players[p].deck].reverse());
export const discard = (s: GameState, p: number): CardName[] => sorted(s.players[p].discard);
export const inPlay = (s: GameState, p: number): CardName[] => names(s.players[p].inPlay);
export const trash = (s: GameState): CardName[] => sorted(s.trash);

export function totalCards(s: GameState): number {
  let n = s.trash.length;
  for (const c of s.piles) n += s.supply[c];
  for (const pl of s.players) n += pl.deck.length + pl.hand.length + pl.discard.length + pl.inPlay.length + pl.aside.length;
  return n;
}

/** Plays an Action for player p. */
export const action = (card: CardName): Move => ({ type: 'play_action', card });
