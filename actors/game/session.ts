/**
 * A Dominion game as people and agents take part in it: seats (a user, a bot, or open for someone to
 * join), the host, the engine state, and what each participant is told. Pure: the game actor stores a
 * GameSession and calls these functions in its turns; `troupe play` runs them in-process. Bots move
 * inside the same call, until a person must decide or the game ends.
 */
import { BOTS, isBotName, type BotName } from './bots/index.js';
import {
  applyMove,
  createGame,
  observe,
  playerLabel,
  playerToMove,
  type Detail,
  type GameEvent,
  type GameResult,
  type GameState,
  type Observation,
  victoryPoints,
} from './engine/index.js';
import { applyCommand, describeEvent, limitOptions, optionsFor, responseFields, type CommandFailure, type PendingEffectDescription } from './options/index.js';

/** Moves of bots in one call before giving up (a guard: bots always finish far sooner). */
const BOT_MOVE_GUARD = 20_000;

export type Seat = { type: 'user'; userId: string; name: string } | { type: 'bot'; bot: BotName } | { type: 'open' };
export type SeatRequest = { type: 'me' } | { type: 'open' } | { type: 'bot'; bot: string };

export type SessionStatus = 'waiting' | 'playing' | 'over' | 'ended';

/**
 * One game as its actor stores it. Its log is not here: the feed's `update` events hold every line of
 * the game, so each move's commit stays the size of the game, not of its history.
 */
export interface GameSession {
  gameId: string;
  hostId: string;
  status: SessionStatus;
  seats: Seat[];
  options: { kingdom?: string | string[]; edition?: '1e' | '2e' | 'mixed'; seed: number };
  /** null until every seat is taken. */
  game: GameState | null;
  /** Moves applied (people's and bots'). */
  moves: number;
  /** Set when the game was ended or resigned rather than played out. */
  ending: { by: string; reason: 'resigned' | 'ended' } | null;
  createdAt: number;
}

export interface SeatView {
  seat: number;
  label: string;
  type: Seat['type'];
  name: string;
  you: boolean;
}

/** What a participant (or a spectator) is told after an action or when observing. */
export interface GameView {
  gameId: string;
  status: SessionStatus;
  success: boolean;
  message: string;
  seats: SeatView[];
  /** The caller's seat (0-based), or null for a spectator. */
  yourSeat: number | null;
  /** The seat that must move now, or null. */
  toMove: number | null;
  pendingEffect: PendingEffectDescription | null;
  /** The caller's numbered options (first 50; every valid command is still accepted). */
  options: Array<{ index: number; description: string; command: string; cards?: string[]; details?: Record<string, unknown> }>;
  optionsNote: string | null;
  validMoves: string[];
  gameState: Observation | null;
  gameOver: boolean;
  result: SessionResult | null;
  /** Moves played so far, every seat's: of two views of one game, the one with more moves is newer. */
  moves: number;
  /** What happened during this call (the caller's moves, then the bots'), one line each. */
  events: string[];
  reasoning?: string;
}

export type ObserveDetail = 'minimal' | 'standard' | 'full';

/** How a game ended: played out (the engine's result), or a resignation (the others share the win). */
export interface SessionResult {
  reason: GameResult['reason'] | 'resigned';
  scores: number[];
  turns: number[];
  winners: number[];
  summary: string | null;
}

export class SessionError extends Error {
  constructor(
    readonly code: 'bad_request' | 'not_found' | 'forbidden' | 'conflict',
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'SessionError';
  }
}

const seatLabel = (seat: Seat): string => (seat.type === 'user' ? seat.name : seat.type === 'bot' ? `${seat.bot} (bot)` : '(open)');

