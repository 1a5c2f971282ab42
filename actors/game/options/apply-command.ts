/**
 * Applies typed input for one player. Chained input ("1, 2, 3" or commands separated by commas or
 * semicolons) is all-or-nothing: each step runs on the copy the previous one produced, and if any step
 * fails the error names it and the original state is returned untouched.
 */
import { applyMove } from '../engine/apply.js';
import type { MoveError } from '../engine/errors.js';
import type { GameEvent } from '../engine/events.js';
import type { Move } from '../engine/moves.js';
import type { GameState } from '../engine/state.js';
import { splitCommands, type CommandError } from './commands.js';
import { parseCommand } from './parse-command.js';

export interface CommandFailure {
  code: CommandError['code'] | MoveError['code'];
  message: string;
  /** Which command of a chain failed (1-based) and its text. */
  step: number;
  command: string;
  validRange?: { min: number; max: number };
  expected?: string[];
  waitingFor?: number;
}

export type CommandResult =
  | { ok: true; state: GameState; moves: Move[]; events: GameEvent[] }
  | { ok: false; error: CommandFailure; state: GameState };

export function applyCommand(state: GameState, player: number, text: string): CommandResult {
  const commands = typeof text === 'string' ? splitCommands(text) : [];
  if (commands.length === 0) return { ok: false, error: { code: 'parse_error', message: 'Empty command', step: 1, command: '' }, state };
  let current = state;
  const moves: Move[] = [];
  const events: GameEvent[] = [];
  for (let i = 0; i < commands.length; i++) {
    const command = commands[i];
    const fail = (e: CommandError | MoveError): CommandResult => {
      const prefix = commands.length > 1 ? `Step ${i + 1} ("${command}"): ` : '';
      return { ok: false, error: { ...e, message: prefix + e.message, step: i + 1, command }, state };
    };
    const parsed = parseCommand(current, player, command);
    if (!parsed.ok) return fail(parsed.error);
    const applied = applyMove(current, player, parsed.move);
    if (!applied.ok) return fail(applied.error);
    current = applied.state;
    moves.push(parsed.move);
    events.push(...applied.events);
  }
  return { ok: true, state: current, moves, events };
}
