/**
 * Which tools a turn calls, and the spec's blocking dependencies between them. The offline policy
 * proposes calls from the message; a model proposes them by tool calling; either way `gate` decides
 * what may run, stopping at the first missing input (format, then the time window, the deck, the
 * archetype, the opponent) and fetching matchup_stats before a strategy. Arguments that the session
 * holds (format, days, archetype, card_details, matchup_stats, top_n) always come from the state,
 * never from the proposer. Pure.
 */
import { archetypesIn, coachingToolFor, metaToolFor, namesTopArchetype } from './intent.js';
import type { ConversationState, Workflow } from './state.js';
import type { MetaToolName } from './tool-prose.js';

export interface ToolCall {
  tool: MetaToolName;
  /** Arguments the proposer chose (e.g. an opponent, a colour filter); session fields are filled later. */
  args: Record<string, unknown>;
  /**
   * An opponent to find when the call runs, from results that may arrive earlier in the same turn:
   * the meta's leader, or the archetype a message names.
   */
  opponent?: { top: true } | { namedIn: string };
}

export type Missing = 'format' | 'current_days' | 'deck' | 'archetype' | 'opponent';

export interface Block {
  missing: Missing;
  /** The tool that could not run. */
  tool: MetaToolName | null;
  /** Values to offer (formats, archetypes). */
  suggestions: string[];
}

export interface Gated {
  /** Calls that may run, in order (prerequisites inserted). */
  calls: ToolCall[];
  /** Why the rest may not, if anything was held back. */
  block: Block | null;
}

export const META_TOOLS: ReadonlySet<MetaToolName> = new Set(['get_format_meta_rankings', 'get_format_matchup_stats', 'get_format_archetypes']);
const NEEDS_DECK: ReadonlySet<MetaToolName> = new Set(['generate_deck_matchup_strategy', 'optimize_mainboard', 'optimize_sideboard']);
const NEEDS_ARCHETYPE: ReadonlySet<MetaToolName> = new Set(['get_deck_matchup_stats', ...NEEDS_DECK]);
/** Session fields a proposer never sets: they come from the state (see argsFor). */
export const SESSION_ARGS = ['format', 'current_days', 'previous_days', 'days', 'archetype', 'card_details', 'matchup_stats', 'top_n'] as const;


/** What a turn's calls will have provided by the time a later call runs. */
interface Provided {
  deck: boolean;
  matchups: boolean;
}

export function gate(state: ConversationState, proposed: ToolCall[], formats: readonly string[]): Gated {
  if (proposed.length === 0) return { calls: [], block: null };
  if (!state.format) return { calls: [], block: { missing: 'format', tool: proposed[0]!.tool, suggestions: [...formats] } };
  const calls: ToolCall[] = [];
  const provided: Provided = { deck: state.card_details !== null, matchups: matchupsFit(state) };
  for (const call of proposed) {
    const block = blockOf(state, call, provided);
    if (block) return { calls, block };
    if (call.tool === 'generate_deck_matchup_strategy' && !provided.matchups) {
      calls.push({ tool: 'get_deck_matchup_stats', args: {} });
      provided.matchups = true;
    }
    calls.push(call);
    if (call.tool === 'get_enriched_deck') provided.deck = true;
    if (call.tool === 'get_deck_matchup_stats') provided.matchups = true;
  }
  return { calls, block: null };
}

function blockOf(state: ConversationState, call: ToolCall, provided: Provided): Block | null {
  const { tool } = call;
  if ((tool === 'get_format_meta_rankings' || tool === 'get_format_matchup_stats') && state.current_days === null) {
    return { missing: 'current_days', tool, suggestions: ['14', '30', '60'] };
  }
  if (NEEDS_DECK.has(tool) && !provided.deck) return { missing: 'deck', tool, suggestions: [] };
  if (NEEDS_ARCHETYPE.has(tool) && !state.archetype) return { missing: 'archetype', tool, suggestions: archetypeSuggestions(state) };
  if (NEEDS_ARCHETYPE.has(tool) && state.current_days === null) return { missing: 'current_days', tool, suggestions: ['14', '30', '60'] };
  if (tool === 'generate_deck_matchup_strategy' && typeof call.args.opponent_archetype !== 'string' && !call.opponent) {
    return { missing: 'opponent', tool, suggestions: archetypeSuggestions(state).filter((a) => a !== state.archetype) };
  }
  return null;
}

/** Archetypes to offer: the last meta results' leaders first (the spec's meta-informed dropdown), then the rest known. */
export function archetypeSuggestions(state: ConversationState): string[] {
  const fromMeta = state.meta?.format === state.format ? state.meta.top.map((a) => a.name) : [];
  const known = state.known_archetypes?.format === state.format ? state.known_archetypes.names : [];
  return [...new Set([...fromMeta, ...known])].slice(0, 12);
}

