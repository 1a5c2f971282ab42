/**
 * Attacks. Playing one first asks every opponent holding Moat, in turn order, whether to reveal it
 * (s.immune collects the answers); then the card's effect runs and queues one step per unprotected
 * victim in turn order, each of which may turn into that victim's (or the attacker's) decision.
 */
import { BANDIT, BUREAUCRAT, CARD_NAMES, COPPER, GOLD, isTreasure, isVictory, MILITIA, MOAT, SILVER, SPY, THIEF, WITCH } from '../cards.js';
import { eventSink } from '../events.js';
import { moveError, type MoveError } from '../errors.js';
import { readCard, readChoice } from '../move-args.js';
import type { Move } from '../moves.js';
import type { GameState } from '../state.js';
import type { Decision } from '../tasks.js';
import { discardAside, discardFromHand, distinctCards, draw, gain, refillDeck, removeCard, takeTop, trashFrom } from '../zones.js';
import { witchAttack } from './basic-actions.js';

type Of<K extends Decision['k']> = Extract<Decision, { k: K }>;

/** Called when an Attack is played: Moat decisions first, else the effect straight away. */
export function playAttack(s: GameState, p: number, card: number, again: boolean): void {
  s.immune = 0;
  const n = s.players.length;
  let asked = false;
  for (let i = n - 1; i >= 1; i--) {
    const defender = (p + i) % n;
    if (!s.players[defender].hand.includes(MOAT)) continue;
    if (!asked) s.stack.push({ k: 'attack', p, c: card, again });
    asked = true;
    s.stack.push({ k: 'reveal_moat', p: defender, a: p, c: card });
  }
  if (!asked) attackEffect(s, p, card);
}

export function resolveMoat(s: GameState, d: Of<'reveal_moat'>, move: Move): MoveError | null {
  const arg = readChoice(move);
  if (!arg.ok) return arg.error;
  s.stack.pop();
  if (arg.choice) s.immune |= 1 << d.p;
  if (eventSink !== null) eventSink.push({ type: 'moat', player: d.p, revealed: arg.choice });
  return null;
}

export const moatMoves = (): Move[] => [
  { type: 'reveal_moat', choice: true },
  { type: 'reveal_moat', choice: false },
];

/** Queues `kind` for each unprotected opponent so the first in turn order resolves first. */
function queueVictims(s: GameState, p: number, kind: 'militia' | 'bureaucrat' | 'bandit'): void {
  const n = s.players.length;
  for (let i = n - 1; i >= 1; i--) {
    const victim = (p + i) % n;
    if (!((s.immune >> victim) & 1)) s.stack.push({ k: kind, p: victim });
  }
}

export function attackEffect(s: GameState, p: number, card: number): void {
  const n = s.players.length;
  switch (card) {
    case MILITIA:
      s.coins += 2;
      queueVictims(s, p, 'militia');
      return;
    case BUREAUCRAT:
      gain(s, p, SILVER, 'deck');
      queueVictims(s, p, 'bureaucrat');
      return;
    case WITCH:
      witchAttack(s, p);
      return;
    case BANDIT:
      gain(s, p, GOLD, 'discard');
      queueVictims(s, p, 'bandit');
      return;
    case SPY:
      draw(s, p, 1);
      s.actions += 1;
      // Every player, the Spy's owner first; Moat protects only the others.
      for (let i = n - 1; i >= 0; i--) {
        const t = (p + i) % n;
        if (i === 0 || !((s.immune >> t) & 1)) s.stack.push({ k: 'spy', p, t });
      }
      return;
    case THIEF:
      for (let i = n - 1; i >= 1; i--) {
        const t = (p + i) % n;
        if (!((s.immune >> t) & 1)) s.stack.push({ k: 'thief', p, t });
      }
      return;
  }
}

// Militia: each victim discards down to 3, one card at a time (all at once when the cards are identical).
function militiaForced(s: GameState, v: number): boolean {
  const hand = s.players[v].hand;
  if (hand.length <= 3) return true;
  if (distinctCards(hand).length > 1) return false;
  while (hand.length > 3) discardFromHand(s, v, hand[hand.length - 1]);
  return true;
}

