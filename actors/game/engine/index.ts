/**
 * The Dominion engine's public API. Pure and deterministic: no I/O, the PRNG lives in the state, and the
 * state is plain JSON (store it as is). Players are 0-based indexes; human-readable messages say
 * "Player 1" for index 0.
 */
export {
  CARD_NAMES, KINGDOM_CARD_NAMES, EDITIONS, cardInfo,
  type CardName, type CardInfo, type CardType, type CardSet, type Edition,
} from './cards.js';
export { KINGDOM_PRESETS, PRESET_NAMES, DEFAULT_PRESET, EDITION_CARD_NAMES, presetName } from './kingdoms.js';
export { createGame, createSoloGame, type GameConfig, type CreateResult, type ConfigErrorCode } from './setup.js';
export { applyMove, type ApplyResult } from './apply.js';
export { stepInPlace, pendingDecision, playerLabel } from './step.js';
export { legalMoves } from './legal-moves.js';
export { observe, pendingView, type Observation, type PlayerView, type PendingView, type Detail } from './observe.js';
export { playerToMove, cloneState, type GameState, type PlayerState, type GameResult, type Phase, type EndReason } from './state.js';
export { victoryPoints } from './scoring.js';
export { MOVE_SHAPES, MOVE_TYPES, isMoveType, movesAnswering, type Move, type MoveType, type MoveShape, type TurnMove, type DecisionMove } from './moves.js';
export type { MoveError, MoveErrorCode } from './errors.js';
export type { GameEvent } from './events.js';
export type { Decision, DecisionKind } from './tasks.js';
