/**
 * `npm run bench:game`: latency of `game_execute` as an AI agent sees it — the official MCP SDK client
 * over streamable HTTP → gateway → game actor turn (bots reply inside it, state committed to the
 * embedded MongoDB) → answer — for whole games against Big Money Ultimate, one call in flight. Beside
 * it, in turns with it, the same games on a naive MCP game server without troupe (naive-game-peer.ts):
 * the baseline of the day's machine.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { GameView } from '../../actors/game/session.js';
import type { Logger } from '../../logging/logger.js';
import { percentile, startBenchTroupe } from './troupe-processes.js';
import { hopPercentiles, outsideHops, type ClientCall } from './hop-percentiles.js';
import { startNaiveGamePeer, type NaiveGamePeer } from './naive-game-peer.js';
import { measureMachineHops } from './machine-hops.js';

export interface GameBenchOptions {
  redisUrl: string;
  logger: Logger;
  /** Whole games to play (default 5). */
  games?: number;
  /** Untimed games first, on each side (default 10): see WARMUP_GAMES. */
  warmupGames?: number;
  /** Run the gateway with TRACE_HOPS and print where each move's milliseconds go (its logging slows it). */
  traceHops?: boolean;
  /** Write a V8 CPU profile of every troupe process here. */
  profileDir?: string;
  /** Run troupe's gateway and workers in one `troupe start` process, as `npm start` does. */
  oneProcess?: boolean;
}

const P99_BOUND_MS = 100;
/**
 * Untimed games before the timed ones, on each side (about 55 moves each). With one, both sides were
 * still warming up (JIT tiers in every process, the MongoDB server's included): in four pairs of runs
 * taking turns with twenty, troupe's p50 fell in three (10.0-11.2 ms to 6.6-8.4), and so did the naive
 * server's. bench:runtime's latency section runs after 51,000 messages.
 */
const WARMUP_GAMES = 10;
/** What one agent playing alone should feel per move on an idle machine (issue 15). */
const LATENCY_TARGETS = { p50_ms: 6, p99_ms: 20 };
const round = (n: number) => Math.round(n * 10) / 10;

/** A money strategy over the numbered options, as an agent reading them would play. */
function choose(view: GameView): string {
  if (view.pendingEffect) return '1';
  const find = (text: string) => view.options.find((o) => o.description.startsWith(text));
  for (const wanted of ['Play all Treasures', 'Buy Province', 'Buy Gold', 'Buy Silver']) {
    const option = find(wanted);
    if (option) return String(option.index);
  }
  return String((find('End turn') ?? view.options[view.options.length - 1]).index);
}

type Outcome = { seed: number; moves: number; turns: number; winners: number[]; scores: number[] };

/** Where a timed game's moves are noted: their latencies, and when each started and ended. */
interface MoveLog {
  latencies: number[];
  calls: ClientCall[];
}

