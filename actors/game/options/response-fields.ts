/**
 * The fields every surface answers with after a move or an observation (spec FR-MCP-2): pendingEffect,
 * validMoves, gameOver — computed once here so MCP, HTTP and the CLI say the same thing.
 */
import type { GameResult, GameState } from '../engine/state.js';
import { optionsFor } from './option-list.js';
import { describePendingEffect, gameOverInfo, waitingFor, type PendingEffectDescription } from './pending-effect.js';

export interface ResponseFields {
  /** Present when a decision is pending (options only for the viewer who must answer). */
  pendingEffect: PendingEffectDescription | null;
  /** The viewer's options as full command strings (empty when it is not their move). */
  validMoves: string[];
  gameOver: boolean;
  result: GameResult | null;
  /** "Player 2 to answer discard_for_militia", "The game is over", ... */
  status: string;
  summary: string | null;
}

export function responseFields(state: GameState, viewer: number | null): ResponseFields {
  const over = gameOverInfo(state);
  return {
    pendingEffect: describePendingEffect(state, viewer),
    validMoves: viewer === null ? [] : optionsFor(state, viewer).map((o) => o.command),
    gameOver: over.gameOver,
    result: over.result,
    status: waitingFor(state),
    summary: over.summary,
  };
}
