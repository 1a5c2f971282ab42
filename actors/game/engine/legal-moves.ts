/** Every legal move of a player, in a fixed order; empty when it is not that player's move. */
import { CARD_NAMES, COST, isAction, isTreasure } from './cards.js';
import type { Move } from './moves.js';
import { playerToMove, type GameState } from './state.js';
import { pendingMoves } from './step.js';
import { distinctCards } from './zones.js';

/** Buyable cards: most expensive first, then Supply order. */
export function buyableCards(s: GameState): number[] {
  if (s.buys < 1) return [];
  const out: number[] = [];
  for (const c of s.piles) if (s.supply[c] > 0 && COST[c] <= s.coins) out.push(c);
  return out.sort((a, b) => COST[b] - COST[a]);
}

export function legalMoves(s: GameState, player: number): Move[] {
  if (playerToMove(s) !== player) return [];
  if (s.stack.length > 0) return pendingMoves(s);
  const hand = s.players[player].hand;
  const moves: Move[] = [];
  if (s.phase === 'action' && s.actions > 0) {
    for (const c of distinctCards(hand, isAction)) moves.push({ type: 'play_action', card: CARD_NAMES[c] });
  }
  if (!s.bought) {
    const treasures = distinctCards(hand, isTreasure);
    if (treasures.length > 0) moves.push({ type: 'play_all_treasures' });
    for (const c of treasures) moves.push({ type: 'play_treasure', card: CARD_NAMES[c] });
  }
  for (const c of buyableCards(s)) moves.push({ type: 'buy', card: CARD_NAMES[c] });
  if (s.phase === 'action') moves.push({ type: 'end_phase' });
  moves.push({ type: 'end_turn' });
  return moves;
}
