/** The moves of a normal turn: play Actions, play Treasures, buy, end the phase, cleanup. */
import { CARD_NAMES, cardId, COINS, COST, isAction, isTreasure, SILVER, TYPES, TREASURE } from './cards.js';
import { playEffect } from './effects/play.js';
import { eventSink } from './events.js';
import { moveError, type MoveError } from './errors.js';
import type { Move } from './moves.js';
import { endReason, gameResult } from './scoring.js';
import type { GameState } from './state.js';
import { draw } from './zones.js';

const cardOf = (move: Move): number => {
  const name = (move as { card?: unknown }).card;
  return typeof name === 'string' ? cardId(name) : -1;
};

const unknownCard = (move: Move): MoveError => {
  const name = (move as { card?: unknown }).card;
  return typeof name === 'string' ? moveError('unknown_card', `Unknown card: ${name}`) : moveError('invalid_move', `${move.type} needs a card name`);
};

export function playAction(s: GameState, p: number, move: Move): MoveError | null {
  const c = cardOf(move);
  if (c < 0) return unknownCard(move);
  if (s.phase !== 'action') return moveError('wrong_phase', 'Actions can only be played in the Action phase');
  if (!isAction(c)) return moveError('not_an_action', `${CARD_NAMES[c]} is not an Action card`);
  if (s.actions < 1) return moveError('no_actions', 'No Actions left');
  const pl = s.players[p];
  const i = pl.hand.lastIndexOf(c);
  if (i < 0) return moveError('card_not_in_hand', `${CARD_NAMES[c]} is not in your hand`);
  pl.hand.splice(i, 1);
  pl.inPlay.push(c);
  s.actions--;
  playEffect(s, p, c, false);
  return null;
}

function addTreasure(s: GameState, c: number): void {
  s.coins += COINS[c];
  if (c === SILVER && !s.silverPlayed) {
    s.silverPlayed = true;
    s.coins += s.merchants;
  }
}

export function playTreasure(s: GameState, p: number, move: Move): MoveError | null {
  const c = cardOf(move);
  if (c < 0) return unknownCard(move);
  if (s.bought) return moveError('treasure_after_buy', 'Treasures cannot be played after buying');
  if (!isTreasure(c)) return moveError('not_a_treasure', `${CARD_NAMES[c]} is not a Treasure`);
  const pl = s.players[p];
  const i = pl.hand.lastIndexOf(c);
  if (i < 0) return moveError('card_not_in_hand', `${CARD_NAMES[c]} is not in your hand`);
  pl.hand.splice(i, 1);
  pl.inPlay.push(c);
  s.phase = 'buy';
  addTreasure(s, c);
  if (eventSink !== null) eventSink.push({ type: 'play', player: p, card: CARD_NAMES[c] });
  return null;
}

export function playAllTreasures(s: GameState, p: number): MoveError | null {
  if (s.bought) return moveError('treasure_after_buy', 'Treasures cannot be played after buying');
  const pl = s.players[p];
  const hand = pl.hand;
  let kept = 0;
  for (let i = 0; i < hand.length; i++) {
    const c = hand[i];
    if (TYPES[c] & TREASURE) {
      pl.inPlay.push(c);
      addTreasure(s, c);
      if (eventSink !== null) eventSink.push({ type: 'play', player: p, card: CARD_NAMES[c] });
    } else {
      hand[kept++] = c;
    }
  }
  if (kept === hand.length) return moveError('illegal_choice', 'No Treasures in hand');
  hand.length = kept;
  s.phase = 'buy';
  return null;
}

export function buy(s: GameState, p: number, move: Move): MoveError | null {
  const c = cardOf(move);
  if (c < 0) return unknownCard(move);
  if (s.buys < 1) return moveError('no_buys', 'No Buys left');
  if (s.supply[c] <= 0) {
    return s.piles.includes(c)
      ? moveError('pile_empty', `The ${CARD_NAMES[c]} pile is empty`)
      : moveError('not_in_supply', `${CARD_NAMES[c]} is not in this game's Supply`);
  }
  if (COST[c] > s.coins) return moveError('not_enough_coins', `${CARD_NAMES[c]} costs $${COST[c]}; you have $${s.coins}`);
  s.coins -= COST[c];
  s.buys--;
  s.bought = true;
  s.phase = 'buy';
  s.supply[c]--;
  s.players[p].discard.push(c);
  if (eventSink !== null) eventSink.push({ type: 'buy', player: p, card: CARD_NAMES[c] });
  return null;
}

export function endPhase(s: GameState): MoveError | null {
  if (s.phase !== 'action') return moveError('wrong_phase', 'end_phase ends the Action phase; use end_turn in the Buy phase');
  s.phase = 'buy';
  return null;
}

/** Cleanup, then the game-end check (only ever at the end of a turn), then the next player's turn. */
export function endTurn(s: GameState, p: number): void {
  const pl = s.players[p];
  const hand = pl.hand;
  const inPlay = pl.inPlay;
  const discard = pl.discard;
  for (let i = 0; i < hand.length; i++) discard.push(hand[i]);
  for (let i = 0; i < inPlay.length; i++) discard.push(inPlay[i]);
  hand.length = 0;
  inPlay.length = 0;
  draw(s, p, 5);
  pl.turns++;
  s.actions = 1;
  s.buys = 1;
  s.coins = 0;
  s.bought = false;
  s.merchants = 0;
  s.silverPlayed = false;
  const reason = endReason(s);
  if (reason !== null) {
    s.phase = 'over';
    s.result = gameResult(s, reason);
    if (eventSink !== null) eventSink.push({ type: 'game_over', result: s.result });
    return;
  }
  s.current = (p + 1) % s.players.length;
  s.turn++;
  s.phase = 'action';
  if (eventSink !== null) eventSink.push({ type: 'turn_start', player: s.current, turn: s.turn });
}
