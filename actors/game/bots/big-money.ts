/**
 * The Big Money family, after the DominionSim bot list (see shared/reference/dominion-rules.md):
 * basic Big Money, Big Money Ultimate, Smithy Big Money.
 */
import { DUCHY, ESTATE, GOLD, PROVINCE, SILVER, SMITHY } from '../engine/cards.js';
import type { GameState } from '../engine/state.js';
import { countOwned, totalMoney, treasureCount } from './deck-facts.js';
import { strategyBot, type Bot, type BuyRule } from './strategy-bot.js';

const available = (s: GameState, c: number): boolean => s.supply[c] > 0;

/** Province at $8, Gold at $6–7, Silver at $3–5. */
export const basicBigMoneyBuy: BuyRule = (s, _p, coins) => {
  if (coins >= 8 && available(s, PROVINCE)) return PROVINCE;
  if (coins >= 6 && available(s, GOLD)) return GOLD;
  if (coins >= 3 && available(s, SILVER)) return SILVER;
  return -1;
};

/**
 * The money-and-greening ladder shared by BMU and Smithy-BM: Province once total money exceeds
 * `provinceMoney`, Duchy when ≤ 4 Provinces are left, Estate when ≤ 2, Gold, Duchy when ≤ 6, then
 * `extra` (e.g. Smithy) before Silver.
 */
export function moneyLadder(provinceMoney: number, extra?: BuyRule): BuyRule {
  return (s, p, coins) => {
    const provinces = s.supply[PROVINCE];
    if (coins >= 8 && available(s, PROVINCE) && totalMoney(s.players[p]) > provinceMoney) return PROVINCE;
    if (coins >= 5 && provinces <= 4 && available(s, DUCHY)) return DUCHY;
    if (coins >= 2 && provinces <= 2 && available(s, ESTATE)) return ESTATE;
    if (coins >= 6 && available(s, GOLD)) return GOLD;
    if (coins >= 5 && provinces <= 6 && available(s, DUCHY)) return DUCHY;
    if (extra !== undefined) {
      const c = extra(s, p, coins);
      if (c >= 0) return c;
    }
    if (coins >= 3 && available(s, SILVER)) return SILVER;
    // Nothing on the ladder: an $8 hand with too little money in the deck still buys the best it can.
    if (coins >= 8 && available(s, PROVINCE)) return PROVINCE;
    return -1;
  };
}

/** Big Money Ultimate: Province only once total money > 18. */
export const bmuBuy = moneyLadder(18);

/** A Smithy whenever you own fewer than (Treasures / 11) of them: one early, a second later. */
export const smithyBuy: BuyRule = (s, p, coins) => {
  if (coins < 4 || !available(s, SMITHY)) return -1;
  const pl = s.players[p];
  return countOwned(pl, SMITHY) < treasureCount(pl) / 11 ? SMITHY : -1;
};

export const smithyBigMoneyBuy = moneyLadder(15, smithyBuy);

export const bigMoney: Bot = strategyBot(basicBigMoneyBuy);
export const bigMoneyUltimate: Bot = strategyBot(bmuBuy);
/** Falls back to BMU-like play when Smithy is not in the kingdom (smithyBuy then never fires). */
export const smithyBigMoney: Bot = strategyBot(smithyBigMoneyBuy);
