/**
 * Applies typed input for one player. Chained input ("1, 2, 3" or commands separated by commas or
 * semicolons) is all-or-nothing: each step runs on the copy the previous one produced, and if any step
 * fails the error names it and the original state is returned untouched. A card list for a multi-card
 * choice ("discard_for_cellar Copper,Copper,Estate", "trash_cards Copper,Estate", Militia's and Poacher's
 * discards) is one step that answers the whole choice (card-lists.ts); other lists ("buy Silver,Silver")
 * are one step per card.
 */
import { applyMove } from '../engine/apply.js';
import type { MoveError } from '../engine/errors.js';
import type { GameEvent } from '../engine/events.js';
import type { Move } from '../engine/moves.js';
import type { GameState } from '../engine/state.js';
import { applyCardList, isCardList } from './card-lists.js';
import { groupCommands, type CommandError } from './commands.js';
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
  const steps = typeof text === 'string' ? chainSteps(text) : [];
  if (steps.length === 0) return { ok: false, error: { code: 'parse_error', message: 'Empty command', step: 1, command: '' }, state };
  let current = state;
  const moves: Move[] = [];
  const events: GameEvent[] = [];
  for (let i = 0; i < steps.length; i++) {
    const { command, list } = steps[i];
    const fail = (e: CommandError | MoveError): CommandResult => {
      const prefix = steps.length > 1 ? `Step ${i + 1} ("${command}"): ` : '';
      return { ok: false, error: { ...e, message: prefix + e.message, step: i + 1, command }, state };
    };
    if (list !== null) {
      const answered = applyCardList(current, player, list);
      if (!answered.ok) return fail(answered.error);
      current = answered.state;
      moves.push(...answered.moves);
      events.push(...answered.events);
      continue;
    }
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

/** The steps of a chain: single commands, and card lists for multi-card choices (with their commands). */
interface ChainStep {
  command: string;
  list: string[] | null;
}

function chainSteps(text: string): ChainStep[] {
  return groupCommands(text).flatMap((g): ChainStep[] =>
    isCardList(g.commands) ? [{ command: g.text, list: g.commands }] : g.commands.map((command) => ({ command, list: null })),
  );
}
