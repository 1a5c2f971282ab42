/** Victory points, the game-end condition and the result (tie-break: fewer turns, then a shared win). */
import { GARDENS, PROVINCE, VP } from './cards.js';
import type { EndReason, GameResult, GameState, PlayerState } from './state.js';

function countZone(cards: readonly number[], acc: { vp: number; gardens: number }): number {
  for (let i = 0; i < cards.length; i++) {
    const c = cards[i];
    acc.vp += VP[c];
    if (c === GARDENS) acc.gardens++;
  }
  return cards.length;
}

export function victoryPoints(pl: PlayerState): number {
  const acc = { vp: 0, gardens: 0 };
  const owned = countZone(pl.deck, acc) + countZone(pl.hand, acc) + countZone(pl.discard, acc) + countZone(pl.inPlay, acc) + countZone(pl.aside, acc);
  return acc.vp + acc.gardens * Math.floor(owned / 10);
}

/** Checked at the end of every turn: Provinces gone, or any three Supply piles empty. */
export function endReason(s: GameState): EndReason | null {
  if (s.supply[PROVINCE] === 0) return 'provinces';
  let empty = 0;
  for (let i = 0; i < s.piles.length; i++) if (s.supply[s.piles[i]] === 0) empty++;
  if (empty >= 3) return 'piles';
  if (s.turnLimit > 0) {
    for (const pl of s.players) if (pl.turns < s.turnLimit) return null;
    return 'turn_limit';
  }
  return null;
}

export function gameResult(s: GameState, reason: EndReason): GameResult {
  const scores = s.players.map(victoryPoints);
  const turns = s.players.map((pl) => pl.turns);
  let best = -1;
  for (let i = 0; i < scores.length; i++) {
    if (best < 0 || scores[i] > scores[best] || (scores[i] === scores[best] && turns[i] < turns[best])) best = i;
  }
  const winners: number[] = [];
  for (let i = 0; i < scores.length; i++) if (scores[i] === scores[best] && turns[i] === turns[best]) winners.push(i);
  return { reason, scores, turns, winners };
}
