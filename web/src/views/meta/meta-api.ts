/**
 * The meta service as the web client reaches it: its eight tools are messages to the stateless `meta`
 * service (`POST /services/meta/messages {type, payload}` answers `{reply}`), and the dropdowns read
 * `GET /formats` and `GET /archetypes` (actors/meta/contract.ts). The shapes are the tools' outputs.
 */
import { api } from '../../api.js';

export interface Period {
  start: string;
  end: string;
  days: number;
}

export interface RankingRow {
  archetype: string;
  id: string;
  color_identity: string;
  meta_share_current: number;
  meta_share_previous: number;
  meta_share_change: number;
  sample_size_current: number;
  sample_size_previous: number;
  win_rate_current: number | null;
  win_rate_previous: number | null;
  match_count_current: number;
  match_count_previous: number;
}

export interface Rankings {
  data: RankingRow[];
  metadata: {
    format: string;
    current_period: Period & { decks: number; matches: number };
    previous_period: Period & { decks: number; matches: number };
    newest_tournament: string;
    min_matches_for_win_rate: number;
  };
}

export interface MatchupCell {
  win_rate: number | null;
  match_count: number;
}

export interface MatchupMatrix {
  matrix: Record<string, Record<string, MatchupCell>>;
  /** Most matches first. */
  archetypes: string[];
  metadata: { format: string; days: number; period: Period; matches: number; min_matches_for_win_rate: number };
}

export interface ArchetypeEntry {
  id: string;
  name: string;
  meta_share: number;
  color_identity: string;
}

export interface MatchRecord {
  win_rate: number | null;
  match_count: number;
  wins: number;
  losses: number;
  draws: number;
}

export interface DeckMatchups {
  archetype: string;
  format: string;
  days: number;
  matchup_stats: Array<MatchRecord & { opponent_archetype: string }>;
  overall: MatchRecord;
  metadata: { period: Period; min_matches_for_win_rate: number };
}

export interface CardDetail {
  name: string;
  quantity: number;
  section: 'mainboard' | 'sideboard';
  mana_cost: string | null;
  mana_value: number | null;
  type_line: string | null;
  colors: string[];
  color_identity: string[];
  oracle_text: string | null;
}

export interface EnrichedDeck {
  card_details: CardDetail[];
  mainboard_count: number;
  sideboard_count: number;
  unmatched: Array<{ name: string; quantity: number; section: string; line: number; suggestions: string[] }>;
  errors: string[];
}

export interface Adoption {
  name: string;
  decks_pct: number;
  average_copies: number;
}

export interface Narrator {
  provider: string;
  model: string | null;
  offline: boolean;
}

export interface MatchupStrategy {
  archetype: string;
  opponent_archetype: string;
  format: string;
  matchup_stats: { win_rate: number | null; match_count: number };
  opponent_profile: { lists: number; key_cards: Adoption[]; sideboard_cards: Adoption[] };
  your_key_cards: Array<{ name: string; quantity: number; decks_pct: number | null }>;
  advice: string;
  narrator: Narrator;
}

export interface MainboardAdvice {
  archetype: string;
  format: string;
  deck_colors: string;
  flex_spots: Array<{ name: string; quantity: number; decks_pct: number; reason: string }>;
  recommendations: Array<{ add: string; quantity: number; replaces: string | null; mana_cost: string | null; type_line: string | null; reason: string }>;
  explanation: string;
  narrator: Narrator;
  metadata: { period: Period; archetype_lists: number };
}

export interface SideboardAdvice {
  archetype: string;
  format: string;
  deck_colors: string;
  sideboard_changes: Array<{ action: 'add' | 'remove' | 'adjust'; card: string; from: number; to: number; reason: string }>;
  sideboard_plans: Array<{ opponent_archetype: string; meta_share: number; matchup: MatchRecord; bring_in: string[] }>;
  final_sideboard: Array<{ name: string; quantity: number }>;
  explanation: string;
  narrator: Narrator;
  metadata: { period: Period; archetype_lists: number };
}

/** One meta tool call; the gateway turns a tool error into an HTTP error with the tool's message. */
export async function metaTool<T>(type: string, payload: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
  const answer = await api<{ reply: T }>('/services/meta/messages', { body: { type, payload }, signal });
  return answer.reply;
}

export async function fetchFormats(signal?: AbortSignal): Promise<string[]> {
  return (await api<{ formats: string[] }>('/formats', { signal })).formats;
}

export async function fetchArchetypes(format: string, days: number, signal?: AbortSignal): Promise<ArchetypeEntry[]> {
  const query = new URLSearchParams({ format, days: String(days) });
  return (await api<{ archetypes: ArchetypeEntry[] }>(`/archetypes?${query}`, { signal })).archetypes;
}

export const fetchRankings = (format: string, currentDays: number, previousDays: number, signal?: AbortSignal) =>
  metaTool<Rankings>('get_format_meta_rankings', { format, current_days: currentDays, previous_days: previousDays }, signal);

export const fetchMatchupMatrix = (format: string, days: number, signal?: AbortSignal) =>
  metaTool<MatchupMatrix>('get_format_matchup_stats', { format, days }, signal);

export const fetchDeckMatchups = (format: string, archetype: string, days: number, signal?: AbortSignal) =>
  metaTool<DeckMatchups>('get_deck_matchup_stats', { format, archetype, days }, signal);
