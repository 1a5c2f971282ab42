/** Cards that look at or rearrange the player's own deck: Harbinger, Vassal, Sentry, Chancellor, Library, Adventurer. */
import { CARD_NAMES, isAction, isTreasure } from '../cards.js';
import { eventSink } from '../events.js';
import { moveError, type MoveError } from '../errors.js';
import { readCard, readChoice, readOptionalCard } from '../move-args.js';
import type { Move } from '../moves.js';
import { shuffleInPlace } from '../rng.js';
import type { GameState } from '../state.js';
import type { Decision } from '../tasks.js';
import { discardAside, distinctCards, draw, removeCard, takeTop } from '../zones.js';
import { playEffect } from './play.js';

type Of<K extends Decision['k']> = Extract<Decision, { k: K }>;

// Harbinger: +1 Card +1 Action, then may put a card from the discard pile onto the deck.
export function harbinger(s: GameState, p: number): void {
  draw(s, p, 1);
  s.actions += 1;
  if (s.players[p].discard.length > 0) s.stack.push({ k: 'harbinger_topdeck', p });
}

export function resolveHarbinger(s: GameState, d: Of<'harbinger_topdeck'>, move: Move): MoveError | null {
  const arg = readOptionalCard(move);
  if (!arg.ok) return arg.error;
  const pl = s.players[d.p];
  if (arg.card !== null) {
    if (!removeCard(pl.discard, arg.card)) return moveError('illegal_choice', `${CARD_NAMES[arg.card]} is not in your discard pile`);
    pl.deck.push(arg.card);
    // Hidden: naming it would tell everyone the top card of this deck.
    if (eventSink !== null) eventSink.push({ type: 'topdeck', player: d.p, card: null });
  }
  s.stack.pop();
  return null;
}

export const harbingerMoves = (s: GameState, d: Of<'harbinger_topdeck'>): Move[] => [
  ...distinctCards(s.players[d.p].discard).map((c): Move => ({ type: 'harbinger_topdeck', card: CARD_NAMES[c] })),
  { type: 'harbinger_topdeck', card: null },
];

// Vassal: +$2, discard the top card; an Action may be played from there without using an Action.
export function vassal(s: GameState, p: number): void {
  s.coins += 2;
  const c = takeTop(s, p);
  if (c < 0) return;
  s.players[p].discard.push(c);
  if (eventSink !== null) eventSink.push({ type: 'discard', player: p, card: CARD_NAMES[c] });
  if (isAction(c)) s.stack.push({ k: 'vassal_play', p, c });
}

export function resolveVassal(s: GameState, d: Of<'vassal_play'>, move: Move): MoveError | null {
  const arg = readChoice(move);
  if (!arg.ok) return arg.error;
  s.stack.pop();
  const pl = s.players[d.p];
  if (arg.choice && removeCard(pl.discard, d.c)) {
    pl.inPlay.push(d.c);
    playEffect(s, d.p, d.c, false);
  }
  return null;
}

export const vassalMoves = (): Move[] => [
  { type: 'vassal_play', choice: true },
  { type: 'vassal_play', choice: false },
];

// Chancellor (1E): +$2, may put the whole deck into the discard pile (not a shuffle).
export function chancellor(s: GameState, p: number): void {
  s.coins += 2;
  if (s.players[p].deck.length > 0) s.stack.push({ k: 'chancellor_decision', p });
}

export function resolveChancellor(s: GameState, d: Of<'chancellor_decision'>, move: Move): MoveError | null {
  const arg = readChoice(move);
  if (!arg.ok) return arg.error;
  s.stack.pop();
  if (arg.choice) {
    const pl = s.players[d.p];
    const count = pl.deck.length;
    for (let i = 0; i < count; i++) pl.discard.push(pl.deck[i]);
    pl.deck.length = 0;
    if (eventSink !== null) eventSink.push({ type: 'deck_to_discard', player: d.p, count });
  }
  return null;
}

export const chancellorMoves = (): Move[] => [
  { type: 'chancellor_decision', choice: true },
  { type: 'chancellor_decision', choice: false },
];

// Library: draw to 7; each Action drawn may be set aside (discarded at the end).
export function library(s: GameState, p: number): void {
  const pl = s.players[p];
  while (pl.hand.length < 7) {
    const c = takeTop(s, p);
    if (c < 0) break;
    pl.hand.push(c);
    if (eventSink !== null) eventSink.push({ type: 'draw', player: p, count: 1 });
    if (isAction(c)) {
      // Resume drawing (the automatic 'library' step) once the player has chosen.
      s.stack.push({ k: 'library', p });
      s.stack.push({ k: 'library_set_aside', p, c });
      return;
    }
  }
  discardAside(s, p);
}

