/** What a bot knows about its own cards (never another player's hand or anyone's deck order). */
import { COINS, TYPES, TREASURE } from '../engine/cards.js';
import type { PlayerState } from '../engine/state.js';

function sumCoins(cards: readonly number[]): number {
  let n = 0;
  for (let i = 0; i < cards.length; i++) n += COINS[cards[i]];
  return n;
}

/** Sum of the Treasure values of every card owned ("total money" in the DominionSim bot rules). */
export const totalMoney = (pl: PlayerState): number =>
  sumCoins(pl.deck) + sumCoins(pl.hand) + sumCoins(pl.discard) + sumCoins(pl.inPlay) + sumCoins(pl.aside);

function countIn(cards: readonly number[], test: (c: number) => boolean): number {
  let n = 0;
  for (let i = 0; i < cards.length; i++) if (test(cards[i])) n++;
  return n;
}

function countOwnedWhere(pl: PlayerState, test: (c: number) => boolean): number {
  return countIn(pl.deck, test) + countIn(pl.hand, test) + countIn(pl.discard, test) + countIn(pl.inPlay, test) + countIn(pl.aside, test);
}

function countCard(cards: readonly number[], card: number): number {
  let n = 0;
  for (let i = 0; i < cards.length; i++) if (cards[i] === card) n++;
  return n;
}

export const countOwned = (pl: PlayerState, card: number): number =>
  countCard(pl.deck, card) + countCard(pl.hand, card) + countCard(pl.discard, card) + countCard(pl.inPlay, card) + countCard(pl.aside, card);

const isTreasureCard = (c: number): boolean => (TYPES[c] & TREASURE) !== 0;

export const treasureCount = (pl: PlayerState): number => countOwnedWhere(pl, isTreasureCard);
export const ownedCount = (pl: PlayerState): number => pl.deck.length + pl.hand.length + pl.discard.length + pl.inPlay.length + pl.aside.length;
