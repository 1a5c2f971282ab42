/**
 * The meta service's contract: its messages (one per MCP tool, plus the formats list), the eight MCP
 * tools with their input and output schemas, and the HTTP reads `GET /formats` and `GET /archetypes`.
 * Names, parameters and result fields follow the deck-coach spec and the server it was written for;
 * troupe adds optional `days` / `format` parameters where a computation needs a window or a format.
 */
import { z } from 'zod';
import type { HttpRouteContract, PromptContract, ResourceContract, ToolContract } from '../runtime/contract.js';

export const DEFAULT_DAYS = 30;
const Days = z.number().int().min(1).max(365);
const Format = z.string().trim().min(1).max(60).describe('Format name, e.g. "Modern" (case-insensitive); see GET /formats');
const Archetype = z.string().trim().min(1).max(120);
const TopN = z.number().int().min(1).max(20);

const Section = z.enum(['mainboard', 'sideboard']);

/** A card of a parsed deck, as get_enriched_deck returns it and the coaching tools take it back. */
export const CardDetail = z.object({
  name: z.string().min(1).max(200),
  quantity: z.number().int().min(1).max(99),
  section: Section,
  mana_cost: z.string().nullable().optional(),
  mana_value: z.number().nullable().optional(),
  type_line: z.string().nullable().optional(),
  colors: z.array(z.string()).optional(),
  color_identity: z.array(z.string()).optional(),
  oracle_text: z.string().nullable().optional(),
});
export type CardDetail = z.infer<typeof CardDetail>;

const CardDetails = z.array(CardDetail).min(1).max(300).describe('card_details from get_enriched_deck');

const WindowShape = z.object({ start: z.string(), end: z.string(), days: z.number().int() });

const rankingsInput = {
  format: Format,
  current_days: Days.default(DEFAULT_DAYS).describe('Length of the current window in days, ending at the newest tournament in the data'),
  previous_days: Days.default(DEFAULT_DAYS).describe('Length of the previous window, just before the current one (no overlap)'),
  color_identity: z.string().max(20).optional().describe('Only archetypes of this colour identity, e.g. "UR" or "C"'),
  group_by: z.enum(['archetype', 'color_identity']).default('archetype').describe('One row per archetype (default) or per colour identity'),
};
const matchupInput = { format: Format, days: Days.default(DEFAULT_DAYS).describe('Window length in days, ending at the newest tournament in the data') };
const archetypesInput = matchupInput;
const enrichedDeckInput = {
  deck: z.string().max(100_000).describe('Deck list text as exported by MTGO, Arena or Moxfield ("4 Lightning Bolt", "4x ...", set codes, "Sideboard" or a blank line before the sideboard)'),
};
const deckMatchupInput = { archetype: Archetype.describe('Your archetype, e.g. "Boros Energy"'), format: Format, days: matchupInput.days };
const strategyInput = {
  card_details: CardDetails,
  archetype: Archetype.describe('Your deck\'s archetype'),
  opponent_archetype: Archetype.describe('The archetype you want to beat'),
  matchup_stats: z
    .object({ win_rate: z.number().min(0).max(100).nullable(), match_count: z.number().int().min(0) })
    .partial()
    .passthrough()
    .optional()
    .describe('Your record in this matchup (from get_deck_matchup_stats); computed from the data when absent'),
  format: Format.optional().describe('Format; inferred from the archetypes when absent'),
  days: Days.default(DEFAULT_DAYS).describe('Window for the opponent\'s recent lists'),
};
const optimizeInput = {
  card_details: CardDetails,
  archetype: Archetype.describe('Your deck\'s archetype'),
  format: Format,
  top_n: TopN.default(5).describe('How many of the most played archetypes to optimise against'),
  days: Days.default(DEFAULT_DAYS).describe('Window for the meta and the lists, ending at the newest tournament in the data'),
};

