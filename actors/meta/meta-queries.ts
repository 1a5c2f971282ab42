/**
 * The MongoDB side of the meta tools: every read they make of the tournament data, as aggregations
 * and projected finds over the seeded collections. Answers are raw tallies and lists; meta-stats.ts
 * does the arithmetic.
 *
 * Window tallies and archetype names come from the daily counts a load writes beside the raw data
 * (mtg_daily_decks, mtg_daily_matches: one small document per format and day), so a window reads at
 * most its days' documents and never the deck lists or matches. Those answers, the formats and the
 * newest day are cached per process under the dataset marker's version (dataset-answer-cache.ts).
 */
import type { Connection } from 'mongoose';
import { mtgCards, type MtgCard } from '../../models/mtg/card.js';
import { mtgDailyDecks, type MtgDailyDecks } from '../../models/mtg/daily-deck-counts.js';
import { mtgDailyMatches, type MtgDailyMatches } from '../../models/mtg/daily-match-counts.js';
import { mtgDecklists, type MtgDeckCard } from '../../models/mtg/decklist.js';
import { mtgMatches } from '../../models/mtg/match.js';
import { mtgDatasetMarker } from '../../models/mtg/seed.js';
import { mtgTournaments } from '../../models/mtg/tournament.js';
import { RequestError } from '../runtime/contract.js';
import { DatasetAnswerCache } from './dataset-answer-cache.js';
import type { DeckTally, MatchTally } from './meta-stats.js';
import { dateRange, dayOf, type TimeWindow } from './time-window.js';

/** Formats the meta tools cover: constructed, one-on-one. Multiplayer formats would skew every share. */
const EXCLUDED_FORMATS = /^(commander|edh|duel commander|brawl|oathbreaker)$/i;

/** A deck list as the recommendation tools read it. */
export interface ListSample {
  id: number;
  day: string;
  archetype: string;
  color: string;
  mainboard: MtgDeckCard[];
  sideboard: MtgDeckCard[];
}

export type CardFacts = Pick<MtgCard, 'name' | 'mana_cost' | 'mana_value' | 'type_line' | 'colors' | 'color_identity' | 'is_land' | 'oracle_text'>;

/** One cache per connection (per database), shared by every request of the process. */
const caches = new WeakMap<Connection, DatasetAnswerCache>();
const cacheOf = (connection: Connection) => caches.get(connection) ?? caches.set(connection, new DatasetAnswerCache()).get(connection)!;

/** MongoDB's order of strings (by code unit, not locale), which `$sort` on a name used. */
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Made per request: the dataset version its cached reads go by is read once, at its first one, so one
 * answer never mixes two loads.
 */
export class MetaQueries {
  private datasetVersion?: Promise<string | undefined>;

  constructor(private readonly connection: Connection) {}

  /**
   * `compute()`'s answer, cached under the loaded dataset's version. Without a marker (no complete load,
   * or one under way) nothing is cached: the data may be changing.
   */
  private async cached<T>(key: string, compute: () => Promise<T>): Promise<T> {
    this.datasetVersion ??= mtgDatasetMarker(this.connection).then((marker) =>
      marker === undefined ? undefined : `${marker.content_hash}:${marker.documents_version}:${new Date(marker.loaded_at).getTime()}`,
    );
    const version = await this.datasetVersion;
    return version === undefined ? compute() : cacheOf(this.connection).answer(version, key, compute);
  }

  /** Constructed formats present in the tournaments, sorted. */
  async formats(): Promise<string[]> {
    const formats = await this.cached('formats', async () => {
      const all = (await mtgTournaments(this.connection).distinct('format')) as string[];
      return all.filter((format) => !EXCLUDED_FORMATS.test(format)).sort((a, b) => a.localeCompare(b));
    });
    return [...formats];
  }