export function militiaVictim(s: GameState, v: number): void {
  if (!militiaForced(s, v)) s.stack.push({ k: 'discard_for_militia', p: v });
}

export function resolveMilitia(s: GameState, d: Of<'discard_for_militia'>, move: Move): MoveError | null {
  const arg = readCard(move);
  if (!arg.ok) return arg.error;
  if (!discardFromHand(s, d.p, arg.card)) return moveError('card_not_in_hand', `${CARD_NAMES[arg.card]} is not in your hand`);
  if (militiaForced(s, d.p)) s.stack.pop();
  return null;
}

export const militiaMoves = (s: GameState, d: Of<'discard_for_militia'>): Move[] =>
  distinctCards(s.players[d.p].hand).map((c): Move => ({ type: 'discard_for_militia', card: CARD_NAMES[c] }));

// Bureaucrat: the victim puts a Victory card from hand onto the deck, or reveals a hand without one.
function topdeckVictory(s: GameState, v: number, c: number): void {
  const pl = s.players[v];
  removeCard(pl.hand, c);
  pl.deck.push(c);
  if (eventSink !== null) {
    eventSink.push({ type: 'reveal', player: v, cards: [CARD_NAMES[c]] });
    eventSink.push({ type: 'topdeck', player: v, card: CARD_NAMES[c] });
  }
}

export function bureaucratVictim(s: GameState, v: number): void {
  const hand = s.players[v].hand;
  const victories = distinctCards(hand, isVictory);
  if (victories.length === 0) {
    if (eventSink !== null) eventSink.push({ type: 'reveal', player: v, cards: hand.map((c) => CARD_NAMES[c]) });
  } else if (victories.length === 1) {
    topdeckVictory(s, v, victories[0]);
  } else {
    s.stack.push({ k: 'reveal_and_topdeck', p: v });
  }
}

export function resolveBureaucrat(s: GameState, d: Of<'reveal_and_topdeck'>, move: Move): MoveError | null {
  const arg = readCard(move);
  if (!arg.ok) return arg.error;
  if (!isVictory(arg.card)) return moveError('illegal_choice', `${CARD_NAMES[arg.card]} is not a Victory card`);
  if (!s.players[d.p].hand.includes(arg.card)) return moveError('card_not_in_hand', `${CARD_NAMES[arg.card]} is not in your hand`);
  s.stack.pop();
  topdeckVictory(s, d.p, arg.card);
  return null;
}

export const bureaucratMoves = (s: GameState, d: Of<'reveal_and_topdeck'>): Move[] =>
  distinctCards(s.players[d.p].hand, isVictory).map((c): Move => ({ type: 'reveal_and_topdeck', card: CARD_NAMES[c] }));

/** Moves the top 2 cards of player t's deck into their `aside` zone, face up. */
function revealTopTwo(s: GameState, t: number): void {
  const pl = s.players[t];
  for (let i = 0; i < 2; i++) {
    const c = takeTop(s, t);
    if (c < 0) break;
    pl.aside.push(c);
  }
  if (eventSink !== null && pl.aside.length > 0) eventSink.push({ type: 'reveal', player: t, cards: pl.aside.map((c) => CARD_NAMES[c]) });
}

// Bandit: the victim trashes a revealed non-Copper Treasure (choosing when there are two kinds).
const banditTarget = (c: number): boolean => isTreasure(c) && c !== COPPER;

export function banditVictim(s: GameState, v: number): void {
  revealTopTwo(s, v);
  const targets = distinctCards(s.players[v].aside, banditTarget);
  if (targets.length === 2) {
    s.stack.push({ k: 'bandit_trash', p: v });
    return;
  }
  if (targets.length === 1) trashFrom(s, v, s.players[v].aside, targets[0]);
  discardAside(s, v);
}

