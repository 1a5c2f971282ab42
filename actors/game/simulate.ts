/**
 * Plays whole games with bots, stepping one private state in place (no copies, no event recording):
 * the fast path used by tests, tournaments and the engine benchmark.
 */
import type { Bot } from './bots/strategy-bot.js';
import { PROVINCE } from './engine/cards.js';
import { createGame, createSoloGame, type GameConfig } from './engine/setup.js';
import { playerToMove, type GameResult, type GameState } from './engine/state.js';
import { stepInPlace } from './engine/step.js';
import type { Move } from './engine/moves.js';
import { countOwned } from './bots/deck-facts.js';

export interface SimulationOptions extends Omit<GameConfig, 'players'> {
  /** One bot per seat; the number of bots is the number of players. */
  bots: readonly Bot[];
  /** Record every (player, move) pair, for replay checks. */
  recordMoves?: boolean;
}

export interface SimulationResult {
  result: GameResult;
  state: GameState;
  /** Moves applied in the whole game. */
  moveCount: number;
  moves?: Array<{ player: number; move: Move }>;
}

/** Default guard against bots that never end a game: 100 turns each. */
export const DEFAULT_TURN_LIMIT = 100;

export function simulateGame(options: SimulationOptions): SimulationResult {
  const { bots, recordMoves, ...rest } = options;
  const created = createGame({ ...rest, players: bots.length, turnLimit: rest.turnLimit ?? DEFAULT_TURN_LIMIT });
  if (!created.ok) throw new Error(`simulateGame: ${created.error.message}`);
  const s = created.state;
  const moves: Array<{ player: number; move: Move }> | undefined = recordMoves ? [] : undefined;
  let moveCount = 0;
  while (s.phase !== 'over') {
    const p = playerToMove(s)!;
    const move = bots[p](s, p);
    const error = stepInPlace(s, p, move);
    if (error !== null) throw new Error(`simulateGame: bot of Player ${p + 1} made an illegal move ${JSON.stringify(move)}: ${error.message}`);
    if (moves !== undefined) moves.push({ player: p, move });
    moveCount++;
  }
  return { result: s.result!, state: s, moveCount, moves };
}

export interface SoloOptions extends Omit<GameConfig, 'players' | 'firstPlayer'> {
  bot: Bot;
  /** Stop once the player owns this many Provinces (default 4). */
  targetProvinces?: number;
  /** Give up after this many turns (default 60). */
  maxTurns?: number;
}

/**
 * Turns a lone player needs to own `targetProvinces` Provinces: the pace measure of the Big Money
 * literature ("4 Provinces in about 17 turns"). Uses createSoloGame: the real rules with one seat.
 * Returns null if the target was not reached within maxTurns.
 */
export function simulateSolo(options: SoloOptions): number | null {
  const { bot, targetProvinces = 4, maxTurns = 60, ...rest } = options;
  const created = createSoloGame(rest);
  if (!created.ok) throw new Error(`simulateSolo: ${created.error.message}`);
  const s = created.state;
  const pl = s.players[0];
  while (s.phase !== 'over' && pl.turns < maxTurns) {
    const turnsBefore = pl.turns;
    const move = bot(s, 0);
    const error = stepInPlace(s, 0, move);
    if (error !== null) throw new Error(`simulateSolo: illegal move ${JSON.stringify(move)}: ${error.message}`);
    if (pl.turns !== turnsBefore && countOwned(pl, PROVINCE) >= targetProvinces) return pl.turns;
  }
  return null;
}
