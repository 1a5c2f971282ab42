/**
 * What a tool result teaches the conversation (the spec's state persistence): a parsed deck becomes
 * card_details, a deck's matchups become matchup_stats, meta results remember the leaders (for
 * archetype suggestions and top_n) and the format's archetype names. Pure; results come over the
 * network, so every field is checked before it is kept.
 */
import type { CardDetail } from '../meta/contract.js';
import type { ConversationState } from './state.js';
import type { MetaToolName } from './tool-prose.js';

type Fields = Record<string, unknown>;
const fields = (v: unknown): Fields => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Fields) : {});
const rows = (v: unknown): Fields[] => (Array.isArray(v) ? v.map(fields) : []);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function applyToolResult(state: ConversationState, tool: MetaToolName, args: Fields, result: unknown): ConversationState {
  const r = fields(result);
  switch (tool) {
    case 'get_enriched_deck': {
      const cards = rows(r.card_details).filter((c) => text(c.name) && num(c.quantity)) as unknown as CardDetail[];
      if (cards.length === 0) return state;
      // A new deck: its matchups are to be fetched again.
      return { ...state, card_details: cards, deck_text: text(args.deck) ?? state.deck_text, matchup_stats: null };
    }
    case 'get_deck_matchup_stats': {
      const archetype = text(r.archetype);
      const format = text(r.format);
      const days = num(r.days);
      if (!archetype || !format || days === undefined) return state;
      const matchups = rows(r.matchup_stats)
        .filter((row) => text(row.opponent_archetype))
        .map((row) => ({ opponent_archetype: row.opponent_archetype as string, win_rate: num(row.win_rate) ?? null, match_count: num(row.match_count) ?? 0 }));
      return { ...state, archetype, matchup_stats: { archetype, format, days, rows: matchups } };
    }
    case 'get_format_meta_rankings': {
      const metadata = fields(r.metadata);
      const format = text(metadata.format);
      const days = num(fields(metadata.current_period).days);
      if (!format || days === undefined || text(metadata.group_by) === 'color_identity') return state;
      const top = rows(r.data)
        .filter((row) => text(row.archetype) && num(row.meta_share_current) !== undefined)
        .map((row) => ({ name: row.archetype as string, meta_share: row.meta_share_current as number }));
      return { ...state, meta: { format, days, top }, known_archetypes: { format, names: top.map((a) => a.name) } };
    }
    case 'get_format_archetypes': {
      const format = text(r.format);
      const names = rows(r.archetypes).map((a) => text(a.name)).filter((n): n is string => n !== undefined);
      return format ? { ...state, known_archetypes: { format, names } } : state;
    }
    case 'get_format_matchup_stats': {
      const format = text(fields(r.metadata).format);
      const names = Array.isArray(r.archetypes) ? r.archetypes.filter((n): n is string => typeof n === 'string') : [];
      return format && names.length ? { ...state, known_archetypes: { format, names } } : state;
    }
    default:
      return state;
  }
}
