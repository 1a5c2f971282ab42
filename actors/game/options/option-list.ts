/**
 * The numbered options: one list for every situation (a normal turn or any pending decision), in the
 * engine's legal-move order, 1-based. Each option's command parses back to exactly its move.
 */
import type { CardName } from '../engine/cards.js';
import { legalMoves } from '../engine/legal-moves.js';
import type { Move } from '../engine/moves.js';
import type { GameState } from '../engine/state.js';
import { pendingDecision } from '../engine/step.js';
import { formatCommand } from './commands.js';
import { describeDecisionMove, describeTurnMove } from './descriptions.js';

export interface MoveOption {
  /** 1-based. */
  index: number;
  description: string;
  /** The command text that performs this option (also accepted: its index). */
  command: string;
  move: Move;
  cards?: CardName[];
  details?: Record<string, unknown>;
}

/** Every option of `player` right now; empty when it is not their move or the game is over. */
export function optionsFor(state: GameState, player: number): MoveOption[] {
  const moves = legalMoves(state, player);
  const d = pendingDecision(state);
  return moves.map((move, i) => {
    const described = d === null ? describeTurnMove(state, player, move) : describeDecisionMove(state, d, move);
    const option: MoveOption = { index: i + 1, description: described.description, command: formatCommand(move), move };
    if (described.cards !== undefined) option.cards = described.cards;
    if (described.details !== undefined) option.details = described.details;
    return option;
  });
}

/** The full command strings of every option ("validMoves" in responses). */
export const validMoves = (state: GameState, player: number): string[] => optionsFor(state, player).map((o) => o.command);

export const OPTION_DISPLAY_LIMIT = 50;

/**
 * The spec's display limit: at most 50 options shown, with a note when more exist. Every command stays
 * accepted whether shown or not.
 */
export function limitOptions<T>(options: readonly T[], limit = OPTION_DISPLAY_LIMIT): { options: T[]; total: number; message: string | null } {
  if (options.length <= limit) return { options: [...options], total: options.length, message: null };
  return {
    options: options.slice(0, limit),
    total: options.length,
    message: `Showing first ${limit} of ${options.length} options. Use move command for specific choice.`,
  };
}
