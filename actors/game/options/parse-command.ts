/** Text → move for one player: a command ("buy Silver"), a number ("2") or "select 2". */
import type { Move } from '../engine/moves.js';
import { playerToMove, type GameState } from '../engine/state.js';
import { playerLabel } from '../engine/step.js';
import { parseMoveText, selectionNumber, splitCommands, type CommandError } from './commands.js';
import { optionsFor } from './option-list.js';

export type ParseResult = { ok: true; move: Move } | { ok: false; error: CommandError };

export function parseCommand(state: GameState, player: number, text: string): ParseResult {
  if (typeof text !== 'string' || text.trim() === '') return { ok: false, error: { code: 'parse_error', message: 'Empty command' } };
  if (splitCommands(text).length > 1) {
    return { ok: false, error: { code: 'chained_input', message: 'Several commands given (or a card list); use applyCommand for chained input and card lists' } };
  }
  const n = selectionNumber(text);
  if (n === null) return parseMoveText(text);
  const options = optionsFor(state, player);
  if (options.length === 0) {
    const mover = playerToMove(state);
    const message = mover === null ? 'The game is over: there are no options' : `No options: it is ${playerLabel(mover)}'s move`;
    return { ok: false, error: { code: 'no_options', message } };
  }
  if (!Number.isInteger(n) || n < 1 || n > options.length) {
    return {
      ok: false,
      error: { code: 'invalid_selection', message: `Invalid selection: ${n}. Valid range is 1-${options.length}.`, validRange: { min: 1, max: options.length } },
    };
  }
  return { ok: true, move: options[n - 1].move };
}
