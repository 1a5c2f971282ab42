/**
 * A deck-coach conversation's state: what the actor commits after every turn and what the graph
 * reads and writes (the spec's fields). Plain JSON, so it is stored as it is and fenced like any
 * actor state. Pure: no I/O.
 */
import type { CardDetail } from '../meta/contract.js';

export type Workflow = 'meta_research' | 'deck_coaching' | 'unknown';

/** One line of the visible history. */
export interface ChatEntry {
  role: 'user' | 'assistant';
  content: string;
  at: string;
  /** The message that produced it: a re-run turn replaces nothing, it commits once. */
  message_id: string;
}

export interface ToolInfo {
  name: string;
  description: string;
}

export interface WorkflowInfo {
  name: Workflow;
  description: string;
  example_queries: string[];
  tool_details: ToolInfo[];
}

export interface WelcomeInfo {
  tool_catalog: ToolInfo[];
  available_formats: string[];
  workflows: WorkflowInfo[];
}

/** Your archetype's record against the field (get_deck_matchup_stats), kept for strategies. */
export interface MatchupStats {
  archetype: string;
  format: string;
  days: number;
  rows: Array<{ opponent_archetype: string; win_rate: number | null; match_count: number }>;
}

/** What the last meta research showed: informs archetype suggestions and the optimizers' top_n. */
export interface MetaSnapshot {
  format: string;
  days: number;
  top: Array<{ name: string; meta_share: number }>;
}

export interface ConversationState {
  conversation_id: string;
  created_at: string | null;
  deleted: boolean;
  messages: ChatEntry[];
  format: string | null;
  current_days: number | null;
  previous_days: number | null;
  archetype: string | null;
  deck_text: string | null;
  card_details: CardDetail[] | null;
  matchup_stats: MatchupStats | null;
  current_workflow: Workflow | null;
  meta: MetaSnapshot | null;
  /** Archetype names of the format, from the tools (to recognise them in messages). */
  known_archetypes: { format: string; names: string[] } | null;
  welcome: WelcomeInfo | null;
}

export function initialConversation(id: string): ConversationState {
  return {
    conversation_id: id,
    created_at: null,
    deleted: false,
    messages: [],
    format: null,
    current_days: null,
    previous_days: null,
    archetype: null,
    deck_text: null,
    card_details: null,
    matchup_stats: null,
    current_workflow: null,
    meta: null,
    known_archetypes: null,
    welcome: null,
  };
}

/** A new format: the archetype, matchups and known names belonged to the old one. */
export function switchedFormat(format: string): Partial<ConversationState> {
  return { format, archetype: null, matchup_stats: null, known_archetypes: null };
}

/** The `state` SSE event: what a UI needs to sync its dropdowns and slider. */
export function uiState(state: ConversationState) {
  return {
    conversation_id: state.conversation_id,
    has_deck: state.card_details !== null,
    format: state.format,
    archetype: state.archetype,
    current_days: state.current_days,
    previous_days: state.previous_days ?? state.current_days,
    current_workflow: state.current_workflow,
    suggested_archetypes: state.meta && state.meta.format === state.format ? state.meta.top.slice(0, 8).map((a) => a.name) : [],
  };
}

/** GET /conversations/:id: the state (without the bulky card list) and the history; undefined once deleted. */
export function conversationView(state: ConversationState) {
  if (state.deleted || state.created_at === null) return undefined;
  return {
    conversation_id: state.conversation_id,
    created_at: state.created_at,
    state: {
      ...uiState(state),
      days: state.current_days,
      deck_cards: state.card_details?.reduce((n, c) => n + c.quantity, 0) ?? 0,
      matchup_stats: state.matchup_stats,
      welcome: state.welcome !== null,
    },
    messages: state.messages.map((m) => ({ role: m.role, content: m.content, at: m.at })),
  };
}

/** One line per conversation for GET /conversations. */
export function conversationSummary(state: ConversationState) {
  const first = state.messages.find((m) => m.role === 'user');
  return {
    conversation_id: state.conversation_id,
    created_at: state.created_at,
    title: first ? first.content.slice(0, 80) : '(new conversation)',
    messages: state.messages.length,
    format: state.format,
    archetype: state.archetype,
    has_deck: state.card_details !== null,
  };
}