export const messages = {
  list_formats: z.object({}).strict(),
  get_format_meta_rankings: z.object(rankingsInput).strict(),
  get_format_matchup_stats: z.object(matchupInput).strict(),
  get_format_archetypes: z.object(archetypesInput).strict(),
  get_enriched_deck: z.object(enrichedDeckInput).strict(),
  get_deck_matchup_stats: z.object(deckMatchupInput).strict(),
  generate_deck_matchup_strategy: z.object(strategyInput).strict(),
  optimize_mainboard: z.object(optimizeInput).strict(),
  optimize_sideboard: z.object(optimizeInput).strict(),
};
export type MetaMessages = { [T in keyof typeof messages]: z.infer<(typeof messages)[T]> };

const Narration = z.object({ provider: z.string(), model: z.string().nullable(), offline: z.boolean() });
const Matchup = z.object({ win_rate: z.number().nullable(), match_count: z.number().int(), wins: z.number().int(), losses: z.number().int(), draws: z.number().int() });
const Adoption = z.object({ name: z.string(), decks_pct: z.number(), average_copies: z.number() });

const rankingRow = z.object({
  archetype: z.string().optional(),
  id: z.string().optional(),
  archetypes: z.array(z.string()).optional(),
  color_identity: z.string(),
  meta_share_current: z.number(),
  meta_share_previous: z.number(),
  meta_share_change: z.number(),
  sample_size_current: z.number().int(),
  sample_size_previous: z.number().int(),
  win_rate_current: z.number().nullable(),
  win_rate_previous: z.number().nullable(),
  match_count_current: z.number().int(),
  match_count_previous: z.number().int(),
});

const archetypeEntry = z.object({ id: z.string(), name: z.string(), meta_share: z.number(), color_identity: z.string() });

export const outputs = {
  get_format_meta_rankings: {
    data: z.array(rankingRow),
    metadata: z.object({
      format: z.string(),
      group_by: z.string(),
      color_identity: z.string().nullable(),
      current_period: WindowShape.extend({ decks: z.number().int(), matches: z.number().int() }),
      previous_period: WindowShape.extend({ decks: z.number().int(), matches: z.number().int() }),
      newest_tournament: z.string(),
      min_matches_for_win_rate: z.number().int(),
      timestamp: z.string(),
    }),
  },
  get_format_matchup_stats: {
    matrix: z.record(z.string(), z.record(z.string(), z.object({ win_rate: z.number().nullable(), match_count: z.number().int() }))),
    archetypes: z.array(z.string()),
    metadata: z.object({ format: z.string(), days: z.number().int(), period: WindowShape, matches: z.number().int(), newest_tournament: z.string(), min_matches_for_win_rate: z.number().int() }),
  },
  get_format_archetypes: {
    format: z.string(),
    archetypes: z.array(archetypeEntry),
    metadata: z.object({ days: z.number().int(), period: WindowShape, decks: z.number().int(), newest_tournament: z.string() }),
  },
  get_enriched_deck: {
    card_details: z.array(CardDetail.required()),
    mainboard_count: z.number().int(),
    sideboard_count: z.number().int(),
    unmatched: z.array(z.object({ name: z.string(), quantity: z.number().int(), section: Section, line: z.number().int(), suggestions: z.array(z.string()) })),
    errors: z.array(z.string()),
  },
  get_deck_matchup_stats: {
    archetype: z.string(),
    format: z.string(),
    days: z.number().int(),
    matchup_stats: z.array(Matchup.extend({ opponent_archetype: z.string() })),
    overall: Matchup,
    metadata: z.object({ period: WindowShape, newest_tournament: z.string(), min_matches_for_win_rate: z.number().int() }),
  },
  generate_deck_matchup_strategy: {
    archetype: z.string(),
    opponent_archetype: z.string(),
    format: z.string(),
    matchup_stats: z.object({ win_rate: z.number().nullable(), match_count: z.number().int(), source: z.enum(['caller', 'data']) }),
    opponent_profile: z.object({ lists: z.number().int(), key_cards: z.array(Adoption), sideboard_cards: z.array(Adoption) }),
    your_key_cards: z.array(z.object({ name: z.string(), quantity: z.number().int(), decks_pct: z.number().nullable() })),
    advice: z.string(),
    narrator: Narration,
    metadata: z.object({ period: WindowShape, newest_tournament: z.string() }),
  },
  optimize_mainboard: {
    archetype: z.string(),
    format: z.string(),
    deck_colors: z.string(),
    top_archetypes: z.array(z.object({ archetype: z.string(), meta_share: z.number(), matchup: Matchup })),
    flex_spots: z.array(z.object({ name: z.string(), quantity: z.number().int(), decks_pct: z.number(), reason: z.string() })),
    recommendations: z.array(
      z.object({
        add: z.string(),
        quantity: z.number().int(),
        replaces: z.string().nullable(),
        mana_cost: z.string().nullable(),
        type_line: z.string().nullable(),
        color_identity: z.array(z.string()),
        archetype_decks_pct: z.number(),
        top_archetypes_decks_pct: z.number(),
        reason: z.string(),
      }),
    ),
    explanation: z.string(),
    narrator: Narration,
    metadata: z.object({ period: WindowShape, archetype_lists: z.number().int(), newest_tournament: z.string() }),
  },
  optimize_sideboard: {
    archetype: z.string(),
    format: z.string(),
    deck_colors: z.string(),
    sideboard_changes: z.array(z.object({ action: z.enum(['add', 'remove', 'adjust']), card: z.string(), from: z.number().int(), to: z.number().int(), reason: z.string() })),
    sideboard_plans: z.array(
      z.object({
        opponent_archetype: z.string(),
        meta_share: z.number(),
        matchup: Matchup,
        their_key_cards: z.array(Adoption),
        their_sideboard_cards: z.array(Adoption),
        bring_in: z.array(z.string()),
        evidence: z.array(
          z.object({ card: z.string(), matches_with: z.number().int(), win_rate_with: z.number().nullable(), matches_without: z.number().int(), win_rate_without: z.number().nullable() }),
        ),
      }),
    ),
    final_sideboard: z.array(z.object({ name: z.string(), quantity: z.number().int() })),
    explanation: z.string(),
    narrator: Narration,
    metadata: z.object({ period: WindowShape, archetype_lists: z.number().int(), newest_tournament: z.string() }),
  },
};

