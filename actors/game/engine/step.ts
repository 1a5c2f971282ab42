/**
 * The in-place step: validates a move, applies it to the state it is given, then runs every automatic
 * step until a decision (or a normal turn) is at the front. It allocates nothing on the common paths,
 * which is what lets bots simulate tens of thousands of games per second. It must only be used on a
 * private copy; the public applyMove (apply.ts) is cloneState + stepInPlace.
 */
import { moveError, type MoveError } from './errors.js';
import { decisionMoves, resolveDecision, runStep } from './effects/play.js';
import { isMoveType, MOVE_TYPES, movesAnswering, type Move, type MoveType } from './moves.js';
import type { GameState } from './state.js';
import { isDecision, type Decision, type DecisionKind } from './tasks.js';
import { buy, endPhase, endTurn, playAction, playAllTreasures, playTreasure } from './turn.js';

const TURN_MOVES: ReadonlySet<MoveType> = new Set<MoveType>(['play_action', 'play_treasure', 'play_all_treasures', 'buy', 'end_phase', 'end_turn']);
const DECISION_MOVES: ReadonlySet<MoveType> = new Set(MOVE_TYPES.filter((t) => !TURN_MOVES.has(t)));

export const playerLabel = (p: number): string => `Player ${p + 1}`;

/** Runs automatic steps until the front of the stack is a decision or the stack is empty. */
export function drain(s: GameState): void {
  const stack = s.stack;
  while (stack.length > 0) {
    const t = stack[stack.length - 1];
    if (isDecision(t)) return;
    stack.pop();
    runStep(s, t);
  }
}

export function pendingDecision(s: GameState): Decision | null {
  const n = s.stack.length;
  return n > 0 ? (s.stack[n - 1] as Decision) : null;
}

export function stepInPlace(s: GameState, player: number, move: Move): MoveError | null {
  if (s.phase === 'over') return moveError('game_over', 'The game is over');
  if (typeof move !== 'object' || move === null || !isMoveType(move.type)) {
    return moveError('invalid_move', `Unknown move type: ${typeof move === 'object' && move !== null ? String((move as { type?: unknown }).type) : String(move)}`);
  }
  const d = pendingDecision(s);
  const mover = d === null ? s.current : d.p;
  if (player !== mover) {
    const what = d === null ? 'to take their turn' : `to answer ${d.k}`;
    return moveError('not_your_turn', `Waiting for ${playerLabel(mover)} ${what}`, { waitingFor: mover });
  }
  let error: MoveError | null;
  if (d !== null) {
    const expected = movesAnswering(d.k as DecisionKind);
    if (!expected.includes(move.type)) {
      return moveError('wrong_move_for_pending', `Expected ${expected.join(' or ')}, got ${move.type}`, { expected });
    }
    error = resolveDecision(s, d, move);
  } else {
    switch (move.type) {
      case 'play_all_treasures': error = playAllTreasures(s, player); break;
      case 'buy': error = buy(s, player, move); break;
      case 'end_turn': endTurn(s, player); error = null; break;
      case 'play_treasure': error = playTreasure(s, player, move); break;
      case 'play_action': error = playAction(s, player, move); break;
      case 'end_phase': error = endPhase(s); break;
      default:
        error = DECISION_MOVES.has(move.type)
          ? moveError('invalid_move', `Nothing is pending that ${move.type} answers`)
          : moveError('invalid_move', `Unknown move type: ${move.type}`);
    }
  }
  if (error !== null) return error;
  drain(s);
  return null;
}

/** Every legal answer to the pending decision (for legalMoves and the options layer). */
export function pendingMoves(s: GameState): Move[] {
  const d = pendingDecision(s);
  return d === null ? [] : decisionMoves(s, d);
}
