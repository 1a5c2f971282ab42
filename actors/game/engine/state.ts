/**
 * The game state: plain JSON (numbers, strings, booleans, arrays, plain objects) because it is stored in
 * MongoDB as is. Cards are ids from cards.ts. Piles are arrays whose END is the top (draw = pop).
 */
import type { Edition } from './cards.js';
import type { RngState } from './rng.js';
import type { Task } from './tasks.js';

export interface PlayerState {
  /** Draw pile; the last element is the top card. */
  deck: number[];
  hand: number[];
  discard: number[];
  inPlay: number[];
  /** Set aside or revealed face up while an effect resolves (Library, Adventurer, Bandit, Thief). */
  aside: number[];
  /** Turns this player has finished (the tie-break counts them). */
  turns: number;
}

export type Phase = 'action' | 'buy' | 'over';

export type EndReason = 'provinces' | 'piles' | 'turn_limit';

export interface GameResult {
  reason: EndReason;
  scores: number[];
  turns: number[];
  /** Indexes of the winners: highest score, then fewest turns; several when still tied. */
  winners: number[];
}

export interface GameState {
  version: 1;
  /** The 32-bit seed the game was created with (for the record; play uses `rng`). */
  seed: number;
  rng: RngState;
  edition: Edition;
  /** The preset the kingdom came from, if any. */
  preset: string | null;
  kingdom: number[];
  /** Supply piles in the game, in display order (basic cards, then the kingdom by cost). */
  piles: number[];
  /** Cards left per card id (0 for cards not in this game; `piles` says which are). */
  supply: number[];
  trash: number[];
  players: PlayerState[];
  /** Whose turn it is. */
  current: number;
  /** Turns started in the whole game, 1-based. */
  turn: number;
  phase: Phase;
  actions: number;
  buys: number;
  coins: number;
  /** A card was bought this turn: no Treasures may be played any more. */
  bought: boolean;
  /** Merchants played this turn before the first Silver. */
  merchants: number;
  silverPlayed: boolean;
  /** Bit per player: revealed Moat against the Attack being played. */
  immune: number;
  /**
   * Pending work, last element first: decisions (each names the player who must answer) and the
   * automatic steps queued behind them. Empty when the player to move is in a normal turn.
   */
  stack: Task[];
  /** End the game after this many turns per player (0: no limit; a guard for simulations). */
  turnLimit: number;
  result: GameResult | null;
}

/** Who must move next: the player owning the front decision, else the player whose turn it is. */
export function playerToMove(s: GameState): number | null {
  if (s.phase === 'over') return null;
  const n = s.stack.length;
  return n > 0 ? s.stack[n - 1].p : s.current;
}

function clonePlayer(p: PlayerState): PlayerState {
  return { deck: p.deck.slice(), hand: p.hand.slice(), discard: p.discard.slice(), inPlay: p.inPlay.slice(), aside: p.aside.slice(), turns: p.turns };
}

/** A deep copy (the public applyMove mutates a copy, never its input). Tasks hold only scalars. */
export function cloneState(s: GameState): GameState {
  return {
    version: s.version,
    seed: s.seed,
    rng: s.rng.slice(),
    edition: s.edition,
    preset: s.preset,
    kingdom: s.kingdom.slice(),
    piles: s.piles.slice(),
    supply: s.supply.slice(),
    trash: s.trash.slice(),
    players: s.players.map(clonePlayer),
    current: s.current,
    turn: s.turn,
    phase: s.phase,
    actions: s.actions,
    buys: s.buys,
    coins: s.coins,
    bought: s.bought,
    merchants: s.merchants,
    silverPlayed: s.silverPlayed,
    immune: s.immune,
    stack: s.stack.map((t) => ({ ...t })),
    turnLimit: s.turnLimit,
    result: s.result === null ? null : { reason: s.result.reason, scores: s.result.scores.slice(), turns: s.result.turns.slice(), winners: s.result.winners.slice() },
  };
}
