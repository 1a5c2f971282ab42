/** The public, non-mutating move: copy the state, step the copy in place, report events. */
import type { MoveError } from './errors.js';
import { recordEvents, type GameEvent } from './events.js';
import type { Move } from './moves.js';
import { cloneState, playerToMove, type GameState } from './state.js';
import { stepInPlace } from './step.js';

export type ApplyResult =
  | { ok: true; state: GameState; events: GameEvent[]; toMove: number | null; gameOver: boolean }
  | { ok: false; error: MoveError; state: GameState };

/**
 * applyMove = cloneState + stepInPlace. The input state is never modified: on error the result carries
 * the very same state object. Deterministic: the PRNG lives in the state.
 */
export function applyMove(state: GameState, player: number, move: Move): ApplyResult {
  const next = cloneState(state);
  const { value: error, events } = recordEvents(() => stepInPlace(next, player, move));
  if (error !== null) return { ok: false, error, state };
  return { ok: true, state: next, events, toMove: playerToMove(next), gameOver: next.phase === 'over' };
}