const matchupsFit = (state: ConversationState) =>
  state.matchup_stats !== null && state.matchup_stats.archetype === state.archetype && state.matchup_stats.format === state.format && state.matchup_stats.days === state.current_days;

/**
 * How many top archetypes the optimizers target: those holding at least 4% of the last meta results
 * (the decks you will actually meet), 3 to 8; 5 without meta results.
 */
export function topNFor(state: ConversationState): number {
  if (!state.meta || state.meta.format !== state.format) return 5;
  const relevant = state.meta.top.filter((a) => a.meta_share >= 4).length;
  return Math.min(8, Math.max(3, relevant));
}

/** The call's opponent, found in the state as it is when the call runs. */
function opponentOf(state: ConversationState, call: ToolCall): string | undefined {
  if (typeof call.args.opponent_archetype === 'string') return call.args.opponent_archetype;
  if (!call.opponent) return undefined;
  if ('top' in call.opponent) return state.meta?.format === state.format ? state.meta.top.find((a) => a.name !== state.archetype)?.name : undefined;
  return archetypesIn(call.opponent.namedIn, knownNames(state)).find((a) => a.toLowerCase() !== state.archetype?.toLowerCase());
}

/** The call's arguments as it runs: the proposer's own choices plus the session's fields. */
export function argsFor(state: ConversationState, call: ToolCall): { args: Record<string, unknown> } | { missing: Missing } {
  const args = sessionArgs(state, call);
  return args === undefined ? { missing: 'opponent' } : { args };
}

function sessionArgs(state: ConversationState, call: ToolCall): Record<string, unknown> | undefined {
  const own = Object.fromEntries(Object.entries(call.args).filter(([key]) => !(SESSION_ARGS as readonly string[]).includes(key)));
  const days = state.current_days ?? 30;
  switch (call.tool) {
    case 'get_format_meta_rankings':
      return { ...own, format: state.format, current_days: days, previous_days: state.previous_days ?? days };
    case 'get_format_matchup_stats':
    case 'get_format_archetypes':
      return { format: state.format, days };
    case 'get_enriched_deck':
      return { deck: typeof own.deck === 'string' && own.deck.trim() ? own.deck : state.deck_text };
    case 'get_deck_matchup_stats':
      return { archetype: state.archetype, format: state.format, days };
    case 'generate_deck_matchup_strategy': {
      const opponent = opponentOf(state, call);
      if (!opponent) return undefined;
      const row = matchupsFit(state) ? state.matchup_stats!.rows.find((r) => r.opponent_archetype.toLowerCase() === opponent.toLowerCase()) : undefined;
      return {
        card_details: state.card_details,
        archetype: state.archetype,
        opponent_archetype: opponent,
        format: state.format,
        days,
        ...(row ? { matchup_stats: { win_rate: row.win_rate, match_count: row.match_count } } : {}),
      };
    }
    case 'optimize_mainboard':
    case 'optimize_sideboard':
      return { card_details: state.card_details, archetype: state.archetype, format: state.format, days, top_n: topNFor(state) };
  }
}

/**
 * The deterministic policy (no model): the tools a message asks for. A deck in the message is parsed
 * first; a strategy's opponent is the archetype the message names, or the meta's leader when it asks
 * about "the top deck" (fetching the meta first if this format's is not known yet).
 */
export function offlinePlan(state: ConversationState, message: string, workflow: Workflow, deckGiven: boolean): ToolCall[] {
  if (workflow === 'meta_research') return [{ tool: metaToolFor(message), args: {} }];
  if (workflow !== 'deck_coaching') return [];
  const calls: ToolCall[] = deckGiven ? [{ tool: 'get_enriched_deck', args: {} }] : [];
  const tool = coachingToolFor(message) ?? (deckGiven ? undefined : state.card_details ? 'get_deck_matchup_stats' : 'optimize_mainboard');
  if (!tool) return calls;
  if (tool !== 'generate_deck_matchup_strategy') return [...calls, { tool, args: {} }];
  if (namesTopArchetype(message)) {
    const metaKnown = state.meta?.format === state.format && state.meta.days === state.current_days;
    return [...calls, ...(metaKnown ? [] : [{ tool: 'get_format_meta_rankings' as const, args: {} }]), { tool, args: {}, opponent: { top: true } }];
  }
  // Archetype names are learnt from the tools: fetch this format's list first if it is not known yet.
  const namesKnown = state.known_archetypes?.format === state.format;
  return [...calls, ...(namesKnown ? [] : [{ tool: 'get_format_archetypes' as const, args: {} }]), { tool, args: {}, opponent: { namedIn: message } }];
}

export const knownNames = (state: ConversationState) =>
  [...(state.known_archetypes?.format === state.format ? state.known_archetypes.names : []), ...(state.meta?.format === state.format ? state.meta.top.map((a) => a.name) : [])];