export function resolveBandit(s: GameState, d: Of<'bandit_trash'>, move: Move): MoveError | null {
  const arg = readCard(move);
  if (!arg.ok) return arg.error;
  const aside = s.players[d.p].aside;
  if (!banditTarget(arg.card) || !aside.includes(arg.card)) return moveError('illegal_choice', `${CARD_NAMES[arg.card]} is not a revealed Treasure other than Copper`);
  s.stack.pop();
  trashFrom(s, d.p, aside, arg.card);
  discardAside(s, d.p);
  return null;
}

export const banditMoves = (s: GameState, d: Of<'bandit_trash'>): Move[] =>
  distinctCards(s.players[d.p].aside, banditTarget).map((c): Move => ({ type: 'bandit_trash', card: CARD_NAMES[c] }));

// Spy: the attacker decides, for every player's top card, discard or keep on top.
export function spyReveal(s: GameState, p: number, t: number): void {
  if (!refillDeck(s, t)) return;
  const deck = s.players[t].deck;
  const c = deck[deck.length - 1];
  if (eventSink !== null) eventSink.push({ type: 'reveal', player: t, cards: [CARD_NAMES[c]] });
  s.stack.push({ k: 'spy_decision', p, t, c });
}

export function resolveSpy(s: GameState, d: Of<'spy_decision'>, move: Move): MoveError | null {
  const arg = readCard(move);
  if (!arg.ok) return arg.error;
  if (arg.card !== d.c) return moveError('illegal_choice', `The revealed card is ${CARD_NAMES[d.c]}, not ${CARD_NAMES[arg.card]}`);
  s.stack.pop();
  if (move.type === 'spy_discard') {
    const pl = s.players[d.t];
    pl.discard.push(pl.deck.pop()!);
    if (eventSink !== null) eventSink.push({ type: 'discard', player: d.t, card: CARD_NAMES[d.c] });
  }
  return null;
}

export const spyMoves = (_s: GameState, d: Of<'spy_decision'>): Move[] => [
  { type: 'spy_discard', card: CARD_NAMES[d.c] },
  { type: 'spy_keep', card: CARD_NAMES[d.c] },
];

// Thief: the attacker picks which revealed Treasure is trashed, then may gain it from the Trash.
export function thiefVictim(s: GameState, p: number, t: number): void {
  revealTopTwo(s, t);
  const treasures = distinctCards(s.players[t].aside, isTreasure);
  if (treasures.length === 2) {
    s.stack.push({ k: 'thief_trash', p, t });
    return;
  }
  if (treasures.length === 1) thiefTrash(s, p, t, treasures[0]);
  else discardAside(s, t);
}

function thiefTrash(s: GameState, p: number, t: number, c: number): void {
  trashFrom(s, t, s.players[t].aside, c);
  discardAside(s, t);
  s.stack.push({ k: 'thief_gain', p, t, c });
}

export function resolveThiefTrash(s: GameState, d: Of<'thief_trash'>, move: Move): MoveError | null {
  const arg = readCard(move);
  if (!arg.ok) return arg.error;
  if (!isTreasure(arg.card) || !s.players[d.t].aside.includes(arg.card)) return moveError('illegal_choice', `${CARD_NAMES[arg.card]} is not one of the revealed Treasures`);
  s.stack.pop();
  thiefTrash(s, d.p, d.t, arg.card);
  return null;
}

export const thiefTrashMoves = (s: GameState, d: Of<'thief_trash'>): Move[] =>
  distinctCards(s.players[d.t].aside, isTreasure).map((c): Move => ({ type: 'thief_trash', card: CARD_NAMES[c] }));

export function resolveThiefGain(s: GameState, d: Of<'thief_gain'>, move: Move): MoveError | null {
  const arg = readChoice(move);
  if (!arg.ok) return arg.error;
  s.stack.pop();
  if (arg.choice && removeCard(s.trash, d.c)) {
    s.players[d.p].discard.push(d.c);
    if (eventSink !== null) eventSink.push({ type: 'gain', player: d.p, card: CARD_NAMES[d.c], to: 'discard' });
  }
  return null;
}

export const thiefGainMoves = (): Move[] => [
  { type: 'thief_gain', choice: true },
  { type: 'thief_gain', choice: false },
];
