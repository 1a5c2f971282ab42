/**
 * Turns a buy rule into a full bot: answer pending decisions, play Actions (non-terminals first), play
 * all Treasures, buy by the rule, end the turn. Every branch returns a prebuilt move, so a bot turn
 * allocates nothing unless a decision is pending.
 */
import { COINS, COST, isAction, THRONE_ROOM } from '../engine/cards.js';
import type { Move } from '../engine/moves.js';
import type { GameState } from '../engine/state.js';
import { playPriority } from './card-values.js';
import { answerPending } from './pending-choices.js';
import { BUY, END_TURN, PLAY_ACTION, PLAY_ALL_TREASURES } from './prebuilt-moves.js';

/** A bot: given the state and its seat (which must be the player to move), a legal move. */
export type Bot = (state: GameState, player: number) => Move;

/** Which card to buy with `coins` (the player's current $), or -1 for nothing. */
export type BuyRule = (s: GameState, p: number, coins: number) => number;

/** The Action in hand to play next, or -1. Throne Room only when it has something to double. */
export function chooseAction(s: GameState, p: number): number {
  const hand = s.players[p].hand;
  let best = -1;
  let bestPriority = 0;
  let actions = 0;
  for (let i = 0; i < hand.length; i++) if (isAction(hand[i])) actions++;
  for (let i = 0; i < hand.length; i++) {
    const c = hand[i];
    if (!isAction(c)) continue;
    if (c === THRONE_ROOM && actions < 2) continue;
    const priority = playPriority(c);
    if (priority > bestPriority) {
      best = c;
      bestPriority = priority;
    }
  }
  return best;
}

function hasTreasure(hand: readonly number[]): boolean {
  for (let i = 0; i < hand.length; i++) if (COINS[hand[i]] > 0) return true;
  return false;
}

export function strategyBot(buyRule: BuyRule): Bot {
  return (s, p) => {
    if (s.stack.length > 0) return answerPending(s, p);
    if (s.phase === 'action' && s.actions > 0) {
      const action = chooseAction(s, p);
      if (action >= 0) return PLAY_ACTION[action];
    }
    if (!s.bought && hasTreasure(s.players[p].hand)) return PLAY_ALL_TREASURES;
    if (s.buys > 0) {
      const c = buyRule(s, p, s.coins);
      // A rule naming an unaffordable or empty pile ends the turn rather than making an illegal move.
      if (c >= 0 && s.supply[c] > 0 && COST[c] <= s.coins) return BUY[c];
    }
    return END_TURN;
  };
}
