/**
 * The text form of moves: `verb` or `verb argument`, where the argument is a card name or yes/no.
 * formatCommand and parseMoveText are exact inverses for every move (the round-trip the options rely on).
 */
import { CARD_NAMES, cardIdLoose, COINS, isAction } from '../engine/cards.js';
import { MOVE_SHAPES, isMoveType, type Move, type MoveType } from '../engine/moves.js';

export function formatCommand(move: Move): string {
  const shape = MOVE_SHAPES[move.type];
  if (shape === 'none') return move.type;
  if (shape === 'choice') return `${move.type} ${(move as { choice: boolean }).choice ? 'yes' : 'no'}`;
  const card = (move as { card: string | null }).card;
  return card === null ? move.type : `${move.type} ${card}`;
}

export type CommandErrorCode = 'parse_error' | 'unknown_command' | 'unknown_card' | 'missing_argument' | 'invalid_selection' | 'chained_input' | 'no_options';

export interface CommandError {
  code: CommandErrorCode;
  message: string;
  /** For invalid_selection: the valid range. */
  validRange?: { min: number; max: number };
}

export type MoveTextResult = { ok: true; move: Move } | { ok: false; error: CommandError };

/** Friendlier verbs people type; the canonical verbs are the move types. */
const ALIASES: Readonly<Record<string, MoveType | 'play'>> = {
  play: 'play',
  play_all: 'play_all_treasures',
  play_treasures: 'play_all_treasures',
  treasures: 'play_all_treasures',
  end: 'end_turn',
  end_actions: 'end_phase',
  done: 'end_turn',
  pass: 'end_turn',
};

const YES = new Set(['yes', 'y', 'true', 'reveal', 'play', 'trash', 'gain']);
const NO = new Set(['no', 'n', 'false', 'skip', 'keep', 'decline']);
const NONE = new Set(['', 'none', 'nothing', 'done', 'skip', 'stop']);

export const isVerb = (word: string): boolean => {
  const w = word.toLowerCase();
  return isMoveType(w) || Object.prototype.hasOwnProperty.call(ALIASES, w);
};

/** Parses one `verb argument` command (no chains, no numbers) into a move, without looking at the game. */
export function parseMoveText(text: string): MoveTextResult {
  const trimmed = text.trim();
  const space = trimmed.search(/\s/);
  const verb = (space < 0 ? trimmed : trimmed.slice(0, space)).toLowerCase();
  const arg = space < 0 ? '' : trimmed.slice(space + 1).trim();
  if (verb === '') return { ok: false, error: { code: 'parse_error', message: 'Empty command' } };
  let type: MoveType | 'play';
  if (isMoveType(verb)) type = verb;
  else if (Object.prototype.hasOwnProperty.call(ALIASES, verb)) type = ALIASES[verb];
  else return { ok: false, error: { code: 'unknown_command', message: `Unknown command: ${verb}` } };

  if (type === 'play') {
    if (arg.toLowerCase() === 'all' || arg.toLowerCase() === 'treasures') return { ok: true, move: { type: 'play_all_treasures' } };
    const c = cardIdLoose(arg);
    if (c < 0) return { ok: false, error: arg === '' ? { code: 'missing_argument', message: 'play needs a card name' } : { code: 'unknown_card', message: `Unknown card: ${arg}` } };
    return { ok: true, move: isAction(c) || COINS[c] === 0 ? { type: 'play_action', card: CARD_NAMES[c] } : { type: 'play_treasure', card: CARD_NAMES[c] } };
  }
  const shape = MOVE_SHAPES[type];
  switch (shape) {
    case 'none':
      return { ok: true, move: { type } as Move };
    case 'choice': {
      const word = arg.toLowerCase();
      if (YES.has(word)) return { ok: true, move: { type, choice: true } as Move };
      if (NO.has(word)) return { ok: true, move: { type, choice: false } as Move };
      return { ok: false, error: { code: arg === '' ? 'missing_argument' : 'parse_error', message: `${type} needs yes or no` } };
    }
    case 'optional_card':
    case 'card': {
      if (shape === 'optional_card' && NONE.has(arg.toLowerCase())) return { ok: true, move: { type, card: null } as Move };
      if (arg === '') return { ok: false, error: { code: 'missing_argument', message: `${type} needs a card name` } };
      const c = cardIdLoose(arg);
      if (c < 0) return { ok: false, error: { code: 'unknown_card', message: `Unknown card: ${arg}` } };
      return { ok: true, move: { type, card: CARD_NAMES[c] } as Move };
    }
  }
}

const SELECTION = /^(?:select\s+)?(-?\d+)$/i;

/** The option number of "3" or "select 3", else null. */
export function selectionNumber(text: string): number | null {
  const m = SELECTION.exec(text.trim());
  return m === null ? null : Number(m[1]);
}

/**
 * One verb-led command of a chain as typed, and the single commands it stands for: one, or one per card
 * for a card list ("discard_for_cellar Copper,Copper,Estate" stands for three discard_for_cellar commands).
 */
export interface CommandGroup {
  /** The command as given, card list rejoined with commas ("discard_for_cellar Copper,Copper,Estate"). */
  text: string;
  commands: string[];
}

/**
 * Groups chained input ("1, 2, 3", "play_action Village; play_action Smithy") into commands. A piece that
 * is neither a number nor starts with a verb continues the previous command's card list.
 */
export function groupCommands(text: string): CommandGroup[] {
  const pieces = text.split(/[,;\n]/).map((p) => p.trim()).filter((p) => p !== '');
  const out: CommandGroup[] = [];
  let verb: string | null = null;
  for (const piece of pieces) {
    const first = piece.split(/\s+/)[0];
    const last = out[out.length - 1];
    if (selectionNumber(piece) !== null) {
      out.push({ text: piece, commands: [piece] });
      verb = null;
    } else if (isVerb(first)) {
      out.push({ text: piece, commands: [piece] });
      verb = first;
    } else if (verb !== null && last !== undefined) {
      last.text += `,${piece}`;
      last.commands.push(`${verb} ${piece}`);
    } else {
      out.push({ text: piece, commands: [piece] });
    }
  }
  return out;
}

/**
 * Splits chained input into single commands: "discard_for_cellar Copper,Copper,Estate" becomes three
 * discard_for_cellar commands (applyCommand treats such a list for a multi-card choice as one answer).
 */
export function splitCommands(text: string): string[] {
  return groupCommands(text).flatMap((g) => g.commands);
}
