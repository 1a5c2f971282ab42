/**
 * The bots' default answer to any pending decision: score every legal answer and take the best, so a
 * bot can never answer illegally whatever the card. Scores are simple, sensible heuristics.
 */
import { cardId, COINS, COPPER, COST, CURSE, isAction, isTreasure, isVictory, PROVINCE, VP } from '../engine/cards.js';
import type { Move } from '../engine/moves.js';
import type { GameState } from '../engine/state.js';
import { pendingDecision, pendingMoves } from '../engine/step.js';
import type { Decision } from '../engine/tasks.js';
import { gainChoices } from '../engine/effects/gains.js';
import { gainValue, handValue, isJunk, playPriority } from './card-values.js';
import { totalMoney } from './deck-facts.js';

const cardOf = (m: Move): number => {
  const name = (m as { card?: string | null }).card;
  return typeof name === 'string' ? cardId(name) : -1;
};
const choiceOf = (m: Move): boolean => (m as { choice?: boolean }).choice === true;

/** The best gain value reachable with a cost limit (for Remodel and Mine trash choices). */
function bestGain(s: GameState, p: number, max: number, treasure: boolean): number {
  let best = -Infinity;
  for (const c of gainChoices(s, max, treasure)) best = Math.max(best, gainValue(s, p, c));
  return best;
}

function score(s: GameState, p: number, d: Decision, m: Move): number {
  const c = cardOf(m);
  const none = c < 0;
  const money = totalMoney(s.players[p]);
  switch (d.k) {
    case 'discard_for_cellar':
      return none ? 0 : -handValue(s, c);
    case 'trash_cards':
      return none ? 0 : isJunk(s, c, money) ? 1 + (c === CURSE ? 2 : 0) : -1;
    case 'discard_for_poacher':
    case 'discard_for_militia':
      return -handValue(s, c);
    case 'trash_copper':
    case 'chancellor_decision':
    case 'vassal_play':
    case 'reveal_moat':
      return choiceOf(m) ? 1 : 0;
    case 'thief_gain':
      return choiceOf(m) === (d.c !== COPPER) ? 1 : 0;
    case 'trash_for_remodel':
      return bestGain(s, p, COST[c] + 2, false) - gainValue(s, p, c) - (c === PROVINCE ? 20 : 0);
    case 'trash_for_mine':
      return none ? 0 : bestGain(s, p, COST[c] + 3, true) - gainValue(s, p, c);
    case 'gain_card':
      return gainValue(s, p, c);
    case 'topdeck_card':
      // Worth next turn minus worth now: an Action we cannot play any more goes back first.
      return (isAction(c) ? COST[c] : isVictory(c) || c === CURSE ? -1 : COINS[c]) - (isAction(c) && s.actions === 0 ? 0 : handValue(s, c));
    case 'select_action_for_throne':
      return none ? -1 : playPriority(c);
    case 'library_set_aside':
      return (m.type === 'library_set_aside') === (s.actions === 0) ? 1 : 0;
    case 'harbinger_topdeck':
      return none ? 3 : gainValue(s, p, c);
    case 'sentry_decision': {
      const junk = isJunk(s, c, money);
      if (m.type === 'sentry_trash') return junk ? 2 : -2;
      if (m.type === 'sentry_discard') return !junk && (isVictory(c) || c === CURSE) ? 1 : 0;
      return junk || isVictory(c) || c === CURSE ? -1 : 0.5;
    }
    case 'sentry_order':
      return handValue(s, c);
    case 'reveal_and_topdeck':
      return -VP[c];
    case 'bandit_trash':
      return -COST[c];
    case 'spy_decision': {
      const good = isAction(c) || (isTreasure(c) && c !== COPPER);
      const discard = m.type === 'spy_discard';
      return (d.t === p ? discard !== good : discard === good) ? 1 : 0;
    }
    case 'thief_trash':
      return COST[c];
  }
}

/** Picks the best-scoring legal answer (ties: the first listed). */
export function answerPending(s: GameState, p: number): Move {
  const d = pendingDecision(s)!;
  const moves = pendingMoves(s);
  let best = moves[0];
  let bestScore = -Infinity;
  for (const m of moves) {
    const v = score(s, p, d, m);
    if (v > bestScore) {
      bestScore = v;
      best = m;
    }
  }
  return best;
}
