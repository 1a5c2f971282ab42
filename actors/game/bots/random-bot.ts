/** A bot that picks uniformly among the legal moves, for fuzzing. Its PRNG is its own, not the game's. */
import { legalMoves } from '../engine/legal-moves.js';
import { createRng, randomIndex, seedToInt } from '../engine/rng.js';
import type { Bot } from './strategy-bot.js';

export function createRandomBot(seed: number | string): Bot {
  const rng = createRng(seedToInt(seed));
  return (s, p) => {
    const moves = legalMoves(s, p);
    return moves[randomIndex(rng, moves.length)];
  };
}
