/**
 * The format-wide read tools: meta rankings, the matchup matrix, the archetype list and one
 * archetype's matchups. Each resolves the format, fixes its windows from the newest tournament in the
 * data, reads tallies through MetaQueries and does the arithmetic in meta-stats.
 */
import { distance } from 'fastest-levenshtein';
import { RequestError } from '../runtime/contract.js';
import type { MetaMessages } from './contract.js';
import type { MetaQueries } from './meta-queries.js';
import {
  MIN_MATCHES,
  archetypeId,
  archetypeRecords,
  archetypeShares,
  matchupMatrix,
  normalizeColorIdentity,
  winRate,
  type ArchetypeShare,
  type MatchRecord,
  type MatchTally,
} from './meta-stats.js';
import { currentWindow, windowBefore, type TimeWindow } from './time-window.js';

const EMPTY: MatchRecord = { matches: 0, wins: 0, losses: 0, draws: 0 };
const round2 = (value: number) => Math.round(value * 100) / 100;
const matchTotal = (tallies: MatchTally[]) => tallies.reduce((sum, t) => sum + t.count, 0);

export const matchupOf = (record: MatchRecord = EMPTY) => ({
  win_rate: winRate(record),
  match_count: record.matches,
  wins: record.wins,
  losses: record.losses,
  draws: record.draws,
});

/** A format's window ending at the newest tournament: what every format tool starts from. */
export async function formatWindow(queries: MetaQueries, format: string, days: number): Promise<{ format: string; window: TimeWindow; newest: string }> {
  const [resolved, newest] = await Promise.all([queries.resolveFormat(format), queries.newestDay()]);
  return { format: resolved, window: currentWindow(newest, days), newest };
}

/** Suggestions for an unknown archetype; a short list is given whole, a long one only in `details`. */
const ARCHETYPE_SUGGESTIONS = 3;
const LIST_ARCHETYPES_UP_TO = 12;

/** The names closest to what was typed: those containing it (or contained in it) first, then by edit distance. */
function closestArchetypes(names: string[], typed: string): string[] {
  const wanted = typed.trim().toLowerCase();
  return names
    .map((name) => ({ name, contains: name.toLowerCase().includes(wanted) || wanted.includes(name.toLowerCase()), d: distance(name.toLowerCase(), wanted) }))
    .sort((a, b) => Number(b.contains) - Number(a.contains) || a.d - b.d)
    .slice(0, ARCHETYPE_SUGGESTIONS)
    .map((candidate) => candidate.name);
}

/**
 * The archetype as the data names it (by name or id, case-insensitive); otherwise not_found with the
 * three closest names, and every valid one in `details.valid` (in the message too when there are few).
 */
export async function resolveArchetype(queries: MetaQueries, format: string, archetype: string): Promise<string> {
  const names = await queries.archetypeNames(format);
  const wanted = archetype.trim().toLowerCase();
  const found = names.find((name) => name.toLowerCase() === wanted) ?? names.find((name) => archetypeId(name) === archetypeId(archetype));
  if (found) return found;
  const close = closestArchetypes(names, archetype).map((n) => `'${n}'`);
  const hint = close.length ? ` Did you mean ${close.length > 1 ? `${close.slice(0, -1).join(', ')} or ${close.at(-1)}` : close[0]}?` : '';
  const all = names.length <= LIST_ARCHETYPES_UP_TO ? ` Valid archetypes: ${names.join(', ')}` : ` All ${names.length} are in details.valid and GET /archetypes?format=${format}.`;
  throw new RequestError('not_found', `unknown ${format} archetype '${archetype}'.${hint}${all}`, { valid: names });
}