  /** The format as the data spells it, matched case-insensitively; not_found listing the valid ones otherwise. */
  async resolveFormat(format: string): Promise<string> {
    const formats = await this.formats();
    const found = formats.find((f) => f.toLowerCase() === format.trim().toLowerCase());
    if (found) return found;
    if (formats.length === 0) throw new RequestError('unavailable', 'no tournament data is loaded; run `troupe seed mtg`');
    throw new RequestError('not_found', `unknown format '${format}'; valid formats: ${formats.join(', ')}`, { valid: formats });
  }

  /** The newest tournament day of the constructed formats: every time window ends there. */
  async newestDay(): Promise<string> {
    const newest = await this.cached('newest day', async () => {
      const tournament = await mtgTournaments(this.connection).findOne({ format: { $not: EXCLUDED_FORMATS } }, { date: 1 }).sort({ date: -1 }).lean();
      return tournament ? dayOf(tournament.date) : undefined;
    });
    if (newest === undefined) throw new RequestError('unavailable', 'no tournament data is loaded; run `troupe seed mtg`');
    return newest;
  }

  /** Decks per archetype and colour, for each window. The arrays are shared with the cache: read them, do not change them. */
  async deckTallies(format: string, windows: TimeWindow[]): Promise<DeckTally[][]> {
    return Promise.all(windows.map((window) => this.cached(`decks ${format} ${window.start} ${window.end}`, () => this.readDeckTallies(format, window))));
  }

  private async readDeckTallies(format: string, window: TimeWindow): Promise<DeckTally[]> {
    const days = await mtgDailyDecks(this.connection).find({ format, date: dateRange(window) }, { _id: 0, counts: 1 }).lean<Array<Pick<MtgDailyDecks, 'counts'>>>();
    const tallies = new Map<string, DeckTally>();
    for (const { archetype, color, decks } of days.flatMap((day) => day.counts)) {
      const key = `${archetype}\0${color}`;
      const tally = tallies.get(key);
      if (tally) tally.count += decks;
      else tallies.set(key, { archetype, color, count: decks });
    }
    return [...tallies.values()];
  }

  /** Matches per pair of archetypes and result, for each window. The arrays are shared with the cache: read them, do not change them. */
  async matchTallies(format: string, windows: TimeWindow[]): Promise<MatchTally[][]> {
    return Promise.all(windows.map((window) => this.cached(`matches ${format} ${window.start} ${window.end}`, () => this.readMatchTallies(format, window))));
  }

  private async readMatchTallies(format: string, window: TimeWindow): Promise<MatchTally[]> {
    const days = await mtgDailyMatches(this.connection).find({ format, date: dateRange(window) }, { _id: 0, counts: 1 }).lean<Array<Pick<MtgDailyMatches, 'counts'>>>();
    const tallies = new Map<string, MatchTally>();
    for (const { deck1, deck2, result, matches } of days.flatMap((day) => day.counts)) {
      const key = JSON.stringify([deck1, deck2, result]);
      const tally = tallies.get(key);
      if (tally) tally.count += matches;
      else tallies.set(key, { deck1: deck1 ?? null, deck2: deck2 ?? null, result, count: matches });
    }
    return [...tallies.values()];
  }

  /** Every archetype name the format has in the whole data, largest first. */
  async archetypeNames(format: string): Promise<string[]> {
    const names = await this.cached(`archetype names ${format}`, async () => {
      const days = await mtgDailyDecks(this.connection).find({ format }, { _id: 0, counts: 1 }).lean<Array<Pick<MtgDailyDecks, 'counts'>>>();
      const decks = new Map<string, number>();
      for (const { archetype, decks: n } of days.flatMap((day) => day.counts)) decks.set(archetype, (decks.get(archetype) ?? 0) + n);
      return [...decks].sort((a, b) => b[1] - a[1] || byName(a[0], b[0])).map(([name]) => name);
    });
    return [...names];
  }

