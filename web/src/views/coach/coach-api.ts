/**
 * The deck coach's HTTP surface as the view uses it: the conversations (GET /welcome, GET /conversations,
 * GET and DELETE /conversations/:id) and the dropdowns' data (GET /formats, GET /archetypes). The chat
 * turn itself is an SSE stream (see chat-turn.ts).
 */
import { api } from '../../api.js';

/** The conversation state a UI syncs its controls to (the `state` event, and GET /conversations/:id). */
export interface CoachState {
  format: string | null;
  archetype: string | null;
  current_days: number | null;
  previous_days: number | null;
  has_deck: boolean;
  current_workflow: string | null;
  suggested_archetypes?: string[];
  /** Only in GET /conversations/:id: how many cards the parsed deck has. */
  deck_cards?: number;
}

export const EMPTY_STATE: CoachState = {
  format: null,
  archetype: null,
  current_days: null,
  previous_days: null,
  has_deck: false,
  current_workflow: null,
};

export interface HistoryEntry {
  role: 'user' | 'assistant';
  content: string;
  at: string;
}

export interface ConversationDetail {
  conversation_id: string;
  created_at: string;
  state: CoachState;
  messages: HistoryEntry[];
}

export interface ConversationSummary {
  conversation_id: string;
  created_at: string;
  title: string;
  messages: number;
  format: string | null;
  archetype: string | null;
  has_deck: boolean;
}

export interface Welcome {
  conversation_id: string;
  message: string;
  available_formats: string[];
  tool_count: number;
  mcp_error?: string;
}

export interface ArchetypeOption {
  id: string;
  name: string;
  meta_share: number;
  color_identity: string;
}

const conversationPath = (id: string) => `/conversations/${encodeURIComponent(id)}`;

export const startConversation = () => api<Welcome>('/welcome');

export const loadConversation = (id: string, signal?: AbortSignal) => api<ConversationDetail>(conversationPath(id), { signal });

export const deleteConversation = (id: string) => api<unknown>(conversationPath(id), { method: 'DELETE' });

export const listConversations = (signal?: AbortSignal) =>
  api<{ conversations: ConversationSummary[] }>('/conversations', { signal }).then((answer) => answer.conversations);

export const loadFormats = (signal?: AbortSignal) => api<{ formats: string[] }>('/formats', { signal }).then((answer) => answer.formats);

/** The format's archetypes by meta share in the last `days` days: the order the dropdown shows. */
export const loadArchetypes = (format: string, days: number, signal?: AbortSignal) =>
  api<{ archetypes: ArchetypeOption[] }>(`/archetypes?format=${encodeURIComponent(format)}&days=${days}`, { signal }).then((answer) => answer.archetypes);
