/**
 * `npm run bench:meta`: latency of each MTG meta tool through MCP on the full dataset, as a client sees
 * it: the official MCP SDK client over streamable HTTP → gateway → meta service worker → embedded
 * MongoDB (`troupe mongo`), one call in flight, parameters rotating over every format and several windows.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../logging/logger.js';
import { measureDeckParsing } from './deck-parsing.js';
import { percentile, startBenchTroupe } from './troupe-processes.js';

export interface MetaBenchOptions {
  redisUrl: string;
  logger: Logger;
  /** Timed calls per read tool (the coaching tools get a third as many). */
  calls?: number;
}

/** The tools that only read and aggregate data; the acceptance bound is on these. */
const READ_TOOLS = ['get_format_meta_rankings', 'get_format_matchup_stats', 'get_format_archetypes', 'get_enriched_deck', 'get_deck_matchup_stats'] as const;
const COACHING_TOOLS = ['generate_deck_matchup_strategy', 'optimize_mainboard', 'optimize_sideboard'] as const;
const P95_BOUND_MS = 200;
const DAYS = [14, 30, 60];

const round = (n: number) => Math.round(n * 10) / 10;

/** A main deck and sideboard per format, built from the most played cards of its top archetype's lists. */
function deckText(archetypeCards: { main: string[]; side: string[] }): string {
  return `${archetypeCards.main.map((c) => `4 ${c}`).join('\n')}\n\nSideboard\n${archetypeCards.side.map((c) => `3 ${c}`).join('\n')}\n`;
}

export async function runMetaBench({ redisUrl, logger, calls = 60 }: MetaBenchOptions) {
  const bench = await startBenchTroupe({ redisUrl, name: 'meta', kindLimits: 'meta:rate=100000000/60,concurrent=100000', seedMtg: true });
  try {
    const { mcp, base, key } = bench;
    const call = async (name: string, args: Record<string, unknown>): Promise<{ ms: number; result: Record<string, unknown> }> => {
      const started = performance.now();
      const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
      const ms = performance.now() - started;
      if (result.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${JSON.stringify(result.content)}`);
      return { ms, result: result.structuredContent as Record<string, unknown> };
    };

    // Per format: its top archetypes and a deck made of its top archetype's staples.
    const formats = ((await (await fetch(`${base}/formats`, { headers: { authorization: `Bearer ${key}` } })).json()) as { formats: string[] }).formats;
    const setups: Array<{ format: string; archetype: string; opponent: string; deck: string; cardDetails: unknown }> = [];
    for (const format of formats) {
      const archetypes = (await call('get_format_archetypes', { format, days: 30 })).result.archetypes as Array<{ name: string }>;
      const strategy = (await call('generate_deck_matchup_strategy', { card_details: [{ name: 'Island', quantity: 1, section: 'mainboard' }], archetype: archetypes[0].name, opponent_archetype: archetypes[0].name, format })).result;
      const profile = strategy.opponent_profile as { key_cards: Array<{ name: string }>; sideboard_cards: Array<{ name: string }> };
      const deck = deckText({ main: profile.key_cards.map((c) => c.name).slice(0, 12), side: profile.sideboard_cards.map((c) => c.name).slice(0, 5) });
      const enriched = (await call('get_enriched_deck', { deck })).result;
      setups.push({ format, archetype: archetypes[0].name, opponent: archetypes[1]?.name ?? archetypes[0].name, deck, cardDetails: enriched.card_details });
    }
    logger.info({ formats, calls }, 'timing the meta tools');

    const argsFor = (tool: string, i: number): Record<string, unknown> => {
      const s = setups[i % setups.length];
      const days = DAYS[Math.floor(i / setups.length) % DAYS.length];
      switch (tool) {
        case 'get_format_meta_rankings':
          return { format: s.format, current_days: days, previous_days: days };
        case 'get_format_matchup_stats':
        case 'get_format_archetypes':
          return { format: s.format, days };
        case 'get_enriched_deck':
          return { deck: s.deck };
        case 'get_deck_matchup_stats':
          return { format: s.format, archetype: s.archetype, days };
        case 'generate_deck_matchup_strategy':
          return { format: s.format, card_details: s.cardDetails, archetype: s.archetype, opponent_archetype: s.opponent, days };
        default:
          return { format: s.format, card_details: s.cardDetails, archetype: s.archetype, top_n: 5, days };
      }
    };

    const tools: Record<string, { calls: number; p50_ms: number; p95_ms: number; max_ms: number }> = {};
    for (const tool of [...READ_TOOLS, ...COACHING_TOOLS]) {
      const n = (READ_TOOLS as readonly string[]).includes(tool) ? calls : Math.max(6, Math.round(calls / 3));
      for (let i = 0; i < 3; i++) await call(tool, argsFor(tool, i)); // warm-up
      const latencies: number[] = [];
      for (let i = 0; i < n; i++) latencies.push((await call(tool, argsFor(tool, i))).ms);
      latencies.sort((a, b) => a - b);
      tools[tool] = { calls: n, p50_ms: round(percentile(latencies, 50)), p95_ms: round(percentile(latencies, 95)), max_ms: round(latencies[latencies.length - 1]) };
    }
    const slowestRead = READ_TOOLS.reduce((worst, t) => (tools[t].p95_ms > tools[worst].p95_ms ? t : worst), READ_TOOLS[0]);
    return {
      node: process.version,
      path: 'MCP SDK client (streamable HTTP) → gateway → meta service worker → embedded MongoDB (troupe mongo), one call in flight',
      dataset: 'bundled MTG dataset (1,025 tournaments, 35,716 decklists, 45,606 matches, 6,462 cards)',
      rotation: { formats, days: DAYS },
      narrator: 'offline (no LLM_PROVIDER): the coaching tools time data work and template prose only',
      tools,
      deck_parsing: measureDeckParsing(),
      acceptance: {
        read_tools_p95_bound_ms: P95_BOUND_MS,
        slowest_read_tool: { tool: slowestRead, p95_ms: tools[slowestRead].p95_ms },
        every_read_tool_p95_under_200ms: READ_TOOLS.every((t) => tools[t].p95_ms < P95_BOUND_MS),
      },
    };
  } finally {
    await bench.stop();
  }
}