  /**
   * The formats an archetype name (any case) is played in over the whole data, most decks first. Still
   * grouped from the deck lists, once per dataset version: equal counts keep the order the grouping
   * meets them in, which the daily counts do not record.
   */
  async formatsOfArchetype(archetype: string): Promise<Array<{ format: string; archetype: string; decks: number }>> {
    const groups = await this.cached('decks per format and archetype', () =>
      mtgDecklists(this.connection).aggregate<{ _id: { f: string; a: string }; n: number }>([{ $group: { _id: { f: '$format', a: '$archetype_name' }, n: { $sum: 1 } } }]).exec(),
    );
    const wanted = archetype.trim().toLowerCase();
    return groups
      .filter((g) => g._id.a.toLowerCase() === wanted)
      .map((g) => ({ format: g._id.f, archetype: g._id.a, decks: g.n }))
      .sort((a, b) => b.decks - a.decks);
  }

  /** The lists with these ids (their sideboards and archetypes), in no particular order. */
  async listsById(ids: number[]): Promise<ListSample[]> {
    return this.lists({ _id: { $in: ids } }, ids.length);
  }

  /** Matches in the window between `archetype` and any of `opponents`, with both deck ids. */
  async matchesAgainst(format: string, archetype: string, opponents: string[], window: TimeWindow): Promise<Array<{ deck1_id: number; deck2_id: number; deck1_archetype: string; deck2_archetype: string; result: 'p1' | 'p2' | 'draw' }>> {
    const docs = await mtgMatches(this.connection)
      .find(
        {
          format,
          date: dateRange(window),
          $or: [
            { deck1_archetype: archetype, deck2_archetype: { $in: opponents } },
            { deck2_archetype: archetype, deck1_archetype: { $in: opponents } },
          ],
        },
        { _id: 0, deck1_id: 1, deck2_id: 1, deck1_archetype: 1, deck2_archetype: 1, result: 1 },
      )
      .lean();
    return docs as Array<{ deck1_id: number; deck2_id: number; deck1_archetype: string; deck2_archetype: string; result: 'p1' | 'p2' | 'draw' }>;
  }

  /** The most recent lists of an archetype in the window, newest first. */
  async archetypeLists(format: string, archetype: string, window: TimeWindow, limit: number): Promise<ListSample[]> {
    return this.lists({ format, archetype_name: archetype, date: dateRange(window) }, limit);
  }

  /** The most recent lists in the window whose colours are among `colors` (a WUBRG string), newest first. */
  async listsWithinColors(format: string, colors: string, window: TimeWindow, limit: number): Promise<ListSample[]> {
    return this.lists({ format, archetype_color: { $in: colorSubsets(colors) }, date: dateRange(window) }, limit);
  }

  private async lists(filter: Record<string, unknown>, limit: number): Promise<ListSample[]> {
    const docs = await mtgDecklists(this.connection)
      .find(filter, { day: 1, archetype_name: 1, archetype_color: 1, mainboard: 1, sideboard: 1 })
      .sort({ date: -1, _id: -1 })
      .limit(limit)
      .lean();
    return docs.map((d) => ({ id: d._id, day: d.day, archetype: d.archetype_name, color: d.archetype_color, mainboard: d.mainboard, sideboard: d.sideboard }));
  }

  /** Card facts by exact name. */
  async cards(names: Iterable<string>): Promise<Map<string, CardFacts>> {
    const docs = await mtgCards(this.connection)
      .find({ name: { $in: [...new Set(names)] } }, { _id: 0, name: 1, mana_cost: 1, mana_value: 1, type_line: 1, colors: 1, color_identity: 1, is_land: 1, oracle_text: 1 })
      .lean();
    return new Map(docs.map((d) => [d.name, d as CardFacts]));
  }
}

/** Every colour combination inside `colors` ("UR" -> C, U, R, UR): decks a deck of those colours could borrow from. */
export function colorSubsets(colors: string): string[] {
  const letters = colors === 'C' ? [] : [...colors];
  const subsets = ['C'];
  for (let mask = 1; mask < 1 << letters.length; mask++) subsets.push(letters.filter((_, i) => mask & (1 << i)).join(''));
  return subsets;
}
