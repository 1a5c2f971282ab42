/**
 * `npm run bench:chat`: latency of one deck-coach turn as a chat client sees it — POST
 * /actors/conversation/:id/messages answered as SSE (the runtime path POST /chat takes, but showing the
 * `reply` event with the turn's own timings) → gateway → queue → conversation actor (the coach graph,
 * offline) → the coach's MCP tool call back through the gateway's /mcp → meta service worker → embedded
 * MongoDB — one turn in flight, for a meta question and a deck-coaching question.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { ChildProcess } from 'node:child_process';
import { postEventStream } from './event-stream-request.js';
import { MTG_DATA_DIR } from '../../models/mtg/dataset-files.js';
import type { Logger } from '../../logging/logger.js';
import { benchPrefix, createBenchUser, deleteBenchKeys, freePort, median, percentile, troupe, waitUntilReady, type BenchProcess } from './troupe-processes.js';

export interface ChatBenchOptions {
  redisUrl: string;
  logger: Logger;
  /** Timed turns per question (after the warm-ups). */
  turns?: number;
}

const WARMUPS = 3;
const TURN_P95_BOUND_MS = 300;
const OVERHEAD_BOUND_MS = 20;
const FORMAT = 'Modern';
const DAYS = 30;
const ARCHETYPE = 'Boros Energy';
const META_QUESTION = 'what are the top decks?';
const COACHING_QUESTION = 'how does my deck do in its matchups?';
const DECK_MESSAGE = 'Here is my deck.';

const round = (n: number) => Math.round(n * 10) / 10;

interface Timings {
  turn_ms: number;
  graph_ms: number;
  tools_ms: number;
}

interface Reply {
  conversation_id: string;
  answer: string;
  state: Record<string, unknown>;
  tool_calls: Array<{ tool: string; status: string; summary: string }>;
  timings: Timings;
}

interface Turn {
  /** From sending the request to the first `content` event. */
  first_content_ms: number;
  /** From sending the request to `done`. */
  turn_ms: number;
  reply: Reply;
  /** How many of each event arrived. */
  events: Record<string, number>;
}

/** A real Boros Energy list from the bundled data, as a player would paste it (MTGO export). */
function borosEnergyDeck() {
  const read = <T>(file: string): T => JSON.parse(gunzipSync(readFileSync(join(MTG_DATA_DIR, file))).toString('utf8')) as T;
  type Entry = [number, number];
  const decks = read<Array<{ id: number; format: string; date: string; player: string; result: string; archetype: string; mainboard: Entry[]; sideboard: Entry[] }>>('decklists.json.gz');
  const cards = read<Array<{ index: number; name: string }>>('cards.json.gz');
  const names = new Map(cards.map((c) => [c.index, c.name]));
  const count = (entries: Entry[]) => entries.reduce((sum, [, n]) => sum + n, 0);
  // The newest complete 60/15 list that won its event (deterministic: ties broken by id).
  const won = (d: { result: string }) => (d.result === '1st Place' ? 0 : 1);
  const deck = decks
    .filter((d) => d.format === FORMAT && d.archetype === ARCHETYPE && count(d.mainboard) === 60 && count(d.sideboard) === 15 && [...d.mainboard, ...d.sideboard].every(([i]) => names.has(i)))
    .sort((a, b) => won(a) - won(b) || b.date.localeCompare(a.date) || a.id - b.id)[0];
  if (!deck) throw new Error(`no complete ${FORMAT} ${ARCHETYPE} decklist in models/data/mtg/decklists.json.gz`);
  const lines = (entries: Entry[]) => entries.map(([i, n]) => `${n} ${names.get(i)}`).join('\n');
  return { id: deck.id, date: deck.date, player: deck.player, result: deck.result, text: `${lines(deck.mainboard)}\n\nSideboard\n${lines(deck.sideboard)}\n` };
}

/**
 * `troupe mongo`, the MTG dataset, a bench user, one `troupe worker` (LLM offline, its agents calling
 * the gateway's /mcp via GATEWAY_URL) and one `troupe gateway`; every process is stopped on `stop()`,
 * on SIGINT/SIGTERM and, as a last resort, when this process exits.
 */
