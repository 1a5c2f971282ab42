/**
 * Move objects built once per card, so bots in the simulation loop return constants instead of
 * allocating a move per decision. Frozen: callers must not edit them.
 */
import { CARD_NAMES, CARD_COUNT } from '../engine/cards.js';
import type { Move } from '../engine/moves.js';

const perCard = <M extends Move>(make: (name: (typeof CARD_NAMES)[number]) => M): readonly M[] =>
  Array.from({ length: CARD_COUNT }, (_, c) => Object.freeze(make(CARD_NAMES[c])));

export const BUY = perCard((card): Move => ({ type: 'buy', card }));
export const PLAY_ACTION = perCard((card): Move => ({ type: 'play_action', card }));
export const PLAY_ALL_TREASURES: Move = Object.freeze({ type: 'play_all_treasures' });
export const END_PHASE: Move = Object.freeze({ type: 'end_phase' });
export const END_TURN: Move = Object.freeze({ type: 'end_turn' });
