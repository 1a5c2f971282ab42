/** Bots by name. Each handles any kingdom and any pending decision; see strategy-bot.ts. */
import { bigMoney, bigMoneyUltimate, smithyBigMoney } from './big-money.js';
import { engineBot, witchBot } from './engine-bots.js';
import type { Bot } from './strategy-bot.js';

export const BOTS = {
  /** Big Money Ultimate (DominionSim): money, Province once total money > 18, Duchy/Estate dancing. */
  bmu: bigMoneyUltimate,
  /** Smithy Big Money: BMU's ladder (Province once money > 15) plus a Smithy per 11 Treasures. */
  'smithy-bm': smithyBigMoney,
  /** Draw engine: Laboratory/Market/Festival, Village + Smithy-like draw, then money. */
  engine: engineBot,
  /** Double Witch with Big Money. */
  witch: witchBot,
  /** Basic Big Money: Province at $8, Gold at $6–7, Silver at $3–5. */
  'big-money': bigMoney,
} as const satisfies Record<string, Bot>;

export type BotName = keyof typeof BOTS;
export const BOT_NAMES = Object.keys(BOTS) as BotName[];
export const isBotName = (name: unknown): name is BotName => typeof name === 'string' && Object.prototype.hasOwnProperty.call(BOTS, name);

export { bigMoney, bigMoneyUltimate, smithyBigMoney, basicBigMoneyBuy, bmuBuy, smithyBigMoneyBuy, moneyLadder } from './big-money.js';
export { engineBot, witchBot, engineBuy, witchBuy } from './engine-bots.js';
export { createRandomBot } from './random-bot.js';
export { strategyBot, chooseAction, type Bot, type BuyRule } from './strategy-bot.js';
export { answerPending } from './pending-choices.js';
