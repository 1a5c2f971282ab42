/**
 * Moves, as the API sees them: plain objects naming cards by name. A decision's move has the decision's
 * name as its type (Library and Spy accept two types, Sentry three), so a mismatch can be reported as
 * "Expected X, got Y".
 */
import type { CardName } from './cards.js';
import type { DecisionKind } from './tasks.js';

export type TurnMove =
  | { type: 'play_action'; card: CardName }
  | { type: 'play_treasure'; card: CardName }
  | { type: 'play_all_treasures' }
  | { type: 'buy'; card: CardName }
  /** Action phase → Buy phase. */
  | { type: 'end_phase' }
  /** Cleanup: ends the turn from either phase. */
  | { type: 'end_turn' };

export type DecisionMove =
  /** card null: done discarding, draw as many as were discarded. */
  | { type: 'discard_for_cellar'; card: CardName | null }
  /** Chapel; card null: done trashing. */
  | { type: 'trash_cards'; card: CardName | null }
  | { type: 'discard_for_poacher'; card: CardName }
  | { type: 'trash_copper'; choice: boolean }
  | { type: 'trash_for_remodel'; card: CardName }
  /** card null: don't trash (Mine says "you may"). */
  | { type: 'trash_for_mine'; card: CardName | null }
  | { type: 'gain_card'; card: CardName }
  | { type: 'topdeck_card'; card: CardName }
  /** card null: play nothing twice. */
  | { type: 'select_action_for_throne'; card: CardName | null }
  | { type: 'library_set_aside'; card: CardName }
  | { type: 'library_keep'; card: CardName }
  | { type: 'chancellor_decision'; choice: boolean }
  /** card null: leave the discard pile as it is. */
  | { type: 'harbinger_topdeck'; card: CardName | null }
  | { type: 'vassal_play'; choice: boolean }
  | { type: 'sentry_trash'; card: CardName }
  | { type: 'sentry_discard'; card: CardName }
  | { type: 'sentry_keep'; card: CardName }
  /** Which of the two kept cards goes on top. */
  | { type: 'sentry_order'; card: CardName }
  | { type: 'reveal_moat'; choice: boolean }
  | { type: 'discard_for_militia'; card: CardName }
  | { type: 'reveal_and_topdeck'; card: CardName }
  | { type: 'bandit_trash'; card: CardName }
  | { type: 'spy_discard'; card: CardName }
  | { type: 'spy_keep'; card: CardName }
  | { type: 'thief_trash'; card: CardName }
  | { type: 'thief_gain'; choice: boolean };

export type Move = TurnMove | DecisionMove;
export type MoveType = Move['type'];

/** The argument each move type takes (the command parser and formatter follow this table). */
export type MoveShape = 'none' | 'card' | 'optional_card' | 'choice';

export const MOVE_SHAPES: Readonly<Record<MoveType, MoveShape>> = {
  play_action: 'card',
  play_treasure: 'card',
  play_all_treasures: 'none',
  buy: 'card',
  end_phase: 'none',
  end_turn: 'none',
  discard_for_cellar: 'optional_card',
  trash_cards: 'optional_card',
  discard_for_poacher: 'card',
  trash_copper: 'choice',
  trash_for_remodel: 'card',
  trash_for_mine: 'optional_card',
  gain_card: 'card',
  topdeck_card: 'card',
  select_action_for_throne: 'optional_card',
  library_set_aside: 'card',
  library_keep: 'card',
  chancellor_decision: 'choice',
  harbinger_topdeck: 'optional_card',
  vassal_play: 'choice',
  sentry_trash: 'card',
  sentry_discard: 'card',
  sentry_keep: 'card',
  sentry_order: 'card',
  reveal_moat: 'choice',
  discard_for_militia: 'card',
  reveal_and_topdeck: 'card',
  bandit_trash: 'card',
  spy_discard: 'card',
  spy_keep: 'card',
  thief_trash: 'card',
  thief_gain: 'choice',
};

export const MOVE_TYPES = Object.keys(MOVE_SHAPES) as MoveType[];
export const isMoveType = (t: unknown): t is MoveType => typeof t === 'string' && Object.prototype.hasOwnProperty.call(MOVE_SHAPES, t);

/** The move types that answer each kind of decision. */
export function movesAnswering(kind: DecisionKind): MoveType[] {
  switch (kind) {
    case 'library_set_aside': return ['library_set_aside', 'library_keep'];
    case 'sentry_decision': return ['sentry_trash', 'sentry_discard', 'sentry_keep'];
    case 'spy_decision': return ['spy_discard', 'spy_keep'];
    default: return [kind];
  }
}