export function createSession(input: {
  gameId: string;
  host: { userId: string; name: string };
  seats: SeatRequest[];
  kingdom?: string | string[];
  edition?: '1e' | '2e' | 'mixed';
  seed: number;
  now: number;
}): { session: GameSession; events: string[] } {
  if (input.seats.length < 2 || input.seats.length > 4) throw new SessionError('bad_request', `a game has 2 to 4 seats; got ${input.seats.length}`);
  if (input.seats.filter((s) => s.type === 'me').length > 1) throw new SessionError('bad_request', 'you can take only one seat ("me")');
  const seats: Seat[] = input.seats.map((s) => {
    if (s.type === 'me') return { type: 'user', userId: input.host.userId, name: input.host.name };
    if (s.type === 'open') return { type: 'open' };
    if (!isBotName(s.bot)) throw new SessionError('bad_request', `unknown bot '${s.bot}'; bots: ${Object.keys(BOTS).join(', ')}`);
    return { type: 'bot', bot: s.bot };
  });
  const session: GameSession = {
    gameId: input.gameId,
    hostId: input.host.userId,
    status: 'waiting',
    seats,
    // Only defined keys: the session is stored in MongoDB, where an undefined field comes back as null.
    options: { seed: input.seed, ...(input.kingdom !== undefined ? { kingdom: input.kingdom } : {}), ...(input.edition !== undefined ? { edition: input.edition } : {}) },
    game: null,
    moves: 0,
    ending: null,
    createdAt: input.now,
  };
  // Checks the kingdom and edition now, so a bad one is refused before anyone joins.
  const trial = createGame({ players: seats.length, seed: input.seed, kingdom: input.kingdom, edition: input.edition });
  if (!trial.ok) throw new SessionError('bad_request', trial.error.message, { code: trial.error.code });
  return { session, events: startIfFull(session) };
}

/** The seat `userId` holds, or null. */
export function seatOf(session: GameSession, userId: string): number | null {
  const index = session.seats.findIndex((s) => s.type === 'user' && s.userId === userId);
  return index === -1 ? null : index;
}

export function joinSession(session: GameSession, user: { userId: string; name: string }): string[] {
  if (session.status !== 'waiting') throw new SessionError('conflict', `game ${session.gameId} is not waiting for players (it is ${session.status})`);
  if (seatOf(session, user.userId) !== null) throw new SessionError('conflict', `you already hold a seat in game ${session.gameId}`);
  const open = session.seats.findIndex((s) => s.type === 'open');
  if (open === -1) throw new SessionError('conflict', `game ${session.gameId} has no open seat`);
  session.seats[open] = { type: 'user', userId: user.userId, name: user.name };
  return [`${user.name} took seat ${open + 1}`, ...startIfFull(session)];
}

/** Deals the game once no seat is open, then lets bots play up to the first person's decision. */
function startIfFull(session: GameSession): string[] {
  if (session.seats.some((s) => s.type === 'open')) return [];
  const created = createGame({ players: session.seats.length, seed: session.options.seed, kingdom: session.options.kingdom ?? undefined, edition: session.options.edition ?? undefined });
  if (!created.ok) throw new SessionError('bad_request', created.error.message);
  session.game = created.state;
  session.status = 'playing';
  // The engine announces each later turn as it starts; the first one is announced here.
  const lines = [`The game starts: ${session.seats.map((s, i) => `${playerLabel(i)} ${seatLabel(s)}`).join(', ')}`, `Turn 1: ${playerLabel(created.state.current)}`];
  return [...lines, ...runBots(session)];
}

function record(events: GameEvent[]): string[] {
  return events.map(describeEvent);
}

/** Bot seats move until a person must decide or the game is over. */
function runBots(session: GameSession): string[] {
  const lines: string[] = [];
  for (let guard = 0; guard < BOT_MOVE_GUARD && session.game; guard++) {
    const toMove = playerToMove(session.game);
    if (toMove === null) break;
    const seat = session.seats[toMove];
    if (seat.type !== 'bot') break;
    const applied = applyMove(session.game, toMove, BOTS[seat.bot](session.game, toMove));
    if (!applied.ok) throw new Error(`bot ${seat.bot} made an illegal move: ${applied.error.message}`);
    session.game = applied.state;
    session.moves += 1;
    lines.push(...record(applied.events));
  }
  if (session.game && playerToMove(session.game) === null) session.status = 'over';
  return lines;
}

/** One command or a chain ("1, 2, 3") for the caller's seat, then the bots' replies. */
export function executeMove(session: GameSession, userId: string, text: string): { events: string[] } {
  const seat = requirePlaying(session, userId);
  const toMove = playerToMove(session.game!);
  if (toMove !== seat) {
    throw new SessionError('conflict', `it is not your move: ${toMove === null ? 'the game is over' : `waiting for ${playerLabel(toMove)} (${seatLabel(session.seats[toMove])})`}`, { toMove });
  }
  const result = applyCommand(session.game!, seat, text);
  if (!result.ok) throw moveFailure(result.error, session.game!, seat);
  session.game = result.state;
  session.moves += result.moves.length;
  const mine = record(result.events);
  return { events: [...mine, ...runBots(session)] };
}

