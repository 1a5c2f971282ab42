/**
 * The retrieval queries of a run (spec FR-03): the three required ones, the user's hints and edit
 * feedback, then the sport's defaults, near-duplicates dropped and capped at six so that what the
 * user asked for is never crowded out by defaults. Pure.
 */
import { LIMITS, type Sport } from './schemas.js';

/** Sport-specific query suffixes (spec FR-03). */
export const SPORT_QUERIES: Record<Sport, string[]> = {
  nba: ['shooting percentage', 'defensive rating'],
  football: ['passing yards', 'completion rate'],
  unknown: [],
};

/** Two queries whose token sets overlap at least this much (Jaccard) are the same query. */
export const SAME_QUERY_JACCARD = 0.8;

const FILLER = new Set(
  (
    'a an the and or of for on in at to with about his her their its is are was be more less please add include including also focus ' +
    'detail details detailed info information report section talk mention want need should could would some any it this that me my ' +
    'than then there what how why when who much many very really just like make sure tell give show write say explain describe cover look'
  ).split(' '),
);

/** An English plural folded to its singular, roughly: "weaknesses", "percentages", "injuries". */
function singular(word: string): string {
  if (word.length <= 3 || !word.endsWith('s') || word.endsWith('ss')) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(?:ss|sh|ch|x)es$/.test(word)) return word.slice(0, -2);
  return word.slice(0, -1);
}

/** Lower-cased word tokens, plurals folded, so "Weaknesses"/"weakness" and "stats"/"stat" match. */
export function queryTokens(query: string): Set<string> {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
  return new Set(words.map(singular));
}

export function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const token of a) if (b.has(token)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/** The feedback's key terms: words that are neither filler nor the player's name, in order, at most five. */
export function feedbackTerms(feedback: string, player_name: string): string[] {
  const nameTokens = queryTokens(player_name);
  const words = feedback.slice(0, LIMITS.feedbackChars).toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
  const terms: string[] = [];
  for (const word of words) {
    if (word.length < 3 || FILLER.has(word) || nameTokens.has(singular(word)) || terms.includes(word)) continue;
    terms.push(word);
  }
  return terms.slice(0, 5);
}

const withName = (name: string, text: string): string => (text.toLowerCase().includes(name.toLowerCase()) ? text : `${name} ${text}`);

/** 3–6 distinct queries, in priority order: required, feedback, hints, sport defaults. */
export function buildQueries(input: { player_name: string; sport: Sport; query_hints: string[]; feedback?: string }): string[] {
  const name = input.player_name.trim();
  const terms = input.feedback ? feedbackTerms(input.feedback, name) : [];
  const candidates = [
    name,
    `${name} strengths weaknesses`,
    `${name} height weight position`,
    ...(terms.length ? [`${name} ${terms.join(' ')}`] : []),
    ...input.query_hints.map((hint) => hint.replace(/\s+/g, ' ').trim()).filter(Boolean).map((hint) => withName(name, hint)),
    ...SPORT_QUERIES[input.sport].map((suffix) => `${name} ${suffix}`),
  ];
  const chosen: { query: string; tokens: Set<string> }[] = [];
  for (const query of candidates) {
    if (chosen.length === LIMITS.maxQueries) break;
    const tokens = queryTokens(query);
    if (chosen.some((other) => jaccard(tokens, other.tokens) >= SAME_QUERY_JACCARD)) continue;
    chosen.push({ query, tokens });
  }
  return chosen.map((c) => c.query);
}

/** 1 − the mean pairwise Jaccard similarity (0 for fewer than two queries), rounded for the trace. */
export function diversificationScore(queries: string[]): number {
  const sets = queries.map(queryTokens);
  let total = 0;
  let pairs = 0;
  for (let i = 0; i < sets.length; i += 1) {
    for (let j = i + 1; j < sets.length; j += 1) {
      total += jaccard(sets[i]!, sets[j]!);
      pairs += 1;
    }
  }
  return pairs === 0 ? 0 : Math.round((1 - total / pairs) * 1000) / 1000;
}
