/** Typed move errors: a rejected move never changes the state. */

export type MoveErrorCode =
  | 'game_over'
  | 'not_your_turn'
  | 'invalid_move'
  | 'wrong_move_for_pending'
  | 'pending_decision'
  | 'unknown_card'
  | 'card_not_in_hand'
  | 'not_an_action'
  | 'not_a_treasure'
  | 'wrong_phase'
  | 'no_actions'
  | 'no_buys'
  | 'not_enough_coins'
  | 'not_in_supply'
  | 'pile_empty'
  | 'treasure_after_buy'
  | 'illegal_choice';

export interface MoveError {
  code: MoveErrorCode;
  message: string;
  /** For wrong_move_for_pending: the move types the pending decision accepts. */
  expected?: string[];
  /** For not_your_turn: who must move. */
  waitingFor?: number;
}

export const moveError = (code: MoveErrorCode, message: string, extra?: Partial<MoveError>): MoveError => ({ code, message, ...extra });