const tool = <I extends z.ZodRawShape>(
  name: keyof typeof outputs,
  title: string,
  description: string,
  input: I,
): ToolContract => ({
  name,
  title,
  description,
  input,
  output: outputs[name],
  toMessage: (args) => ({ actorId: 'service', type: name, payload: args }),
});

export const tools: ToolContract[] = [
  tool(
    'get_format_meta_rankings',
    'Format meta rankings',
    'Archetype rankings for a format: meta share and sample size in the current window and in the previous window just before it, win rate and match count in each (draws excluded, null below 3 matches), sorted by current share. Optional colour-identity filter and grouping by colour identity. Windows end at the newest tournament in the data.',
    rankingsInput,
  ),
  tool(
    'get_format_matchup_stats',
    'Format matchup matrix',
    'Head-to-head matrix of a format: for each pair of archetypes the row archetype\'s win rate against the column archetype and the match count (win rate null below 3 matches), plus the archetype list, most matches first.',
    matchupInput,
  ),
  tool('get_format_archetypes', 'Format archetypes', 'The archetypes of a format in a window with id, name, meta share and colour identity, sorted by meta share.', archetypesInput),
  tool(
    'get_enriched_deck',
    'Parse and enrich a deck list',
    'Parses deck list text as people paste it (MTGO, Arena, Moxfield exports) and returns every card with mana cost, mana value, type line, colours, colour identity, quantity and section, the main and sideboard counts, and the names it could not match with close suggestions.',
    enrichedDeckInput,
  ),
  tool('get_deck_matchup_stats', 'Deck matchup stats', 'One archetype\'s record against every other archetype of the format in a window, sorted by match count.', deckMatchupInput),
  tool(
    'generate_deck_matchup_strategy',
    'Matchup strategy',
    'Coaching for one matchup: the opponent\'s most played main-deck and sideboard cards in recent lists, your record against them, your key cards, and advice written by the configured language model from those facts.',
    strategyInput,
  ),
  tool(
    'optimize_mainboard',
    'Optimise the main deck',
    'Finds flex spots in your main deck (cards few lists of your archetype play) and recommends replacements played in your archetype and by the top archetypes, all from the data and in your colours, with an explanation.',
    optimizeInput,
  ),
  tool(
    'optimize_sideboard',
    'Optimise the sideboard',
    'Suggests sideboard changes against the most played archetypes from the sideboards of your archetype\'s recent lists, with a plan per top archetype and a final sideboard of exactly 15 cards.',
    optimizeInput,
  ),
];