export async function metaRankings(queries: MetaQueries, args: MetaMessages['get_format_meta_rankings']) {
  const { format, window: current, newest } = await formatWindow(queries, args.format, args.current_days);
  const previous = windowBefore(current, args.previous_days);
  const colorFilter = args.color_identity === undefined ? null : normalizeColorIdentity(args.color_identity);
  if (colorFilter === undefined) {
    throw new RequestError('bad_request', `color_identity '${args.color_identity}' is not a colour combination: use letters from WUBRG (e.g. "UR") or "C" for colourless`);
  }
  const [[decksNow, decksBefore], [matchesNow, matchesBefore]] = await Promise.all([
    queries.deckTallies(format, [current, previous]),
    queries.matchTallies(format, [current, previous]),
  ]);
  const sharesNow = new Map(archetypeShares(decksNow).map((s) => [s.archetype, s]));
  const sharesBefore = new Map(archetypeShares(decksBefore).map((s) => [s.archetype, s]));

  // An archetype's colour identity: from the current window, else the previous one.
  const colorOf = (archetype: string) => (sharesNow.get(archetype) ?? sharesBefore.get(archetype))!.color_identity;
  const archetypes = [...new Set([...sharesNow.keys(), ...sharesBefore.keys()])].filter((a) => colorFilter === null || colorOf(a) === colorFilter);

  const groupKey = (archetype: string) => (args.group_by === 'color_identity' ? colorOf(archetype) : archetype);
  const groups = new Map<string, string[]>();
  for (const archetype of archetypes) (groups.get(groupKey(archetype)) ?? groups.set(groupKey(archetype), []).get(groupKey(archetype))!).push(archetype);

  const sum = (members: string[], shares: Map<string, ArchetypeShare>) => members.reduce((acc, a) => ({ decks: acc.decks + (shares.get(a)?.decks ?? 0), share: acc.share + (shares.get(a)?.meta_share ?? 0) }), { decks: 0, share: 0 });
  // Records per row, with each archetype named by its row: a match between two archetypes of one colour
  // group is that group's mirror, left out like any mirror (adding the members' records would count it twice).
  const rowOf = new Map(archetypes.map((a) => [a, groupKey(a)]));
  const byRow = (tallies: MatchTally[]): MatchTally[] =>
    tallies.map((t) => ({ ...t, deck1: t.deck1 === null ? null : (rowOf.get(t.deck1) ?? `\0${t.deck1}`), deck2: t.deck2 === null ? null : (rowOf.get(t.deck2) ?? `\0${t.deck2}`) }));
  const recordsNow = archetypeRecords(byRow(matchesNow));
  const recordsBefore = archetypeRecords(byRow(matchesBefore));

  const data = [...groups].map(([key, members]) => {
    const now = sum(members, sharesNow);
    const before = sum(members, sharesBefore);
    const recordNow = recordsNow.get(key) ?? EMPTY;
    const recordBefore = recordsBefore.get(key) ?? EMPTY;
    const identity = args.group_by === 'color_identity' ? { archetypes: members, color_identity: key } : { archetype: key, id: archetypeId(key), color_identity: colorOf(key) };
    return {
      ...identity,
      meta_share_current: round2(now.share),
      meta_share_previous: round2(before.share),
      meta_share_change: round2(now.share - before.share),
      sample_size_current: now.decks,
      sample_size_previous: before.decks,
      win_rate_current: winRate(recordNow),
      win_rate_previous: winRate(recordBefore),
      match_count_current: recordNow.matches,
      match_count_previous: recordBefore.matches,
    };
  });
  data.sort((a, b) => b.sample_size_current - a.sample_size_current || b.sample_size_previous - a.sample_size_previous || groupName(a).localeCompare(groupName(b)));

  const count = (tallies: { count: number }[]) => tallies.reduce((n, t) => n + t.count, 0);
  return {
    data,
    metadata: {
      format,
      group_by: args.group_by,
      color_identity: colorFilter,
      current_period: { ...current, decks: count(decksNow), matches: count(matchesNow) },
      previous_period: { ...previous, decks: count(decksBefore), matches: count(matchesBefore) },
      newest_tournament: newest,
      min_matches_for_win_rate: MIN_MATCHES,
      timestamp: new Date().toISOString(),
    },
  };
}

const groupName = (row: { archetype?: string; color_identity: string }) => row.archetype ?? row.color_identity;

export async function formatMatchups(queries: MetaQueries, args: MetaMessages['get_format_matchup_stats']) {
  const { format, window, newest } = await formatWindow(queries, args.format, args.days);
  const [tallies] = await queries.matchTallies(format, [window]);
  const matrix = matchupMatrix(tallies);
  // Archetypes with at least one match against a known deck, most matches first.
  const played = new Map([...matrix].map(([row, cells]) => [row, [...cells.values()].reduce((n, r) => n + r.matches, 0)]));
  const archetypes = [...matrix.keys()].sort((a, b) => played.get(b)! - played.get(a)! || a.localeCompare(b));
  const table: Record<string, Record<string, { win_rate: number | null; match_count: number }>> = {};
  for (const row of archetypes) {
    const cells = matrix.get(row)!;
    table[row] = {};
    for (const column of archetypes) {
      const record = cells.get(column);
      if (record) table[row][column] = { win_rate: winRate(record), match_count: record.matches };
    }
  }
  return {
    matrix: table,
    archetypes,
    metadata: { format, days: args.days, period: window, matches: matchTotal(tallies), newest_tournament: newest, min_matches_for_win_rate: MIN_MATCHES },
  };
}

export async function formatArchetypes(queries: MetaQueries, args: MetaMessages['get_format_archetypes']) {
  const { format, window, newest } = await formatWindow(queries, args.format, args.days);
  const [decks] = await queries.deckTallies(format, [window]);
  const shares = archetypeShares(decks);
  return {
    format,
    archetypes: shares.map((s) => ({ id: s.id, name: s.archetype, meta_share: s.meta_share, color_identity: s.color_identity })),
    metadata: { days: args.days, period: window, decks: shares.reduce((n, s) => n + s.decks, 0), newest_tournament: newest },
  };
}

export async function deckMatchups(queries: MetaQueries, args: MetaMessages['get_deck_matchup_stats']) {
  const { format, window, newest } = await formatWindow(queries, args.format, args.days);
  const archetype = await resolveArchetype(queries, format, args.archetype);
  const [tallies] = await queries.matchTallies(format, [window]);
  const row = matchupMatrix(tallies).get(archetype) ?? new Map<string, MatchRecord>();
  const matchup_stats = [...row]
    .map(([opponent, record]) => ({ opponent_archetype: opponent, ...matchupOf(record) }))
    .sort((a, b) => b.match_count - a.match_count || a.opponent_archetype.localeCompare(b.opponent_archetype));
  return {
    archetype,
    format,
    days: args.days,
    matchup_stats,
    overall: matchupOf(archetypeRecords(tallies).get(archetype)),
    metadata: { period: window, newest_tournament: newest, min_matches_for_win_rate: MIN_MATCHES },
  };
}
