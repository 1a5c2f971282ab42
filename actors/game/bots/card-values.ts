/**
 * Rough worth of cards for the bots' default choices. Victory cards are worth more as the Provinces run
 * out ("greening"); Curses are always worst.
 */
import {
  COINS, COPPER, COST, CURSE, DUCHY, ESTATE, GARDENS, GOLD, isAction, isTreasure, isVictory, LABORATORY, MARKET,
  PROVINCE, SILVER, WITCH, FESTIVAL, VILLAGE, SMITHY, LIBRARY, COUNCIL_ROOM, THRONE_ROOM, MERCHANT, SENTRY, CELLAR,
  HARBINGER, POACHER, SPY, MILITIA, BANDIT, ARTISAN, MINE, MONEYLENDER, REMODEL, VASSAL, BUREAUCRAT, ADVENTURER, MOAT,
  FEAST, WORKSHOP, WOODCUTTER, CHANCELLOR, THIEF, CHAPEL,
} from '../engine/cards.js';
import type { GameState } from '../engine/state.js';
import { ownedCount } from './deck-facts.js';

/** How much a player would like to gain card c now. */
export function gainValue(s: GameState, p: number, c: number): number {
  const provinces = s.supply[PROVINCE];
  switch (c) {
    case CURSE: return -10;
    case COPPER: return 0.5;
    case ESTATE: return provinces <= 2 ? 2.5 : -1;
    case DUCHY: return provinces <= 5 ? 5.5 : 1;
    case PROVINCE: return 10;
    case GARDENS: return Math.floor(ownedCount(s.players[p]) / 10) + 1;
    case SILVER: return 3.5;
    case GOLD: return 6.5;
    case LABORATORY: return 5.3;
    case WITCH: return 5.6;
    case MARKET: return 5.1;
    default: return isAction(c) ? COST[c] * 0.9 : COST[c];
  }
}

/** How useful card c is in hand this turn (low: discard it first). */
export function handValue(s: GameState, c: number): number {
  if (c === CURSE) return -2;
  if (isVictory(c) && !isAction(c)) return -1;
  if (isTreasure(c)) return COINS[c];
  if (isAction(c)) return s.actions > 0 || s.phase === 'action' ? 1 + COST[c] / 2 : 0.1;
  return 0;
}

/** True for cards a bot would rather not own (for Chapel, Sentry, Spy on its own deck). */
export function isJunk(s: GameState, c: number, money: number): boolean {
  if (c === CURSE) return true;
  if (c === ESTATE) return s.supply[PROVINCE] > 2;
  if (c === COPPER) return money > 8;
  return false;
}

/** Play order for a turn: non-terminal cards first, then the strongest terminal. */
const PLAY_PRIORITY: Readonly<Record<number, number>> = {
  [VILLAGE]: 100, [FESTIVAL]: 95, [LABORATORY]: 90, [MARKET]: 88, [MERCHANT]: 85, [SENTRY]: 80, [POACHER]: 78,
  [HARBINGER]: 77, [SPY]: 75, [CELLAR]: 70, [THRONE_ROOM]: 60,
  [WITCH]: 50, [COUNCIL_ROOM]: 45, [LIBRARY]: 44, [SMITHY]: 43, [ARTISAN]: 42, [MILITIA]: 41, [BANDIT]: 40, [MINE]: 35,
  [MONEYLENDER]: 34, [REMODEL]: 33, [VASSAL]: 32, [BUREAUCRAT]: 31, [ADVENTURER]: 30, [MOAT]: 29, [FEAST]: 28,
  [WORKSHOP]: 27, [WOODCUTTER]: 26, [CHANCELLOR]: 25, [THIEF]: 24, [CHAPEL]: 23,
};

export const playPriority = (c: number): number => PLAY_PRIORITY[c] ?? 0;
