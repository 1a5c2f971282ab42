/**
 * The text `troupe play` prints, rendered from a GameView alone (so local and remote games look the
 * same). Every function returns whole lines ending in "\n"; colours only when asked for.
 */
import { cardInfo, type CardName, type Observation } from '../../actors/game/engine/index.js';
import type { GameView } from '../../actors/game/session.js';
import type { GameRequestError } from './game-client.js';

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  error(text: string): string;
  good(text: string): string;
  number(text: string): string;
}

const sgr = (code: string) => (text: string) => `\u001b[${code}m${text}\u001b[0m`;
const plain = (text: string) => text;

export function createStyle(color: boolean): Style {
  if (!color) return { bold: plain, dim: plain, error: plain, good: plain, number: plain };
  return { bold: sgr('1'), dim: sgr('2'), error: sgr('31'), good: sgr('32'), number: sgr('36') };
}

const lines = (rows: string[]): string => rows.map((row) => `${row}\n`).join('');
const list = (cards: readonly string[]): string => (cards.length === 0 ? '(none)' : cards.join(', '));
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function seatName(view: GameView, seat: number): string {
  const s = view.seats[seat];
  return s === undefined ? `Player ${seat + 1}` : `${s.label}: ${s.name}`;
}

export interface StartInfo {
  /** Null when going back to a game (its seed is the gateway's). */
  seed: number | null;
  /** What --kingdom asked for: a preset, "random", or a card list. */
  kingdom?: string | string[];
  where: string;
  eventsUrl: string | null;
}

/** Who plays, where, with which cards. */
export function renderStart(view: GameView, info: StartInfo, style: Style): string {
  const state = view.gameState;
  const name = state?.preset ?? (typeof info.kingdom === 'string' && info.kingdom.toLowerCase() === 'random' ? 'random kingdom' : 'custom kingdom');
  const kingdom = state ? `${name} (${state.edition}): ${state.kingdom.map((card) => `${card} $${cardInfo(card).cost}`).join(', ')}` : '(not shown)';
  const rows = [
    style.bold(`Dominion — game ${view.gameId} (${info.where}${info.seed === null ? '' : `, seed ${info.seed}`})`),
    `Seats: ${view.seats.map((s) => `${s.label} ${s.name}${s.you ? ' ← you' : ''}`).join(', ')}`,
    `Kingdom: ${kingdom}`,
  ];
  if (info.eventsUrl !== null) rows.push(`Events: ${info.eventsUrl}`);
  rows.push(style.dim('Pick an option by its number (or "select N"), or type a command; "help" explains the rest.'));
  return lines(rows);
}

/** What happened since the last prompt (the person's moves, then the bots'). */
export function renderEvents(events: readonly string[], style: Style): string {
  return lines(events.map((event) => (/^Turn \d+:/.test(event) ? style.bold(event) : `  ${event}`)));
}

/** The situation when the person must move: turn, phase, money, hand, pending decision, options. */
export function renderTurn(view: GameView, style: Style): string {
  const state = view.gameState;
  const rows: string[] = [''];
  if (state) {
    const current = state.currentPlayer === view.yourSeat ? 'your turn' : `${view.seats[state.currentPlayer]?.label ?? `Player ${state.currentPlayer + 1}`}'s turn`;
    // The engine counts every player's turn; a person thinks in rounds (everyone's turn once).
    const round = Math.floor((state.turn - 1) / Math.max(1, state.players.length)) + 1;
    rows.push(style.bold(`== Round ${round} · ${current} · ${state.phase} phase ==`));
    if (state.currentPlayer === view.yourSeat) rows.push(`$${state.coins} · ${plural(state.actions, 'action')} · ${plural(state.buys, 'buy')}`);
    const me = view.yourSeat === null ? undefined : state.players[view.yourSeat];
    if (me?.hand) rows.push(`Hand: ${list(me.hand)}`);
    if (me && me.inPlay.length > 0) rows.push(`In play: ${list(me.inPlay)}`);
  }
  const pending = view.pendingEffect;
  if (pending) {
    rows.push(style.bold(`Decision: ${pending.card} — ${pending.effect}${pending.step !== null ? ` (step ${pending.step})` : ''}`));
    if (pending.message) rows.push(`  ${pending.message}`);
    if (pending.cards.length > 0) rows.push(`  Cards: ${list(pending.cards)}`);
  }
  return lines(rows) + renderOptions(view, style);
}

