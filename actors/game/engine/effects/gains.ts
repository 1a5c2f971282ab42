/** Cards that gain from the Supply with a cost limit: Workshop, Feast, Remodel, Mine, Artisan. */
import { ARTISAN, CARD_NAMES, COST, FEAST, isTreasure, MINE, REMODEL, WORKSHOP } from '../cards.js';
import { eventSink } from '../events.js';
import { moveError, type MoveError } from '../errors.js';
import { readCard, readOptionalCard } from '../move-args.js';
import type { Move } from '../moves.js';
import type { GameState } from '../state.js';
import type { Decision } from '../tasks.js';
import { distinctCards, gain, removeCard, trashFrom } from '../zones.js';

type Of<K extends Decision['k']> = Extract<Decision, { k: K }>;

/** Supply cards that can be gained: most expensive first, then in Supply order. */
export function gainChoices(s: GameState, max: number, treasureOnly: boolean): number[] {
  const out: number[] = [];
  for (const c of s.piles) if (s.supply[c] > 0 && COST[c] <= max && (!treasureOnly || isTreasure(c))) out.push(c);
  return out.sort((a, b) => COST[b] - COST[a]);
}

/** Poses a gain decision, gains at once when only one card qualifies, or does nothing when none does. */
export function askGain(s: GameState, p: number, source: number, max: number, treasure: boolean, toHand: boolean, step: number): void {
  const choices = gainChoices(s, max, treasure);
  if (choices.length === 0) return;
  if (choices.length === 1) {
    gain(s, p, choices[0], toHand ? 'hand' : 'discard');
    return;
  }
  s.stack.push({ k: 'gain_card', p, c: source, max, treasure, toHand, step });
}

export function resolveGain(s: GameState, d: Of<'gain_card'>, move: Move): MoveError | null {
  const arg = readCard(move);
  if (!arg.ok) return arg.error;
  const c = arg.card;
  if (!s.piles.includes(c)) return moveError('not_in_supply', `${CARD_NAMES[c]} is not in this game's Supply`);
  if (s.supply[c] <= 0) return moveError('pile_empty', `The ${CARD_NAMES[c]} pile is empty`);
  if (COST[c] > d.max) return moveError('illegal_choice', `${CARD_NAMES[c]} costs $${COST[c]}; ${CARD_NAMES[d.c]} gains a card costing up to $${d.max}`);
  if (d.treasure && !isTreasure(c)) return moveError('illegal_choice', `${CARD_NAMES[d.c]} gains a Treasure; ${CARD_NAMES[c]} is not one`);
  s.stack.pop();
  gain(s, d.p, c, d.toHand ? 'hand' : 'discard');
  return null;
}

export const gainMoves = (s: GameState, d: Of<'gain_card'>): Move[] =>
  gainChoices(s, d.max, d.treasure).map((c): Move => ({ type: 'gain_card', card: CARD_NAMES[c] }));

export function workshop(s: GameState, p: number): void {
  askGain(s, p, WORKSHOP, 4, false, false, 1);
}

/** Under Throne Room the replay (`again`) gains again but cannot trash Feast a second time. */
export function feast(s: GameState, p: number, again: boolean): void {
  if (!again) trashFrom(s, p, s.players[p].inPlay, FEAST);
  askGain(s, p, FEAST, 5, false, false, 1);
}

// Remodel: trashing is mandatory when the hand has a card; then gain up to $2 more.
export function remodel(s: GameState, p: number): void {
  const hand = s.players[p].hand;
  if (hand.length === 0) return;
  const distinct = distinctCards(hand);
  if (distinct.length === 1) {
    trashFrom(s, p, hand, distinct[0]);
    askGain(s, p, REMODEL, COST[distinct[0]] + 2, false, false, 2);
    return;
  }
  s.stack.push({ k: 'trash_for_remodel', p });
}

export function resolveRemodel(s: GameState, d: Of<'trash_for_remodel'>, move: Move): MoveError | null {
  const arg = readCard(move);
  if (!arg.ok) return arg.error;
  if (!trashFrom(s, d.p, s.players[d.p].hand, arg.card)) return moveError('card_not_in_hand', `${CARD_NAMES[arg.card]} is not in your hand`);
  s.stack.pop();
  askGain(s, d.p, REMODEL, COST[arg.card] + 2, false, false, 2);
  return null;
}

export const remodelMoves = (s: GameState, d: Of<'trash_for_remodel'>): Move[] =>
  distinctCards(s.players[d.p].hand).map((c): Move => ({ type: 'trash_for_remodel', card: CARD_NAMES[c] }));

// Mine (2E wording): you may trash a Treasure, gaining one costing up to $3 more to your hand.
export function mine(s: GameState, p: number): void {
  if (s.players[p].hand.some(isTreasure)) s.stack.push({ k: 'trash_for_mine', p });
}

export function resolveMine(s: GameState, d: Of<'trash_for_mine'>, move: Move): MoveError | null {
  const arg = readOptionalCard(move);
  if (!arg.ok) return arg.error;
  if (arg.card !== null) {
    if (!isTreasure(arg.card)) return moveError('not_a_treasure', `${CARD_NAMES[arg.card]} is not a Treasure`);
    if (!trashFrom(s, d.p, s.players[d.p].hand, arg.card)) return moveError('card_not_in_hand', `${CARD_NAMES[arg.card]} is not in your hand`);
  }
  s.stack.pop();
  if (arg.card !== null) askGain(s, d.p, MINE, COST[arg.card] + 3, true, true, 2);
  return null;
}

export const mineMoves = (s: GameState, d: Of<'trash_for_mine'>): Move[] => [
  ...distinctCards(s.players[d.p].hand, isTreasure).map((c): Move => ({ type: 'trash_for_mine', card: CARD_NAMES[c] })),
  { type: 'trash_for_mine', card: null },
];

// Artisan: gain up to $5 to hand, then put a card from hand onto the deck.
export function artisan(s: GameState, p: number): void {
  s.stack.push({ k: 'artisan_topdeck', p });
  askGain(s, p, ARTISAN, 5, false, true, 1);
}

/** The automatic step queued behind Artisan's gain: asks only if the hand offers a real choice. */
export function artisanTopdeck(s: GameState, p: number): void {
  const hand = s.players[p].hand;
  if (hand.length === 0) return;
  const distinct = distinctCards(hand);
  if (distinct.length === 1) topdeckFromHand(s, p, distinct[0]);
  else s.stack.push({ k: 'topdeck_card', p });
}

function topdeckFromHand(s: GameState, p: number, c: number): boolean {
  const pl = s.players[p];
  if (!removeCard(pl.hand, c)) return false;
  pl.deck.push(c);
  if (eventSink !== null) eventSink.push({ type: 'topdeck', player: p, card: null });
  return true;
}

export function resolveTopdeck(s: GameState, d: Of<'topdeck_card'>, move: Move): MoveError | null {
  const arg = readCard(move);
  if (!arg.ok) return arg.error;
  if (!topdeckFromHand(s, d.p, arg.card)) return moveError('card_not_in_hand', `${CARD_NAMES[arg.card]} is not in your hand`);
  s.stack.pop();
  return null;
}

export const topdeckMoves = (s: GameState, d: Of<'topdeck_card'>): Move[] =>
  distinctCards(s.players[d.p].hand).map((c): Move => ({ type: 'topdeck_card', card: CARD_NAMES[c] }));
