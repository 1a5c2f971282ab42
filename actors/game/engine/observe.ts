/**
 * What one seat may see. Never another player's hand, never anyone's draw order (decks are counts),
 * and private looks (a Library draw, Sentry's top cards) only for the player looking. Spectators
 * (viewer null) see no hands at all.
 */
import { ARTISAN, CARD_NAMES, MINE, REMODEL, type CardName, type Edition } from './cards.js';
import { victoryPoints } from './scoring.js';
import { playerToMove, type GameResult, type GameState, type Phase } from './state.js';
import { pendingDecision } from './step.js';
import { decisionCard, type Decision, type DecisionKind } from './tasks.js';

export type Detail = 'summary' | 'full';

export interface PlayerView {
  index: number;
  handCount: number;
  deckCount: number;
  discardCount: number;
  /** The face-up top card of the discard pile. */
  discardTop: CardName | null;
  inPlay: CardName[];
  /** Cards set aside or revealed face up by an effect in progress. */
  aside: CardName[];
  turns: number;
  /** Only in the viewer's own entry. */
  hand?: CardName[];
  /** The viewer's own score, everyone's once the game is over. */
  victoryPoints?: number;
  /** detail "full", viewer only: every card they own, counted (no order). */
  owned?: Partial<Record<CardName, number>>;
}

export interface PendingView {
  /** Who must answer. */
  player: number;
  effect: DecisionKind;
  card: CardName;
  /** 1 or 2 for two-step cards (Remodel, Mine, Artisan), otherwise null. */
  step: number | null;
  /** The cards the decision is about, when this viewer may see them. */
  cards: CardName[];
  /** Extra facts: cost limit of a gain, whose card Spy revealed, how many cards are still to discard. */
  details: Record<string, number | string | boolean>;
}

export interface Observation {
  viewer: number | null;
  edition: Edition;
  preset: string | null;
  turn: number;
  currentPlayer: number;
  toMove: number | null;
  phase: Phase;
  actions: number;
  buys: number;
  coins: number;
  kingdom: CardName[];
  /** Cards left per pile, in Supply order. */
  supply: Partial<Record<CardName, number>>;
  trashCount: number;
  /** detail "full": the Trash's contents (public). */
  trash?: CardName[];
  players: PlayerView[];
  pending: PendingView | null;
  /** Everything still queued, front first: each entry names the player it concerns and what it is. */
  queue: Array<{ player: number; step: string }>;
  gameOver: boolean;
  result: GameResult | null;
}

const names = (cards: readonly number[]): CardName[] => cards.map((c) => CARD_NAMES[c]);

function counted(cards: readonly number[]): Partial<Record<CardName, number>> {
  const out: Partial<Record<CardName, number>> = {};
  for (const c of [...cards].sort((a, b) => a - b)) out[CARD_NAMES[c]] = (out[CARD_NAMES[c]] ?? 0) + 1;
  return out;
}

/** The sorted hand (sorting hides the order cards were drawn in, which is nobody's business). */
const handNames = (s: GameState, p: number): CardName[] => names([...s.players[p].hand].sort((a, b) => a - b));

export function pendingView(s: GameState, viewer: number | null): PendingView | null {
  const d = pendingDecision(s);
  if (d === null) return null;
  const mine = viewer === d.p;
  const view: PendingView = { player: d.p, effect: d.k, card: CARD_NAMES[decisionCard(d)], step: stepOf(d), cards: [], details: {} };
  switch (d.k) {
    case 'library_set_aside':
      if (mine) view.cards = [CARD_NAMES[d.c]];
      break;
    case 'sentry_decision':
      if (mine) view.cards = [CARD_NAMES[d.c]];
      view.details.remaining = d.left;
      break;
    case 'sentry_order':
      if (mine) view.cards = names(s.players[d.p].deck.slice(-2).reverse());
      break;
    case 'vassal_play':
      view.cards = [CARD_NAMES[d.c]];
      break;
    case 'spy_decision':
      view.cards = [CARD_NAMES[d.c]];
      view.details.owner = d.t;
      break;
    case 'thief_trash':
      view.cards = names(s.players[d.t].aside);
      view.details.owner = d.t;
      break;
    case 'thief_gain':
      view.cards = [CARD_NAMES[d.c]];
      view.details.owner = d.t;
      break;
    case 'bandit_trash':
      view.cards = names(s.players[d.p].aside);
      break;
    case 'gain_card':
      view.details.maxCost = d.max;
      view.details.treasureOnly = d.treasure;
      view.details.toHand = d.toHand;
      break;
    case 'discard_for_poacher':
      view.details.remaining = d.n;
      break;
    case 'discard_for_cellar':
      view.details.discarded = d.n;
      break;
    case 'trash_cards':
      view.details.trashed = d.n;
      break;
    case 'reveal_moat':
      view.details.attacker = d.a;
      view.details.attack = CARD_NAMES[d.c];
      break;
    default:
      break;
  }
  return view;
}

function stepOf(d: Decision): number | null {
  switch (d.k) {
    case 'trash_for_remodel': case 'trash_for_mine': return 1;
    case 'gain_card': return d.c === REMODEL || d.c === MINE || d.c === ARTISAN ? d.step : null;
    case 'topdeck_card': return 2;
    default: return null;
  }
}

export function observe(s: GameState, viewer: number | null, detail: Detail = 'summary'): Observation {
  const over = s.phase === 'over';
  const supply: Partial<Record<CardName, number>> = {};
  for (const c of s.piles) supply[CARD_NAMES[c]] = s.supply[c];
  const players = s.players.map((pl, i): PlayerView => {
    const view: PlayerView = {
      index: i,
      handCount: pl.hand.length,
      deckCount: pl.deck.length,
      discardCount: pl.discard.length,
      discardTop: pl.discard.length > 0 ? CARD_NAMES[pl.discard[pl.discard.length - 1]] : null,
      inPlay: names(pl.inPlay),
      aside: names(pl.aside),
      turns: pl.turns,
    };
    if (i === viewer) {
      view.hand = handNames(s, i);
      if (detail === 'full') view.owned = counted([...pl.deck, ...pl.hand, ...pl.discard, ...pl.inPlay, ...pl.aside]);
    }
    if (i === viewer || over) view.victoryPoints = victoryPoints(pl);
    return view;
  });
  const obs: Observation = {
    viewer,
    edition: s.edition,
    preset: s.preset,
    turn: s.turn,
    currentPlayer: s.current,
    toMove: playerToMove(s),
    phase: s.phase,
    actions: s.actions,
    buys: s.buys,
    coins: s.coins,
    kingdom: names(s.kingdom),
    supply,
    trashCount: s.trash.length,
    players,
    pending: pendingView(s, viewer),
    queue: s.stack.map((t) => ({ player: t.p, step: t.k })).reverse(),
    gameOver: over,
    result: s.result === null ? null : { ...s.result, scores: [...s.result.scores], turns: [...s.result.turns], winners: [...s.result.winners] },
  };
  if (detail === 'full') obs.trash = names(s.trash);
  return obs;
}
