/** Moving cards between a player's zones, the Supply and the Trash, with the official shuffle rule. */
import { CARD_NAMES } from './cards.js';
import { eventSink } from './events.js';
import { shuffleInPlace } from './rng.js';
import type { GameState } from './state.js';

/**
 * Makes sure the deck has a card, shuffling the discard pile into a new deck only when the deck is empty
 * (never earlier). The arrays are swapped, not copied. Returns false when there is nothing to shuffle.
 */
export function refillDeck(s: GameState, p: number): boolean {
  const pl = s.players[p];
  if (pl.deck.length > 0) return true;
  if (pl.discard.length === 0) return false;
  const empty = pl.deck;
  pl.deck = pl.discard;
  pl.discard = empty;
  shuffleInPlace(s.rng, pl.deck);
  if (eventSink !== null) eventSink.push({ type: 'shuffle', player: p });
  return true;
}

/** Draws up to n cards into hand; returns how many were drawn. */
export function draw(s: GameState, p: number, n: number): number {
  const pl = s.players[p];
  let drawn = 0;
  for (; drawn < n; drawn++) {
    if (pl.deck.length === 0 && !refillDeck(s, p)) break;
    pl.hand.push(pl.deck.pop()!);
  }
  if (eventSink !== null && drawn > 0) eventSink.push({ type: 'draw', player: p, count: drawn });
  return drawn;
}

/** Takes the top card of the deck (shuffling if needed), or -1 when the deck and discard are empty. */
export function takeTop(s: GameState, p: number): number {
  if (!refillDeck(s, p)) return -1;
  return s.players[p].deck.pop()!;
}

/** Removes one copy of `card` from `cards`; false when absent. */
export function removeCard(cards: number[], card: number): boolean {
  const i = cards.lastIndexOf(card);
  if (i < 0) return false;
  cards.splice(i, 1);
  return true;
}

export type GainDestination = 'discard' | 'hand' | 'deck';

/** Gains from the Supply; false (nothing happens) when the pile is empty. */
export function gain(s: GameState, p: number, card: number, to: GainDestination): boolean {
  if (s.supply[card] <= 0) return false;
  s.supply[card]--;
  const pl = s.players[p];
  if (to === 'discard') pl.discard.push(card);
  else if (to === 'hand') pl.hand.push(card);
  else pl.deck.push(card);
  if (eventSink !== null) eventSink.push({ type: 'gain', player: p, card: CARD_NAMES[card], to });
  return true;
}

export function trashFrom(s: GameState, p: number, zone: number[], card: number): boolean {
  if (!removeCard(zone, card)) return false;
  s.trash.push(card);
  if (eventSink !== null) eventSink.push({ type: 'trash', player: p, card: CARD_NAMES[card] });
  return true;
}

export function discardFromHand(s: GameState, p: number, card: number): boolean {
  const pl = s.players[p];
  if (!removeCard(pl.hand, card)) return false;
  pl.discard.push(card);
  if (eventSink !== null) eventSink.push({ type: 'discard', player: p, card: CARD_NAMES[card] });
  return true;
}

/** Puts everything set aside back into the discard pile (end of Library, Adventurer, Bandit, Thief). */
export function discardAside(s: GameState, p: number): void {
  const pl = s.players[p];
  for (let i = 0; i < pl.aside.length; i++) {
    const c = pl.aside[i];
    pl.discard.push(c);
    if (eventSink !== null) eventSink.push({ type: 'discard', player: p, card: CARD_NAMES[c] });
  }
  pl.aside.length = 0;
}

/** Distinct cards of `cards` matching `keep`, in ascending id order (deterministic option order). */
export function distinctCards(cards: readonly number[], keep?: (c: number) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < cards.length; i++) {
    const c = cards[i];
    if ((keep === undefined || keep(c)) && !out.includes(c)) out.push(c);
  }
  return out.sort((a, b) => a - b);
}