export const http: HttpRouteContract[] = [
  {
    method: 'GET',
    path: '/formats',
    description: 'The constructed formats in the data, sorted.',
    query: {},
    toMessage: () => ({ actorId: 'service', type: 'list_formats', payload: {} }),
  },
  {
    method: 'GET',
    path: '/archetypes',
    description: 'The archetypes of a format, by meta share.',
    query: {
      format: z.string({ error: (issue) => (issue.input === undefined ? 'format is required' : 'format must be a string') }).trim().min(1, 'format is required').max(60),
      days: z.coerce.number().int().min(1).max(365).default(DEFAULT_DAYS),
    },
    toMessage: ({ query }) => ({ actorId: 'service', type: 'get_format_archetypes', payload: query }),
  },
];

/** What an agent reads before it analyses a format: its rankings over the default windows. */
export const resources: ResourceContract[] = [
  {
    name: 'meta-rankings',
    title: 'Format meta rankings',
    description: `A format's archetype rankings (meta share, win rate, trend) over the last ${DEFAULT_DAYS} days and the ${DEFAULT_DAYS} before, as get_format_meta_rankings answers (meta://{format}/rankings, e.g. meta://Modern/rankings).`,
    uriTemplate: 'meta://{format}/rankings',
    toMessage: (variables) => ({ actorId: 'service', type: 'get_format_meta_rankings', payload: { format: variables.format } }),
  },
];

export const prompts: PromptContract[] = [
  {
    name: 'analyse_meta',
    title: 'Analyse the meta of a format',
    description: 'A meta report for one format from real tournament data: the top archetypes, what is rising or falling, and the key matchups.',
    args: { format: Format.describe('Format name, e.g. "Modern"') },
    text: ({ format }) =>
      `Analyse the ${format} meta from the tournament data. Read the rankings with get_format_meta_rankings (current and previous windows) ` +
      'and the matchup matrix with get_format_matchup_stats. Report the top archetypes with their meta share and win rate, which are rising ' +
      'or falling between the windows, the most lopsided matchups among the top archetypes (with match counts, so small samples show), and ' +
      'what a player should expect to face this week. Quote numbers from the tools; do not guess.',
  },
  {
    name: 'review_deck',
    title: 'Review my deck',
    description: 'A review of your deck list against the current meta: matchups, main deck flex spots and sideboard changes.',
    args: {
      format: Format.describe('Format name, e.g. "Modern"'),
      deck: z.string().min(1).max(100_000).describe('Your deck list as exported by MTGO, Arena or Moxfield'),
      archetype: Archetype.optional().describe('Your archetype, if you know it (e.g. "Boros Energy")'),
    },
    text: ({ format, deck, archetype }) =>
      `Review my ${format} deck${archetype ? ` (${archetype})` : ''} against the current meta. Parse it with get_enriched_deck; ` +
      `${archetype ? '' : 'work out its archetype from get_format_archetypes; '}` +
      'read its matchups with get_deck_matchup_stats, then use optimize_mainboard and optimize_sideboard for concrete changes, and ' +
      'generate_deck_matchup_strategy for the hardest common matchup. Give the changes as cards in and out with counts, and say why ' +
      `with numbers from the tools.\n\nMy deck:\n${deck}`,
  },
];
