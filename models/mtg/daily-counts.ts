/**
 * The daily counts (mtg_daily_decks, mtg_daily_matches) computed from deck lists and matches in memory,
 * and the differences between two sets of them. Pure: the load passes the documents it just built,
 * `troupe seed mtg --verify` what it reads back from the raw collections.
 */
import type { MtgDailyDecks, MtgDeckCount } from './daily-deck-counts.js';
import type { MtgDailyMatches, MtgMatchCount } from './daily-match-counts.js';
import { dayToDate } from './dataset-records.js';
import type { MtgDecklist } from './decklist.js';
import type { MtgMatch } from './match.js';

export type DeckFacts = Pick<MtgDecklist, 'format' | 'day' | 'archetype_name' | 'archetype_color'>;
export type MatchFacts = Pick<MtgMatch, 'format' | 'day' | 'deck1_archetype' | 'deck2_archetype' | 'result'>;

const dailyId = (format: string, day: string) => `${format}/${day}`;
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Groups items into one document per format and day, and counts within it by `key`; sorted, so two builds compare equal. */
function daily<T extends { format: string; day: string }, C>(
  items: Iterable<T>,
  key: (item: T) => string,
  count: (item: T) => C,
  add: (count: C) => void,
): Array<{ _id: string; format: string; date: Date; day: string; counts: C[] }> {
  const days = new Map<string, { format: string; day: string; counts: Map<string, C> }>();
  for (const item of items) {
    const id = dailyId(item.format, item.day);
    const entry = days.get(id) ?? days.set(id, { format: item.format, day: item.day, counts: new Map() }).get(id)!;
    const k = key(item);
    const existing = entry.counts.get(k);
    if (existing === undefined) entry.counts.set(k, count(item));
    else add(existing);
  }
  return [...days]
    .sort(([a], [b]) => byKey(a, b))
    .map(([id, { format, day, counts }]) => ({
      _id: id,
      format,
      date: dayToDate(day),
      day,
      counts: [...counts].sort(([a], [b]) => byKey(a, b)).map(([, c]) => c),
    }));
}

/** Decks per format, day, archetype name and colour. */
export function dailyDeckCounts(decklists: Iterable<DeckFacts>): MtgDailyDecks[] {
  return daily<DeckFacts, MtgDeckCount>(
    decklists,
    (d) => `${d.archetype_name}\0${d.archetype_color}`,
    (d) => ({ archetype: d.archetype_name, color: d.archetype_color, decks: 1 }),
    (c) => c.decks++,
  );
}

/** Matches per format, day, ordered pair of archetype names (null: no list) and result. */
export function dailyMatchCounts(matches: Iterable<MatchFacts>): MtgDailyMatches[] {
  return daily<MatchFacts, MtgMatchCount>(
    matches,
    (m) => JSON.stringify([m.deck1_archetype, m.deck2_archetype, m.result]),
    (m) => ({ deck1: m.deck1_archetype ?? null, deck2: m.deck2_archetype ?? null, result: m.result, matches: 1 }),
    (c) => c.matches++,
  );
}

const deckLabel = (c: MtgDeckCount) => `${c.archetype} (${c.color})`;
const matchLabel = (c: MtgMatchCount) => `${c.deck1 ?? '(no list)'} vs ${c.deck2 ?? '(no list)'}, ${c.result}`;

type Daily<C> = { _id: string; format: string; date: Date; day: string; counts: C[] };

/** Every figure of a set of daily documents by a readable name, the days' own fields included. */
function figures<C>(docs: Iterable<Daily<C>>, label: (count: C) => string, value: (count: C) => number): Map<string, string | number> {
  const out = new Map<string, string | number>();
  for (const doc of docs) {
    out.set(`${doc._id} format`, doc.format);
    out.set(`${doc._id} day`, doc.day);
    out.set(`${doc._id} date`, new Date(doc.date).toISOString());
    for (const count of doc.counts) {
      const name = `${doc._id} ${label(count)}`;
      // A count listed twice in a day is summed, as the readers sum it.
      const before = out.get(name);
      out.set(name, (typeof before === 'number' ? before : 0) + value(count));
    }
  }
  return out;
}

/** "<collection> <what>: <stored> stored, <expected> expected", for each figure that differs. */
function differences(collection: string, stored: Map<string, string | number>, expected: Map<string, string | number>): string[] {
  const out: string[] = [];
  for (const name of [...new Set([...expected.keys(), ...stored.keys()])].sort(byKey)) {
    const [s, e] = [stored.get(name), expected.get(name)];
    if (s !== e) out.push(`${collection} ${name}: ${s ?? 'missing'} stored, ${e ?? 'none'} expected`);
  }
  return out;
}

/** Where the stored daily counts differ from those computed from the raw collections; empty when they match. */
export function dailyCountDifferences(
  stored: { decks: Iterable<MtgDailyDecks>; matches: Iterable<MtgDailyMatches> },
  expected: { decks: Iterable<MtgDailyDecks>; matches: Iterable<MtgDailyMatches> },
): string[] {
  return [
    ...differences('mtg_daily_decks', figures(stored.decks, deckLabel, (c) => c.decks), figures(expected.decks, deckLabel, (c) => c.decks)),
    ...differences('mtg_daily_matches', figures(stored.matches, matchLabel, (c) => c.matches), figures(expected.matches, matchLabel, (c) => c.matches)),
  ];
}
