/**
 * The spec's list form for choices of several cards: "discard_for_cellar Copper,Copper,Estate",
 * "trash_cards Copper,Estate", "discard_for_militia Estate,Estate", "discard_for_poacher Copper,Estate".
 * The engine takes one card per move; a list is the whole answer: every listed card, then (Cellar,
 * Chapel) the bare command that finishes, so nothing of that choice is left pending. Militia and Poacher
 * need exactly the cards still to discard. The list is checked against the hand first; any error leaves
 * the state untouched (applyCommand returns the original state).
 */
import { applyMove } from '../engine/apply.js';
import { cardId, type CardName } from '../engine/cards.js';
import { moveError, type MoveError } from '../engine/errors.js';
import type { GameEvent } from '../engine/events.js';
import type { Move } from '../engine/moves.js';
import type { GameState } from '../engine/state.js';
import { pendingDecision } from '../engine/step.js';
import type { Decision } from '../engine/tasks.js';
import { parseMoveText, type CommandError } from './commands.js';

/** The decisions a card list answers, by their command verb. */
const LIST_VERBS = new Set<string>(['discard_for_cellar', 'trash_cards', 'discard_for_militia', 'discard_for_poacher']);

type ListDecision = Extract<Decision, { k: 'discard_for_cellar' | 'trash_cards' | 'discard_for_militia' | 'discard_for_poacher' }>;

/** Chapel's limit. */
const CHAPEL_MAX = 4;

/** True when `commands` (from one CommandGroup) is a card list for a multi-card choice. */
export function isCardList(commands: readonly string[]): boolean {
  return commands.length > 1 && LIST_VERBS.has(commands[0].trim().split(/\s+/)[0].toLowerCase());
}

export type CardListResult =
  | { ok: true; state: GameState; moves: Move[]; events: GameEvent[] }
  | { ok: false; error: CommandError | MoveError };

/** Applies a card list (see isCardList) as one answer to the front decision. Never mutates `state`. */
export function applyCardList(state: GameState, player: number, commands: readonly string[]): CardListResult {
  const moves: Move[] = [];
  for (const command of commands) {
    const parsed = parseMoveText(command);
    if (!parsed.ok) return { ok: false, error: parsed.error };
    const card = (parsed.move as { card?: CardName | null }).card;
    if (typeof card !== 'string') {
      return { ok: false, error: { code: 'parse_error', message: `${parsed.move.type}: list the cards by name (the bare command alone finishes)` } };
    }
    moves.push(parsed.move);
  }
  const d = pendingDecision(state);
  // Not this player's matching decision: the picks one by one give the engine's own error.
  if (state.phase === 'over' || d === null || d.p !== player || d.k !== moves[0].type) return applyPicks(state, player, moves);
  const invalid = checkList(state, d as ListDecision, moves.map((m) => (m as { card: CardName }).card));
  if (invalid !== null) return { ok: false, error: invalid };

  const depth = state.stack.length;
  let current = state;
  const applied: Move[] = [];
  const events: GameEvent[] = [];
  const step = (move: Move): MoveError | null => {
    const r = applyMove(current, player, move);
    if (!r.ok) return r.error;
    current = r.state;
    applied.push(move);
    events.push(...r.events);
    return null;
  };
  for (const move of moves) {
    // Militia and Poacher discard the rest themselves once the remaining cards are all alike (checked
    // above: they are exactly the listed ones), which ends the decision early.
    if (!samePending(current, depth, d as ListDecision, applied.length)) break;
    const error = step(move);
    if (error !== null) return { ok: false, error };
  }
  if ((d.k === 'discard_for_cellar' || d.k === 'trash_cards') && samePending(current, depth, d, applied.length)) {
    const error = step({ type: d.k, card: null });
    if (error !== null) return { ok: false, error };
  }
  return { ok: true, state: current, moves: applied, events };
}

function applyPicks(state: GameState, player: number, moves: readonly Move[]): CardListResult {
  let current = state;
  const events: GameEvent[] = [];
  for (const move of moves) {
    const r = applyMove(current, player, move);
    if (!r.ok) return { ok: false, error: r.error };
    current = r.state;
    events.push(...r.events);
  }
  return { ok: true, state: current, moves: [...moves], events };
}

/** The list's size for the decision, then every card against the hand (copies counted). */
function checkList(s: GameState, d: ListDecision, cards: readonly CardName[]): MoveError | null {
  const hand = s.players[d.p].hand;
  const listed = cards.length;
  switch (d.k) {
    case 'trash_cards': {
      const left = CHAPEL_MAX - d.n;
      if (listed > left) {
        const message = d.n === 0
          ? `Chapel trashes at most ${CHAPEL_MAX} cards; ${listed} listed`
          : `Chapel can trash at most ${left} more card(s) (${CHAPEL_MAX} in all, ${d.n} trashed); ${listed} listed`;
        return moveError('illegal_choice', message);
      }
      break;
    }
    case 'discard_for_militia': {
      const required = hand.length - 3;
      if (listed !== required) return moveError('illegal_choice', `Militia: discard exactly ${required} card(s) to get down to 3; ${listed} listed`);
      break;
    }
    case 'discard_for_poacher':
      if (listed !== d.n) return moveError('illegal_choice', `Poacher: discard exactly ${d.n} card(s); ${listed} listed`);
      break;
    case 'discard_for_cellar':
      break;
  }
  const counts = new Map<CardName, number>();
  for (const name of cards) counts.set(name, (counts.get(name) ?? 0) + 1);
  for (const [name, wanted] of counts) {
    const id = cardId(name);
    let have = 0;
    for (const c of hand) if (c === id) have++;
    if (have === 0) return moveError('card_not_in_hand', `${name} is not in your hand`);
    if (wanted > have) return moveError('card_not_in_hand', `Only ${have} ${name} in your hand; ${wanted} listed`);
  }
  return null;
}

/**
 * True while decision `d` (at stack depth `depth`) is still the front one after `picked` cards. A
 * finished Cellar or Chapel may be followed by a fresh one at the same depth (Throne Room's replay),
 * which the counter tells apart.
 */
function samePending(s: GameState, depth: number, d: ListDecision, picked: number): boolean {
  const now = pendingDecision(s);
  if (s.stack.length !== depth || now === null || now.k !== d.k || now.p !== d.p) return false;
  switch (d.k) {
    case 'discard_for_cellar':
    case 'trash_cards':
      return (now as ListDecision & { n: number }).n === d.n + picked;
    case 'discard_for_poacher':
      return (now as ListDecision & { n: number }).n === d.n - picked;
    case 'discard_for_militia':
      return true;
  }
}
