/** Dispatch from a card to its effect, and from a pending task to the code that resolves it. */
import {
  ADVENTURER, ARTISAN, CARD_NAMES, CELLAR, CHANCELLOR, CHAPEL, COUNCIL_ROOM, FEAST, FESTIVAL, HARBINGER, isAttack,
  LABORATORY, LIBRARY, MARKET, MERCHANT, MINE, MOAT, MONEYLENDER, POACHER, REMODEL, SENTRY, SMITHY, THRONE_ROOM,
  VASSAL, VILLAGE, WOODCUTTER, WORKSHOP,
} from '../cards.js';
import { eventSink } from '../events.js';
import type { MoveError } from '../errors.js';
import type { Move } from '../moves.js';
import type { GameState } from '../state.js';
import type { AutomaticStep, Decision } from '../tasks.js';
import * as attacks from './attacks.js';
import * as basic from './basic-actions.js';
import * as deck from './deck-choices.js';
import * as gains from './gains.js';
import * as hand from './hand-choices.js';
import * as throne from './throne-room.js';

/**
 * Resolves card `c` for player p (the card is already in play). `again` marks Throne Room's replay.
 * Anything that needs an answer is pushed on `s.stack`; the caller drains automatic steps afterwards.
 */
export function playEffect(s: GameState, p: number, c: number, again: boolean): void {
  if (eventSink !== null) eventSink.push({ type: 'play', player: p, card: CARD_NAMES[c] });
  if (isAttack(c)) {
    attacks.playAttack(s, p, c, again);
    return;
  }
  switch (c) {
    case VILLAGE: return basic.village(s, p);
    case SMITHY: return basic.smithy(s, p);
    case LABORATORY: return basic.laboratory(s, p);
    case MARKET: return basic.market(s, p);
    case FESTIVAL: return basic.festival(s);
    case WOODCUTTER: return basic.woodcutter(s);
    case MOAT: return basic.moat(s, p);
    case MERCHANT: return basic.merchant(s, p);
    case COUNCIL_ROOM: return basic.councilRoom(s, p);
    case CELLAR: return hand.cellar(s, p);
    case CHAPEL: return hand.chapel(s, p);
    case POACHER: return hand.poacher(s, p);
    case MONEYLENDER: return hand.moneylender(s, p);
    case WORKSHOP: return gains.workshop(s, p);
    case FEAST: return gains.feast(s, p, again);
    case REMODEL: return gains.remodel(s, p);
    case MINE: return gains.mine(s, p);
    case ARTISAN: return gains.artisan(s, p);
    case HARBINGER: return deck.harbinger(s, p);
    case VASSAL: return deck.vassal(s, p);
    case CHANCELLOR: return deck.chancellor(s, p);
    case LIBRARY: return deck.library(s, p);
    case ADVENTURER: return deck.adventurer(s, p);
    case SENTRY: return deck.sentry(s, p);
    case THRONE_ROOM: return throne.throneRoom(s, p);
  }
}

/** Runs an automatic step that reached the front of the stack (already popped). */
export function runStep(s: GameState, t: AutomaticStep): void {
  switch (t.k) {
    case 'replay': return playEffect(s, t.p, t.c, true);
    case 'attack': return attacks.attackEffect(s, t.p, t.c);
    case 'library': return deck.library(s, t.p);
    case 'artisan_topdeck': return gains.artisanTopdeck(s, t.p);
    case 'militia': return attacks.militiaVictim(s, t.p);
    case 'bureaucrat': return attacks.bureaucratVictim(s, t.p);
    case 'bandit': return attacks.banditVictim(s, t.p);
    case 'spy': return attacks.spyReveal(s, t.p, t.t);
    case 'thief': return attacks.thiefVictim(s, t.p, t.t);
  }
}

/** Applies an answer to the decision at the front; validates before changing anything. */
export function resolveDecision(s: GameState, d: Decision, move: Move): MoveError | null {
  switch (d.k) {
    case 'discard_for_cellar': return hand.resolveCellar(s, d, move);
    case 'trash_cards': return hand.resolveChapel(s, d, move);
    case 'discard_for_poacher': return hand.resolvePoacher(s, d, move);
    case 'trash_copper': return hand.resolveMoneylender(s, d, move);
    case 'trash_for_remodel': return gains.resolveRemodel(s, d, move);
    case 'trash_for_mine': return gains.resolveMine(s, d, move);
    case 'gain_card': return gains.resolveGain(s, d, move);
    case 'topdeck_card': return gains.resolveTopdeck(s, d, move);
    case 'select_action_for_throne': return throne.resolveThroneRoom(s, d, move);
    case 'library_set_aside': return deck.resolveLibrary(s, d, move);
    case 'chancellor_decision': return deck.resolveChancellor(s, d, move);
    case 'harbinger_topdeck': return deck.resolveHarbinger(s, d, move);
    case 'vassal_play': return deck.resolveVassal(s, d, move);
    case 'sentry_decision': return deck.resolveSentry(s, d, move);
    case 'sentry_order': return deck.resolveSentryOrder(s, d, move);
    case 'reveal_moat': return attacks.resolveMoat(s, d, move);
    case 'discard_for_militia': return attacks.resolveMilitia(s, d, move);
    case 'reveal_and_topdeck': return attacks.resolveBureaucrat(s, d, move);
    case 'bandit_trash': return attacks.resolveBandit(s, d, move);
    case 'spy_decision': return attacks.resolveSpy(s, d, move);
    case 'thief_trash': return attacks.resolveThiefTrash(s, d, move);
    case 'thief_gain': return attacks.resolveThiefGain(s, d, move);
  }
}

/** Every legal answer to a decision, in a fixed order (cards by id; "none"/"done" last). */
export function decisionMoves(s: GameState, d: Decision): Move[] {
  switch (d.k) {
    case 'discard_for_cellar': return hand.cellarMoves(s, d);
    case 'trash_cards': return hand.chapelMoves(s, d);
    case 'discard_for_poacher': return hand.poacherMoves(s, d);
    case 'trash_copper': return hand.moneylenderMoves();
    case 'trash_for_remodel': return gains.remodelMoves(s, d);
    case 'trash_for_mine': return gains.mineMoves(s, d);
    case 'gain_card': return gains.gainMoves(s, d);
    case 'topdeck_card': return gains.topdeckMoves(s, d);
    case 'select_action_for_throne': return throne.throneRoomMoves(s, d);
    case 'library_set_aside': return deck.libraryMoves(s, d);
    case 'chancellor_decision': return deck.chancellorMoves();
    case 'harbinger_topdeck': return deck.harbingerMoves(s, d);
    case 'vassal_play': return deck.vassalMoves();
    case 'sentry_decision': return deck.sentryMoves(s, d);
    case 'sentry_order': return deck.sentryOrderMoves(s, d);
    case 'reveal_moat': return attacks.moatMoves();
    case 'discard_for_militia': return attacks.militiaMoves(s, d);
    case 'reveal_and_topdeck': return attacks.bureaucratMoves(s, d);
    case 'bandit_trash': return attacks.banditMoves(s, d);
    case 'spy_decision': return attacks.spyMoves(s, d);
    case 'thief_trash': return attacks.thiefTrashMoves(s, d);
    case 'thief_gain': return attacks.thiefGainMoves();
  }
}
