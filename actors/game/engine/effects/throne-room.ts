/** Throne Room: play an Action from hand twice (2E: "you may"). The replay waits behind the first play's decisions. */
import { CARD_NAMES, isAction } from '../cards.js';
import { moveError, type MoveError } from '../errors.js';
import { readOptionalCard } from '../move-args.js';
import type { Move } from '../moves.js';
import type { GameState } from '../state.js';
import type { Decision } from '../tasks.js';
import { distinctCards, removeCard } from '../zones.js';
import { playEffect } from './play.js';

type Of<K extends Decision['k']> = Extract<Decision, { k: K }>;

export function throneRoom(s: GameState, p: number): void {
  if (s.players[p].hand.some(isAction)) s.stack.push({ k: 'select_action_for_throne', p });
}

export function resolveThroneRoom(s: GameState, d: Of<'select_action_for_throne'>, move: Move): MoveError | null {
  const arg = readOptionalCard(move);
  if (!arg.ok) return arg.error;
  const c = arg.card;
  if (c !== null) {
    if (!isAction(c)) return moveError('not_an_action', `${CARD_NAMES[c]} is not an Action card`);
    const pl = s.players[d.p];
    if (!removeCard(pl.hand, c)) return moveError('card_not_in_hand', `${CARD_NAMES[c]} is not in your hand`);
    s.stack.pop();
    pl.inPlay.push(c);
    // Queue the second play first: everything the first play asks goes on top of it.
    s.stack.push({ k: 'replay', p: d.p, c });
    playEffect(s, d.p, c, false);
    return null;
  }
  s.stack.pop();
  return null;
}

export const throneRoomMoves = (s: GameState, d: Of<'select_action_for_throne'>): Move[] => [
  ...distinctCards(s.players[d.p].hand, isAction).map((c): Move => ({ type: 'select_action_for_throne', card: CARD_NAMES[c] })),
  { type: 'select_action_for_throne', card: null },
];