/** The numbered options exactly as the session gives them. */
export function renderOptions(view: GameView, style: Style): string {
  const rows = ['Options:', ...view.options.map((option) => `  ${style.number(`[${option.index}]`)} ${option.description}`)];
  if (view.optionsNote) rows.push(style.dim(`  ${view.optionsNote}`));
  return lines(rows);
}

export function renderHand(view: GameView): string {
  const state = view.gameState;
  const me = state && view.yourSeat !== null ? state.players[view.yourSeat] : undefined;
  if (!me) return lines(['No hand to show.']);
  const rows = [`Hand: ${list(me.hand ?? [])}`, `In play: ${list(me.inPlay)}`];
  if (me.aside.length > 0) rows.push(`Set aside: ${list(me.aside)}`);
  rows.push(`Deck: ${plural(me.deckCount, 'card')} · discard: ${plural(me.discardCount, 'card')}${me.discardTop ? ` (top: ${me.discardTop})` : ''}`);
  if (me.victoryPoints !== undefined) rows.push(`Your VP: ${me.victoryPoints}`);
  return lines(rows);
}

/** Every pile: card, cost, cards left; basic cards first, then the kingdom by cost. */
export function renderSupply(state: Observation | null): string {
  if (!state) return lines(['No supply to show.']);
  const piles = Object.entries(state.supply) as Array<[CardName, number]>;
  const width = Math.max(...piles.map(([card]) => card.length));
  const rows = ['Supply (card, cost, left):', ...piles.map(([card, left]) => `  ${card.padEnd(width)}  $${String(cardInfo(card).cost).padEnd(2)}  ${left === 0 ? 'empty' : `${left} left`}`)];
  rows.push(`Trash: ${plural(state.trashCount, 'card')}`);
  return lines(rows);
}

/** The last `count` event lines. */
export function renderLog(history: readonly string[], count: number, style: Style): string {
  if (history.length === 0) return lines(['Nothing has happened yet.']);
  const shown = history.slice(-count);
  return lines([style.dim(`Last ${shown.length} of ${history.length} events:`)]) + renderEvents(shown, style);
}

export function renderHelp(remote: boolean): string {
  return lines([
    'How to play:',
    '  N  or  select N        pick option N from the numbered list',
    '  buy Silver, play_action Smithy, play_all_treasures, end_phase, end_turn, ...',
    '                         any move command (the options show each one\'s command form)',
    '  1, 2, 3  or  buy Silver; end_phase',
    '                         several moves in one go (commas or semicolons); all or nothing:',
    '                         if one fails, none is applied',
    'Other commands:',
    '  hand                   your hand, cards in play, deck and discard counts',
    '  supply                 the supply piles: cost and cards left',
    '  log                    recent events',
    '  options                show the current situation and options again',
    '  help                   this text',
    '  resign                 give up (the other seats share the win)',
    remote ? '  quit                   leave; the game stays on the gateway' : '  quit                   resign and leave',
  ]);
}

/** One line: the refusal, and what would have been accepted. */
export function renderError(error: GameRequestError, style: Style): string {
  let text = `Error: ${error.message}`;
  const { validRange, validMoves } = error.details;
  if (validRange && !/valid range/i.test(error.message)) text += ` Valid range is ${validRange.min}-${validRange.max}.`;
  else if (!validRange && validMoves && validMoves.length > 0) text += ` (${plural(validMoves.length, 'valid move')}: ${validMoves.length === 1 ? 'option 1' : `options 1-${validMoves.length}`})`;
  return lines([style.error(text)]);
}

/** Scores per seat, winners and the summary. */
export function renderResult(view: GameView, style: Style): string {
  const result = view.result;
  if (!result) return lines([style.bold('The game was ended without a result.')]);
  const names = view.seats.map((_, seat) => seatName(view, seat));
  const width = Math.max(...names.map((name) => name.length));
  const rows = [
    '',
    style.bold(`Game over (${result.reason.replace(/_/g, ' ')}): ${result.summary ?? ''}`.trimEnd()),
    ...names.map((name, seat) => {
      const won = result.winners.includes(seat);
      const row = `  ${name.padEnd(width)}  ${String(result.scores[seat] ?? 0).padStart(3)} VP  ${plural(result.turns[seat] ?? 0, 'turn')}${won ? '  winner' : ''}`;
      return won ? style.good(row) : row;
    }),
  ];
  const you = view.yourSeat;
  if (you !== null) rows.push(result.winners.includes(you) ? (result.winners.length === 1 ? 'You win!' : 'You share the win.') : 'You lose.');
  return lines(rows);
}