function moveFailure(error: CommandFailure, state: GameState, seat: number): SessionError {
  return new SessionError('bad_request', error.message, {
    code: error.code,
    step: error.step,
    command: error.command,
    ...(error.validRange ? { validRange: error.validRange } : {}),
    validMoves: optionsFor(state, seat).map((o) => o.command),
  });
}

function requirePlaying(session: GameSession, userId: string): number {
  const seat = seatOf(session, userId);
  if (seat === null) throw new SessionError('forbidden', `you hold no seat in game ${session.gameId}; spectators can only observe`);
  if (session.status === 'waiting') throw new SessionError('conflict', `game ${session.gameId} is waiting for ${session.seats.filter((s) => s.type === 'open').length} more player(s) to join`);
  if (session.status !== 'playing') throw new SessionError('conflict', `game ${session.gameId} is ${session.status}`);
  return seat;
}

/** The caller gives up: the other seats share the win. */
export function resign(session: GameSession, userId: string): string[] {
  const seat = requirePlaying(session, userId);
  session.status = 'over';
  session.ending = { by: userId, reason: 'resigned' };
  return [`${playerLabel(seat)} (${seatLabel(session.seats[seat])}) resigned`];
}

/** The host ends the game for everyone. */
export function endSession(session: GameSession, userId: string): string[] {
  if (userId !== session.hostId) throw new SessionError('forbidden', 'only the host can end the game; players can resign');
  if (session.status === 'over' || session.status === 'ended') throw new SessionError('conflict', `game ${session.gameId} is already ${session.status}`);
  session.status = 'ended';
  session.ending = { by: userId, reason: 'ended' };
  return ['The host ended the game'];
}

/** The result, including a resignation (the others share the win). A game the host ended has none. */
function resultOf(session: GameSession): SessionResult | null {
  const game = session.game;
  if (!game) return null;
  if (session.ending?.reason === 'resigned') {
    const loser = seatOf(session, session.ending.by)!;
    const winners = session.seats.map((_, i) => i).filter((i) => i !== loser);
    return {
      reason: 'resigned',
      scores: game.players.map(victoryPoints),
      turns: game.players.map((p) => p.turns),
      winners,
      summary: `${playerLabel(loser)} resigned; ${winners.map(playerLabel).join(' and ')} ${winners.length === 1 ? 'wins' : 'share the win'}`,
    };
  }
  const fields = responseFields(game, null);
  return fields.result ? { ...fields.result, summary: fields.summary } : null;
}

const DETAIL: Record<ObserveDetail, Detail | null> = { minimal: null, standard: 'summary', full: 'full' };

/** What `userId` (a player or a spectator) sees now. */
export function viewFor(session: GameSession, userId: string, input: { message: string; events?: string[]; detail?: ObserveDetail; reasoning?: string }): GameView {
  const seat = seatOf(session, userId);
  const game = session.game;
  const live = game !== null && session.status === 'playing';
  const fields = game ? responseFields(game, seat) : null;
  const options = live && seat !== null ? optionsFor(game, seat) : [];
  const limited = limitOptions(options);
  const detail = DETAIL[input.detail ?? 'standard'];
  const result = resultOf(session);
  return {
    gameId: session.gameId,
    status: session.status,
    success: true,
    message: input.message,
    seats: session.seats.map((s, i) => ({ seat: i, label: playerLabel(i), type: s.type, name: seatLabel(s), you: i === seat })),
    yourSeat: seat,
    toMove: live ? playerToMove(game) : null,
    pendingEffect: live ? (fields?.pendingEffect ?? null) : null,
    options: limited.options.map(({ index, description, command, cards, details }) => ({ index, description, command, ...(cards ? { cards: [...cards] } : {}), ...(details ? { details: { ...details } } : {}) })),
    optionsNote: limited.message,
    validMoves: options.map((o) => o.command),
    gameState: game && detail ? observe(game, seat, detail) : null,
    gameOver: session.status === 'over' || session.status === 'ended',
    result,
    moves: session.moves,
    events: input.events ?? [],
    ...(input.reasoning !== undefined ? { reasoning: input.reasoning } : {}),
  };
}

/** A line about the game for lists. */
export function summaryOf(session: GameSession, userId: string) {
  return {
    gameId: session.gameId,
    status: session.status,
    seats: session.seats.map((s, i) => ({ seat: i, type: s.type, name: seatLabel(s), you: s.type === 'user' && s.userId === userId })),
    openSeats: session.seats.filter((s) => s.type === 'open').length,
    turn: session.game?.turn ?? 0,
    moves: session.moves,
    createdAt: new Date(session.createdAt).toISOString(),
  };
}
