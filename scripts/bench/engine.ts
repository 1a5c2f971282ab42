/**
 * `npm run bench:engine`: the Dominion engine's speed and the bots' strength, measured in one run on one
 * core (a plain loop, no workers):
 * - games/s of a 2-player Big Money Ultimate mirror (after a warm-up), against the 10,000/s target;
 * - Smithy-BM vs BMU over ≥10,000 games, alternating who goes first;
 * - turns a lone player needs to own 4 Provinces (published: Big Money ~17, Smithy-BM ~14), using
 *   createSoloGame (the normal rules with one seat, 2-player pile sizes) through simulateSolo.
 */
import { BOTS } from '../../actors/game/bots/index.js';
import type { Bot } from '../../actors/game/bots/strategy-bot.js';
import { simulateGame, simulateSolo } from '../../actors/game/simulate.js';
import { applyMove } from '../../actors/game/engine/apply.js';
import { createGame } from '../../actors/game/engine/setup.js';
import { playerToMove } from '../../actors/game/engine/state.js';

export interface EngineBenchOptions {
  /** Timed BMU-mirror games (default 50,000); ignored when `seconds` is given. */
  games?: number;
  /** Time the BMU mirror for this long instead of a fixed number of games. */
  seconds?: number;
  /** Smithy-BM vs BMU games (default and minimum 10,000). */
  matchGames?: number;
  /** Solo games per bot for the pace figures (default 10,000). */
  soloGames?: number;
}

const TARGET_GAMES_PER_SEC = 10_000;

function mirrorSpeed(bot: Bot, games: number | undefined, seconds: number | undefined): { games: number; seconds: number } {
  for (let i = 0; i < 3_000; i++) simulateGame({ seed: `warmup-${i}`, bots: [bot, bot] });
  const start = performance.now();
  let played = 0;
  if (seconds !== undefined) {
    const until = start + seconds * 1000;
    // Check the clock every 100 games so timing does not cost more than the games.
    while (performance.now() < until) for (let i = 0; i < 100; i++) simulateGame({ seed: played++, bots: [bot, bot] });
  } else {
    const total = games ?? 50_000;
    for (; played < total; played++) simulateGame({ seed: played, bots: [bot, bot] });
  }
  return { games: played, seconds: (performance.now() - start) / 1000 };
}

/**
 * The same mirror through the public, non-mutating applyMove (a state copy plus event recording per
 * move): what the actor pays per move, and the comparison point for the in-place simulation path.
 */
function publicApiSpeed(bot: Bot, games: number): { games: number; seconds: number; games_per_sec: number } {
  const play = (seed: string): void => {
    const created = createGame({ players: 2, seed, turnLimit: 100 });
    if (!created.ok) throw new Error(created.error.message);
    let s = created.state;
    while (s.phase !== 'over') {
      const p = playerToMove(s)!;
      const r = applyMove(s, p, bot(s, p));
      if (!r.ok) throw new Error(r.error.message);
      s = r.state;
    }
  };
  for (let i = 0; i < 300; i++) play(`warmup-${i}`);
  const start = performance.now();
  for (let i = 0; i < games; i++) play(`public-${i}`);
  const seconds = (performance.now() - start) / 1000;
  return { games, seconds: Number(seconds.toFixed(3)), games_per_sec: Math.round(games / seconds) };
}

function headToHead(a: Bot, b: Bot, games: number): { games: number; wins: number; losses: number; ties: number; winRate: number } {
  let wins = 0, losses = 0, ties = 0;
  for (let i = 0; i < games; i++) {
    // Seat 0 is always `a`; who goes first alternates.
    const { result } = simulateGame({ seed: `match-${i}`, bots: [a, b], firstPlayer: i % 2 });
    if (result.winners.length > 1) ties++;
    else if (result.winners[0] === 0) wins++;
    else losses++;
  }
  return { games, wins, losses, ties, winRate: Number(((wins + ties / 2) / games).toFixed(4)) };
}

function soloPace(bot: Bot, games: number): { games: number; average_turns: number; unfinished: number } {
  let turns = 0, finished = 0;
  for (let i = 0; i < games; i++) {
    const t = simulateSolo({ seed: `solo-${i}`, bot, targetProvinces: 4 });
    if (t !== null) {
      turns += t;
      finished++;
    }
  }
  return { games, average_turns: Number((turns / Math.max(finished, 1)).toFixed(2)), unfinished: games - finished };
}

export async function runEngineBench(opts: EngineBenchOptions = {}): Promise<Record<string, unknown>> {
  const speed = mirrorSpeed(BOTS.bmu, opts.games, opts.seconds);
  const gamesPerSec = Math.round(speed.games / speed.seconds);
  const matchGames = Math.max(opts.matchGames ?? 10_000, 10_000);
  const match = headToHead(BOTS['smithy-bm'], BOTS.bmu, matchGames);
  const soloGames = opts.soloGames ?? 10_000;
  return {
    bmu_mirror: {
      players: 2,
      kingdom: 'First Game',
      path: 'simulateGame: bots + stepInPlace on one private state',
      games: speed.games,
      seconds: Number(speed.seconds.toFixed(3)),
      games_per_sec: gamesPerSec,
      target_games_per_sec: TARGET_GAMES_PER_SEC,
    },
    bmu_mirror_public_api: { path: 'applyMove per move (state copy + events)', ...publicApiSpeed(BOTS.bmu, 2_000) },
    smithy_bm_vs_bmu: { ...match, first_player: 'alternating' },
    solo_turns_to_4_provinces: {
      method: 'createSoloGame: one seat, normal rules, 2-player pile sizes; turns until the player owns 4 Provinces',
      big_money: { ...soloPace(BOTS['big-money'], soloGames), published: 17 },
      bmu: soloPace(BOTS.bmu, soloGames),
      smithy_bm: { ...soloPace(BOTS['smithy-bm'], soloGames), published: 14 },
    },
    node: process.version,
    acceptance: { at_least_10000_games_per_sec: gamesPerSec >= TARGET_GAMES_PER_SEC },
  };
}