export function resolveLibrary(s: GameState, d: Of<'library_set_aside'>, move: Move): MoveError | null {
  const arg = readCard(move);
  if (!arg.ok) return arg.error;
  if (arg.card !== d.c) return moveError('illegal_choice', `Library drew ${CARD_NAMES[d.c]}, not ${CARD_NAMES[arg.card]}`);
  s.stack.pop();
  if (move.type === 'library_set_aside') {
    const pl = s.players[d.p];
    removeCard(pl.hand, d.c);
    pl.aside.push(d.c);
    if (eventSink !== null) eventSink.push({ type: 'set_aside', player: d.p, card: CARD_NAMES[d.c] });
  }
  return null;
}

export const libraryMoves = (_s: GameState, d: Of<'library_set_aside'>): Move[] => [
  { type: 'library_set_aside', card: CARD_NAMES[d.c] },
  { type: 'library_keep', card: CARD_NAMES[d.c] },
];

// Adventurer (1E): reveal until 2 Treasures; they go to hand, the rest is discarded.
export function adventurer(s: GameState, p: number): void {
  const pl = s.players[p];
  let found = 0;
  const start = pl.aside.length;
  while (found < 2) {
    const c = takeTop(s, p);
    if (c < 0) break;
    pl.aside.push(c);
    if (isTreasure(c)) found++;
  }
  if (eventSink !== null) eventSink.push({ type: 'reveal', player: p, cards: pl.aside.slice(start).map((c) => CARD_NAMES[c]) });
  for (let i = pl.aside.length - 1; i >= start; i--) {
    if (isTreasure(pl.aside[i])) {
      pl.hand.push(pl.aside[i]);
      pl.aside.splice(i, 1);
    }
  }
  discardAside(s, p);
}

// Sentry: +1 Card +1 Action; look at the top 2 cards, which stay on the deck while the player decides.
export function sentry(s: GameState, p: number): void {
  draw(s, p, 1);
  s.actions += 1;
  const pl = s.players[p];
  if (pl.deck.length < 2 && pl.discard.length > 0) {
    // The card(s) still on the deck are being looked at, so the shuffled discard pile goes under them.
    const rest = pl.deck;
    const fresh = pl.discard;
    shuffleInPlace(s.rng, fresh);
    for (let i = 0; i < rest.length; i++) fresh.push(rest[i]);
    rest.length = 0;
    pl.deck = fresh;
    pl.discard = rest;
    if (eventSink !== null) eventSink.push({ type: 'shuffle', player: p });
  }
  const n = Math.min(2, pl.deck.length);
  if (n > 0) s.stack.push({ k: 'sentry_decision', p, c: pl.deck[pl.deck.length - 1], left: n, kept: 0 });
}

export function resolveSentry(s: GameState, d: Of<'sentry_decision'>, move: Move): MoveError | null {
  const arg = readCard(move);
  if (!arg.ok) return arg.error;
  if (arg.card !== d.c) return moveError('illegal_choice', `Sentry is looking at ${CARD_NAMES[d.c]}, not ${CARD_NAMES[arg.card]}`);
  const pl = s.players[d.p];
  const at = pl.deck.length - 1 - d.kept;
  if (move.type === 'sentry_keep') {
    d.kept++;
  } else {
    pl.deck.splice(at, 1);
    if (move.type === 'sentry_trash') {
      s.trash.push(d.c);
      if (eventSink !== null) eventSink.push({ type: 'trash', player: d.p, card: CARD_NAMES[d.c] });
    } else {
      pl.discard.push(d.c);
      if (eventSink !== null) eventSink.push({ type: 'discard', player: d.p, card: CARD_NAMES[d.c] });
    }
  }
  d.left--;
  if (d.left > 0) {
    d.c = pl.deck[pl.deck.length - 1 - d.kept];
    return null;
  }
  s.stack.pop();
  const top = pl.deck.length - 1;
  if (d.kept === 2 && pl.deck[top] !== pl.deck[top - 1]) s.stack.push({ k: 'sentry_order', p: d.p });
  return null;
}

export const sentryMoves = (_s: GameState, d: Of<'sentry_decision'>): Move[] => {
  const card = CARD_NAMES[d.c];
  return [
    { type: 'sentry_trash', card },
    { type: 'sentry_discard', card },
    { type: 'sentry_keep', card },
  ];
};

export function resolveSentryOrder(s: GameState, d: Of<'sentry_order'>, move: Move): MoveError | null {
  const arg = readCard(move);
  if (!arg.ok) return arg.error;
  const deck = s.players[d.p].deck;
  const top = deck.length - 1;
  if (arg.card !== deck[top] && arg.card !== deck[top - 1]) return moveError('illegal_choice', `${CARD_NAMES[arg.card]} is not one of the cards Sentry kept`);
  s.stack.pop();
  if (deck[top] !== arg.card) {
    deck[top - 1] = deck[top];
    deck[top] = arg.card;
  }
  return null;
}

export const sentryOrderMoves = (s: GameState, d: Of<'sentry_order'>): Move[] => {
  const deck = s.players[d.p].deck;
  return distinctCards(deck.slice(-2)).map((c): Move => ({ type: 'sentry_order', card: CARD_NAMES[c] }));
};
