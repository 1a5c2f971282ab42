/**
 * The Dominion HTTP API as this view uses it: the GameView every game route answers with, the lobby's
 * game summaries, and the calls (start, join, list, observe, move). Shapes follow actors/game/session.ts.
 */
import { api } from '../../api.js';

export const BOT_NAMES = ['bmu', 'smithy-bm', 'engine', 'witch', 'big-money'] as const;
/** The rulebooks' preset kingdoms the engine knows (engine/kingdoms.ts); "random" deals 10 at random. */
export const KINGDOM_PRESETS = [
  'First Game',
  'Size Distortion',
  'Deck Top',
  'Sleight of Hand',
  'Improvements',
  'Silver & Gold',
  'First Game (1E)',
  'Big Money (1E)',
  'Interaction (1E)',
  'Size Distortion (1E)',
  'Village Square (1E)',
] as const;

export type GameStatus = 'waiting' | 'playing' | 'over' | 'ended';

export interface SeatView {
  seat: number;
  label: string;
  type: 'user' | 'bot' | 'open';
  name: string;
  you: boolean;
}

export interface GameOption {
  index: number;
  description: string;
  command: string;
  cards?: string[];
  details?: Record<string, unknown>;
}

export interface PendingEffect {
  card: string;
  effect: string;
  step: number | null;
  player: number;
  message: string;
  cards: string[];
  details: Record<string, number | string | boolean>;
  options: GameOption[];
  optionsNote: string | null;
}

export interface PlayerView {
  index: number;
  handCount: number;
  deckCount: number;
  discardCount: number;
  discardTop: string | null;
  inPlay: string[];
  aside: string[];
  turns: number;
  hand?: string[];
  victoryPoints?: number;
}

export interface GameState {
  viewer: number | null;
  turn: number;
  currentPlayer: number;
  toMove: number | null;
  phase: 'action' | 'buy' | 'over' | string;
  actions: number;
  buys: number;
  coins: number;
  kingdom: string[];
  supply: Record<string, number>;
  trashCount: number;
  players: PlayerView[];
  gameOver: boolean;
}

export interface GameResult {
  reason: string;
  scores: number[];
  turns: number[];
  winners: number[];
  summary: string | null;
}

export interface GameView {
  gameId: string;
  status: GameStatus;
  message: string;
  seats: SeatView[];
  yourSeat: number | null;
  toMove: number | null;
  pendingEffect: PendingEffect | null;
  options: GameOption[];
  optionsNote: string | null;
  validMoves: string[];
  gameState: GameState | null;
  gameOver: boolean;
  result: GameResult | null;
  /** Moves played so far: of two views of the game, the one with more moves is newer. */
  moves: number;
  events: string[];
}

/** The feed's public `update`: what one change did. `moves` counts every move so far. */
export interface GameUpdate {
  gameId: string;
  status: GameStatus;
  moves: number;
  turn: number;
  events: string[];
}

export interface GameSummary {
  gameId: string;
  status: GameStatus;
  seats: Array<{ seat: number; type: SeatView['type']; name: string; you: boolean }>;
  openSeats: number;
  turn: number;
  moves: number;
  createdAt: string;
}

/** A seat as POST /games takes it. */
export type SeatRequest = 'me' | 'open' | `bot:${string}`;

export interface NewGame {
  seats: SeatRequest[];
  kingdom?: string;
  seed?: number;
}

const gamePath = (gameId: string) => `/games/${encodeURIComponent(gameId)}`;

export const startGame = (game: NewGame) => api<GameView>('/games', { body: game });
export const joinGame = (gameId: string) => api<GameView>(`${gamePath(gameId)}/join`, { method: 'POST' });
export const listGames = (signal?: AbortSignal) => api<{ games: GameSummary[] }>('/games', { signal });
export const observeGame = (gameId: string, signal?: AbortSignal) => api<GameView>(gamePath(gameId), { signal });
export const makeMove = (gameId: string, move: string) => api<GameView>(`${gamePath(gameId)}/moves`, { body: { move } });
export const gameEventsPath = (gameId: string) => `${gamePath(gameId)}/events`;
