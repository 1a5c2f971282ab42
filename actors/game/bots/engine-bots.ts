/**
 * Bots that build around kingdom cards: a draw engine (Laboratory/Market/Festival + Village/Smithy-style
 * draw) and double Witch. Both fall back to Big Money Ultimate's ladder for whatever their cards do not
 * cover, so they play any kingdom.
 */
import {
  COST, COUNCIL_ROOM, FESTIVAL, LABORATORY, LIBRARY, MARKET, MOAT, PROVINCE, SMITHY, VILLAGE, WITCH,
} from '../engine/cards.js';
import type { GameState } from '../engine/state.js';
import { moneyLadder } from './big-money.js';
import { countOwned, totalMoney } from './deck-facts.js';
import { strategyBot, type Bot, type BuyRule } from './strategy-bot.js';

const available = (s: GameState, c: number): boolean => s.supply[c] > 0;

const firstAvailable = (s: GameState, cards: readonly number[]): number => {
  for (const c of cards) if (available(s, c)) return c;
  return -1;
};

const ENGINE_FIVES = [LABORATORY, MARKET, FESTIVAL];
const TERMINAL_DRAW = [SMITHY, COUNCIL_ROOM, LIBRARY, MOAT];

function ownedOf(s: GameState, p: number, cards: readonly number[]): number {
  let n = 0;
  for (const c of cards) n += countOwned(s.players[p], c);
  return n;
}

/** Engine cards first while the engine is small; Provinces once it can reach $8 reliably. */
const engineExtra: BuyRule = (s, p, coins) => {
  const draws = ownedOf(s, p, TERMINAL_DRAW);
  const villages = countOwned(s.players[p], VILLAGE) + countOwned(s.players[p], FESTIVAL);
  if (coins >= 5) {
    const five = firstAvailable(s, ENGINE_FIVES);
    if (five >= 0 && ownedOf(s, p, ENGINE_FIVES) < 6) return five;
  }
  if (coins >= 4 && draws <= villages && draws < 4) {
    const draw = firstAvailable(s, TERMINAL_DRAW.filter((c) => COST[c] <= coins));
    if (draw >= 0) return draw;
  }
  if (coins >= 3 && draws > villages && available(s, VILLAGE)) return VILLAGE;
  return -1;
};

const engineLadder = moneyLadder(16, engineExtra);

export const engineBuy: BuyRule = (s, p, coins) => {
  // Gold only when the engine pieces are in place; before that the $5 engine cards come first.
  if (coins >= 6 && coins < 8 && ownedOf(s, p, ENGINE_FIVES) < 3) {
    const five = firstAvailable(s, ENGINE_FIVES);
    if (five >= 0) return five;
  }
  if (coins >= 8 && available(s, PROVINCE) && totalMoney(s.players[p]) > 12) return PROVINCE;
  return engineLadder(s, p, coins);
};

/** Two Witches as early as possible, then Big Money Ultimate. */
export const witchBuy: BuyRule = (s, p, coins) => {
  if (coins >= 5 && coins < 8 && available(s, WITCH) && countOwned(s.players[p], WITCH) < 2) return WITCH;
  return witchLadder(s, p, coins);
};
const witchLadder = moneyLadder(16);

export const engineBot: Bot = strategyBot(engineBuy);
export const witchBot: Bot = strategyBot(witchBuy);

