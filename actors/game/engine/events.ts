/**
 * What happened during a move, for logs and narration. Only public information: draws are counts, a card
 * put on a deck from hand is hidden. Recording is off in the hot loop: call sites test `eventSink`
 * before building an event, so simulations allocate nothing for it.
 */
import type { CardName } from './cards.js';
import type { GameResult } from './state.js';

export type GameEvent =
  | { type: 'turn_start'; player: number; turn: number }
  | { type: 'play'; player: number; card: CardName }
  | { type: 'buy'; player: number; card: CardName }
  | { type: 'gain'; player: number; card: CardName; to: 'discard' | 'hand' | 'deck' }
  | { type: 'trash'; player: number; card: CardName }
  | { type: 'discard'; player: number; card: CardName }
  | { type: 'deck_to_discard'; player: number; count: number }
  | { type: 'draw'; player: number; count: number }
  | { type: 'reveal'; player: number; cards: CardName[] }
  | { type: 'topdeck'; player: number; card: CardName | null }
  | { type: 'set_aside'; player: number; card: CardName }
  | { type: 'shuffle'; player: number }
  | { type: 'moat'; player: number; revealed: boolean }
  | { type: 'game_over'; result: GameResult };

/** Live binding: null unless a public call is recording. */
export let eventSink: GameEvent[] | null = null;

export function recordEvents<T>(run: () => T): { value: T; events: GameEvent[] } {
  const events: GameEvent[] = [];
  const previous = eventSink;
  eventSink = events;
  try {
    return { value: run(), events };
  } finally {
    eventSink = previous;
  }
}
