/**
 * The spec's `pendingEffect` block and the other fields a surface answers with (message, validMoves,
 * gameOver), computed from the state for one viewer.
 */
import type { CardName } from '../engine/cards.js';
import { pendingView } from '../engine/observe.js';
import { playerToMove, type GameResult, type GameState } from '../engine/state.js';
import { pendingDecision, playerLabel } from '../engine/step.js';
import type { DecisionKind } from '../engine/tasks.js';
import { decisionPrompt } from './descriptions.js';
import { limitOptions, optionsFor } from './option-list.js';

export interface PendingEffectDescription {
  card: CardName;
  effect: DecisionKind;
  step: number | null;
  /** Who must answer (0-based). */
  player: number;
  message: string;
  /** The cards the decision is about, when this viewer may see them (e.g. "Card drawn: Village"). */
  cards: CardName[];
  details: Record<string, number | string | boolean>;
  /** Only for the player who must answer; at most 50 (see optionsNote). */
  options: Array<{ index: number; description: string; command: string }>;
  optionsNote: string | null;
}

/** null when no decision is pending. Other viewers learn who must decide but not the private cards. */
export function describePendingEffect(state: GameState, viewer: number | null): PendingEffectDescription | null {
  const d = pendingDecision(state);
  const view = pendingView(state, viewer);
  if (d === null || view === null) return null;
  const mine = viewer === d.p;
  const limited = limitOptions(mine ? optionsFor(state, d.p) : []);
  return {
    card: view.card,
    effect: view.effect,
    step: view.step,
    player: d.p,
    message: mine ? decisionPrompt(state, d) : `Waiting for ${playerLabel(d.p)}: ${view.card} (${d.k})`,
    cards: view.cards,
    details: view.details,
    options: limited.options.map(({ index, description, command }) => ({ index, description, command })),
    optionsNote: limited.message,
  };
}

export interface GameOverInfo {
  gameOver: boolean;
  result: GameResult | null;
  /** e.g. "Player 1 wins with 31 VP" or "Players 1 and 2 share the win with 27 VP". */
  summary: string | null;
}

export function gameOverInfo(state: GameState): GameOverInfo {
  const r = state.result;
  if (state.phase !== 'over' || r === null) return { gameOver: false, result: null, summary: null };
  const top = r.scores[r.winners[0]];
  const summary = r.winners.length === 1
    ? `${playerLabel(r.winners[0])} wins with ${top} VP`
    : `${r.winners.map((w) => playerLabel(w)).join(' and ')} share the win with ${top} VP`;
  return { gameOver: true, result: { ...r, scores: [...r.scores], turns: [...r.turns], winners: [...r.winners] }, summary };
}

/** Whose move it is, in words, for a status line. */
export function waitingFor(state: GameState): string {
  const p = playerToMove(state);
  if (p === null) return 'The game is over';
  const d = pendingDecision(state);
  return d === null ? `${playerLabel(p)} to play (${state.phase} phase)` : `${playerLabel(p)} to answer ${d.k}`;
}