/** Plays one whole game with `mcp` (the bench's money strategy against BMU), its moves noted in `log` if given. */
async function playGame(mcp: Client, seed: number, log: MoveLog | undefined): Promise<Outcome> {
  const call = async (name: string, args: Record<string, unknown>) => {
    const started = performance.now();
    const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
    const ended = performance.now();
    if (result.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${JSON.stringify(result.content)}`);
    return { ms: ended - started, startedAt: performance.timeOrigin + started, endedAt: performance.timeOrigin + ended, view: result.structuredContent as unknown as GameView };
  };
  let { view } = await call('game_session', { action: 'new', seats: ['me', 'bot:bmu'], seed });
  let moves = 0;
  while (!view.gameOver) {
    const answer = await call('game_execute', { gameId: view.gameId, move: choose(view) });
    log?.latencies.push(answer.ms);
    log?.calls.push({ startedAt: answer.startedAt, endedAt: answer.endedAt });
    view = answer.view;
    moves += 1;
    if (moves > 5000) throw new Error(`game ${view.gameId} did not end`);
  }
  return { seed, moves, turns: (view.gameState as { turn?: number } | null)?.turn ?? 0, winners: view.result?.winners ?? [], scores: view.result?.scores ?? [] };
}

const summary = (latencies: number[]) => {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { calls: sorted.length, p50_ms: round(percentile(sorted, 50)), p99_ms: round(percentile(sorted, 99)), max_ms: round(sorted[sorted.length - 1]) };
};

export async function runGameBench({ redisUrl, logger, games = 5, warmupGames = WARMUP_GAMES, traceHops = false, profileDir, oneProcess = false }: GameBenchOptions) {
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : undefined;
  const bench = await startBenchTroupe({ redisUrl, name: 'game', kindLimits: 'game:rate=100000000/60,concurrent=100000', traceHops, nodeArgs, oneProcess });
  let peer: NaiveGamePeer | undefined;
  try {
    peer = await startNaiveGamePeer({ mongoUri: bench.mongo.uri, dbName: bench.mongo.dbName, key: bench.key });
    const sides = { troupe: bench.mcp, peer: peer.mcp };
    const logs: Record<'troupe' | 'peer', MoveLog> = { troupe: { latencies: [], calls: [] }, peer: { latencies: [], calls: [] } };
    const outcomes: Outcome[] = [];
    // Warm-up games first (seeds below 1000), untimed, then the timed ones: the same seed on both, who
    // goes first alternating.
    let timedFrom = 0;
    for (let g = -warmupGames; g < games; g++) {
      if (g === 0) timedFrom = bench.gatewayOutput().length;
      const seed = 1000 + g;
      const order = g % 2 === 0 ? (['troupe', 'peer'] as const) : (['peer', 'troupe'] as const);
      const played: Partial<Record<'troupe' | 'peer', Outcome>> = {};
      for (const side of order) played[side] = await playGame(sides[side], seed, g >= 0 ? logs[side] : undefined);
      // The same rules, seed and strategy: both must have played the very same game.
      if (JSON.stringify(played.troupe) !== JSON.stringify(played.peer)) {
        throw new Error(`troupe and the naive peer played seed ${seed} differently: ${JSON.stringify(played)}`);
      }
      if (g >= 0) outcomes.push(played.troupe!);
      logger.info({ game: g >= 0 ? g + 1 : `warm-up ${g + warmupGames + 1}/${warmupGames}`, moves: played.troupe!.moves }, 'game finished on troupe and the naive peer');
    }
    logger.info('one hop between processes on this machine, for reference');
    const machineHops = await measureMachineHops({ redisUrl, mongoUri: bench.mongo.uri });
    const troupe = summary(logs.troupe.latencies);
    const naive = summary(logs.peer.latencies);
    // Judged on the unrounded percentiles (6.04 ms does not meet 6).
    const sorted = [...logs.troupe.latencies].sort((a, b) => a - b);
    const meets = percentile(sorted, 50) <= LATENCY_TARGETS.p50_ms && percentile(sorted, 99) <= LATENCY_TARGETS.p99_ms;
    return {
      node: process.version,
      path: 'MCP SDK client (streamable HTTP) → gateway → game actor turn (BMU bot replies inside it) → embedded MongoDB (troupe mongo), one call in flight',
      troupe_processes: oneProcess ? 'one troupe start (the gateway and the workers, as npm start runs them) and troupe mongo' : 'one troupe gateway, one troupe worker and troupe mongo',
      games: outcomes.length,
      warmup_games: warmupGames,
      order: 'per seed, troupe then the peer, then the peer first on the next seed, …',
      game_execute: troupe,
      outcomes,
      naive_peer: {
        path: 'the same MCP SDK client → one Koa process: the SDK\'s stateless streamable HTTP (a new McpServer and transport per request, JSON answers) → findOne the game, apply the move with troupe\'s rules and bots, replaceOne it (conditional on the move count) in the same MongoDB',
        gives_up: ['per-game order of concurrent calls (a conflicting move fails)', 'the game\'s feed (spectators, web client)', 'resumable answers', 'per-user limits', 'a worker tier to scale apart from the HTTP tier'],
        game_execute: naive,
        same_games: true,
      },
      troupe_vs_peer: { p50_ms: { troupe: troupe.p50_ms, peer: naive.p50_ms }, p99_ms: { troupe: troupe.p99_ms, peer: naive.p99_ms }, p50_over_peer_ms: round(troupe.p50_ms - naive.p50_ms) },
      latency: {
        what: 'game_execute over MCP, one call after another (one agent, one game)',
        p50_ms: troupe.p50_ms,
        p99_ms: troupe.p99_ms,
        targets: LATENCY_TARGETS,
        meets_targets: meets,
        ...(traceHops ? { hops_ms: hopPercentiles(bench.gatewayOutput().slice(timedFrom)), outside_hops_ms: outsideHops(bench.gatewayOutput(), logs.troupe.calls) } : {}),
        machine_hops: machineHops,
      },
      acceptance: { p99_bound_ms: P99_BOUND_MS, game_execute_p99_under_100ms: percentile(sorted, 99) < P99_BOUND_MS, sequential_latency_within_targets: meets },
    };
  } finally {
    await peer?.stop().catch((err: unknown) => logger.warn({ err }, 'stopping the naive game peer failed'));
    await bench.stop();
  }
}