async function startChatTroupe(redisUrl: string, logger: Logger) {
  const [mongoPort, httpPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${httpPort}`;
  const env = {
    REDIS_URL: redisUrl,
    MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
    MONGODB_DB: `bench_chat_${process.pid}`,
    REDIS_PREFIX: benchPrefix('chat'),
    PORT: String(httpPort),
    HOST: '127.0.0.1',
    KIND_LIMITS: 'conversation:rate=100000000/60,concurrent=100000;meta:rate=100000000/60,concurrent=100000',
    // Offline whatever this shell says: the coach plans and narrates without a model.
    LLM_PROVIDER: 'offline',
    // Empty counts as unset: the coach calls troupe's own /mcp, never another server.
    COACH_MCP_URL: '',
    COACH_MCP_HEADER: '',
  };
  const processes: ChildProcess[] = [];
  const killNow = () => {
    for (const p of processes) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  };
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // Worker and gateway first, the database last.
      for (const p of [...processes].reverse()) {
        if (p.exitCode !== null || p.signalCode !== null) continue;
        const exited = once(p, 'exit');
        p.kill('SIGTERM');
        const timer = setTimeout(() => p.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      process.off('exit', killNow);
      await deleteBenchKeys(redisUrl, env.REDIS_PREFIX).catch(() => undefined);
    })());
  function onSignal(signal: NodeJS.Signals) {
    logger.warn({ signal }, 'interrupted: stopping the bench troupe');
    void stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  }
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', killNow);
  const started = (p: BenchProcess) => (processes.push(p.child), p);
  try {
    const mongo = started(troupe(['mongo', '--port', String(mongoPort)], env));
    await mongo.waitFor('listening');
    const seed = troupe(['seed', 'mtg'], env);
    processes.push(seed.child);
    const [code] = (await once(seed.child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`troupe seed mtg failed:\n${seed.output()}`);
    const key = await createBenchUser(env);
    const worker = started(troupe(['worker'], { ...env, GATEWAY_URL: base }, { logLevel: 'warn' }));
    const gateway = started(troupe(['gateway'], env, { logLevel: 'warn' }));
    await waitUntilReady(`${base}/readyz`, [worker, gateway]);
    return { base, key, stop, stopping: () => stopping !== undefined, output: () => `--- worker\n${worker.output()}\n--- gateway\n${gateway.output()}` };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** One chat turn: POST with Accept: text/event-stream, read until `done`; throws on an `error` event. */
async function chatTurn(agent: Agent, base: string, key: string, conversationId: string, payload: Record<string, unknown>): Promise<Turn> {
  const url = new URL(`/actors/conversation/${conversationId}/messages`, base);
  const started = performance.now();
  let firstContent: number | undefined;
  let done: number | undefined;
  let reply: Reply | undefined;
  const events: Record<string, number> = {};
  await postEventStream(agent, url, key, JSON.stringify({ type: 'chat', payload }), (e) => {
    const name = e.event ?? 'message';
    events[name] = (events[name] ?? 0) + 1;
    if (name === 'content' && firstContent === undefined) firstContent = performance.now();
    else if (name === 'reply') reply = JSON.parse(e.data) as Reply;
    else if (name === 'done') done = performance.now();
  });
  if (!reply) throw new Error(`no reply event (events: ${JSON.stringify(events)})`);
  if (firstContent === undefined) throw new Error(`no content event (events: ${JSON.stringify(events)})`);
  return { first_content_ms: firstContent - started, turn_ms: done! - started, reply, events };
}

/** A fast wrong answer must fail the run: exactly the expected tool calls, all complete, and an answer. */
function check(turn: Turn, expectedTools: string[], what: string): void {
  const calls = turn.reply.tool_calls;
  const ok =
    calls.length === expectedTools.length &&
    calls.every((c, i) => c.tool === expectedTools[i] && c.status === 'complete') &&
    turn.reply.answer.trim() !== '' &&
    (turn.events.tool_call ?? 0) === 2 * expectedTools.length;
  if (!ok) throw new Error(`${what}: expected ${expectedTools.join(', ')} (complete), got ${JSON.stringify(calls)}; events ${JSON.stringify(turn.events)}; answer ${JSON.stringify(turn.reply.answer.slice(0, 300))}`);
}

function summary(turns: Turn[]) {
  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), max: round(sorted[sorted.length - 1]) };
  };
  const turnMs = turns.map((t) => t.turn_ms);
  const split = {
    tools_ms: median(turns.map((t) => t.reply.timings.tools_ms)),
    graph_ms: median(turns.map((t) => t.reply.timings.graph_ms)),
    runtime_ms: median(turns.map((t) => t.turn_ms - t.reply.timings.turn_ms)),
  };
  const turnP50 = median(turnMs);
  const share = (ms: number) => round((100 * ms) / turnP50);
  const overhead = median(turns.map((t) => t.turn_ms - t.reply.timings.tools_ms));
  return {
    turns: turns.length,
    first_content_ms: stats(turns.map((t) => t.first_content_ms)),
    turn_ms: stats(turnMs),
    split_p50_ms: { tools_ms: round(split.tools_ms), graph_ms: round(split.graph_ms), runtime_ms: round(split.runtime_ms) },
    split_share_of_turn_p50_pct: { tools: share(split.tools_ms), graph: share(split.graph_ms), runtime: share(split.runtime_ms) },
    overhead_ms: overhead,
  };
}

export async function runChatBench({ redisUrl, logger, turns = 40 }: ChatBenchOptions) {
  const deck = borosEnergyDeck();
  const bench = await startChatTroupe(redisUrl, logger);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { base, key } = bench;
    const run = async (what: string, conversationId: string, payload: Record<string, unknown>, expectedTools: string[]) => {
      const turn = await chatTurn(agent, base, key, conversationId, payload);
      check(turn, expectedTools, what);
      return turn;
    };
    const measure = async (name: string, conversationId: string, message: string, tool: string, first?: Record<string, unknown>) => {
      const timed: Turn[] = [];
      for (let i = 0; i < WARMUPS + turns; i++) {
        const payload = i === 0 && first ? { ...first, message } : { message };
        const turn = await run(`${name} turn ${i + 1}`, conversationId, payload, [tool]);
        if (i >= WARMUPS) timed.push(turn);
      }
      logger.info({ question: name, turns }, 'timed');
      return timed;
    };

    logger.info({ turns, warmups: WARMUPS }, 'timing the deck coach');
    // Meta: the conversation is created by its first (warm-up) turn, with the UI's format and window.
    const metaTurns = await measure('meta', randomUUID(), META_QUESTION, 'get_format_meta_rankings', { create: true, format: FORMAT, current_days: DAYS });

    // Coaching: the deck is pasted once (parsed by get_enriched_deck), then each turn asks for its matchups.
    const coachingId = randomUUID();
    const setup = await run('deck setup', coachingId, { create: true, message: DECK_MESSAGE, format: FORMAT, current_days: DAYS, archetype: ARCHETYPE, deck_text: deck.text }, ['get_enriched_deck']);
    if (setup.reply.state.has_deck !== true || setup.reply.state.archetype !== ARCHETYPE) throw new Error(`deck setup did not keep the deck and archetype: ${JSON.stringify(setup.reply.state)}`);
    const coachingTurns = await measure('coaching', coachingId, COACHING_QUESTION, 'get_deck_matchup_stats');

    const questions = {
      meta: { message: META_QUESTION, tool: 'get_format_meta_rankings', ...summary(metaTurns) },
      coaching: { message: COACHING_QUESTION, tool: 'get_deck_matchup_stats', ...summary(coachingTurns) },
    };
    const target = (q: (typeof questions)['meta']) => ({
      turn_p95_ms: q.turn_ms.p95,
      turn_p95_under_300ms: q.turn_ms.p95 < TURN_P95_BOUND_MS,
      overhead_ms: round(q.overhead_ms),
      overhead_under_20ms: q.overhead_ms < OVERHEAD_BOUND_MS,
    });
    const targets = { meta: target(questions.meta), coaching: target(questions.coaching) };
    const shown = (q: (typeof questions)['meta']) => {
      const { overhead_ms: _overhead, ...rest } = q;
      return rest;
    };
    return {
      node: process.version,
      path: 'POST /actors/conversation/:id/messages (SSE) → gateway → conversation actor (coach graph, offline) → MCP tool call via the gateway /mcp → meta service worker → embedded MongoDB (troupe mongo), one turn in flight',
      llm: 'offline (LLM_PROVIDER=offline): deterministic plan and template prose',
      format: FORMAT,
      current_days: DAYS,
      warmups: WARMUPS,
      deck: { archetype: ARCHETYPE, decklist_id: deck.id, date: deck.date, player: deck.player, result: deck.result },
      definitions: {
        first_content_ms: 'client: request sent → first content event',
        turn_ms: 'client: request sent → done event',
        tools_ms: 'reply.timings.tools_ms: the MCP tool calls inside the turn',
        graph_ms: 'reply.timings.graph_ms: the actor turn minus its tool calls',
        runtime_ms: 'client turn_ms − reply.timings.turn_ms: gateway, queue, actor state load/commit, SSE',
        split_share_of_turn_p50_pct: 'each split median as a percentage of the median client turn_ms',
        overhead_ms: 'p50 of (client turn_ms − tools_ms)',
      },
      questions: { meta: shown(questions.meta), coaching: shown(questions.coaching) },
      targets: {
        turn_p95_bound_ms: TURN_P95_BOUND_MS,
        overhead_bound_ms: OVERHEAD_BOUND_MS,
        ...targets,
        turn_p95_under_300ms: targets.meta.turn_p95_under_300ms && targets.coaching.turn_p95_under_300ms,
        overhead_under_20ms: targets.meta.overhead_under_20ms && targets.coaching.overhead_under_20ms,
      },
    };
  } catch (e) {
    // Stopped by SIGINT/SIGTERM: the turn in flight failed because its troupe went away, nothing more.
    if (!bench.stopping()) logger.error({ processes: bench.output().slice(-4000) }, 'the chat bench failed');
    throw e;
  } finally {
    agent.destroy();
    await bench.stop();
  }
}
