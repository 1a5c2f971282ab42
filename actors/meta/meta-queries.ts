/**
 * The MongoDB side of the meta tools: every read they make of the tournament data, as aggregations
 * and projected finds over the seeded collections. Answers are raw tallies and lists; meta-stats.ts
 * does the arithmetic.
 *
 * Everything comes from the aggregates a load writes beside the raw data (models/mtg/meta-aggregates.ts:
 * per format and day, decks and matches per archetype, card adoption and sideboard results per
 * archetype; decks per archetype overall), so a window reads at most its days' documents. Deck lists
 * are read only for the one day of a "newest N lists" sample that is not taken whole. Answers are
 * cached per process under the dataset marker's version (dataset-answer-cache.ts).
 */
import type { Connection } from 'mongoose';
import { mtgArchetypeTotals, type MtgArchetypeTotal } from '../../models/mtg/archetype-totals.js';
import { mtgCards, type MtgCard } from '../../models/mtg/card.js';
import { mtgDailyAdoption, type MtgDailyAdoption } from '../../models/mtg/daily-adoption.js';
import { mtgDailyDecks, type MtgDailyDecks } from '../../models/mtg/daily-deck-counts.js';
import { mtgDailyMatches, type MtgDailyMatches } from '../../models/mtg/daily-match-counts.js';
import { mtgDailySideboardResults, type MtgDailySideboardResults } from '../../models/mtg/daily-sideboard-results.js';
import { mtgDecklists, type MtgDeckCard } from '../../models/mtg/decklist.js';
import { mtgDatasetMarker } from '../../models/mtg/seed.js';
import { mtgTournaments } from '../../models/mtg/tournament.js';
import { RequestError } from '../runtime/contract.js';
import { DatasetAnswerCache } from './dataset-answer-cache.js';
import { addAdoption, addLists, BOARDS, emptyAdoption, type Board, type ListsAdoption } from './coaching-context.js';
import type { DeckTally, MatchRecord, MatchTally } from './meta-stats.js';
import { dateRange, dayOf, type TimeWindow } from './time-window.js';

/** Formats the meta tools cover: constructed, one-on-one. Multiplayer formats would skew every share. */
const EXCLUDED_FORMATS = /^(commander|edh|duel commander|brawl|oathbreaker)$/i;

/** A deck list as the adoption counts read it, for the one day whose lists are not all taken. */
export interface ListSample {
  id: number;
  day: string;
  archetype: string;
  color: string;
  mainboard: MtgDeckCard[];
  sideboard: MtgDeckCard[];
}

export type CardFacts = Pick<MtgCard, 'name' | 'mana_cost' | 'mana_value' | 'type_line' | 'colors' | 'color_identity' | 'is_land' | 'oracle_text'>;

/** Daily adoption documents per batch: a sample of a few hundred lists is usually a few batches. */
const ADOPTION_BATCH = 64;

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
      marker === undefined ? undefined : `${marker.content_hash}:${marker.documents_version}:${new Date(marker.loaded_at).getTime()}:${marker.revision ?? 0}`,
    );
    const version = await this.datasetVersion;
    return version === undefined ? compute() : cacheOf(this.connection).answer(version, key, compute);
  }

  /** Constructed formats with deck lists in the data, sorted. */
  async formats(): Promise<string[]> {
    const formats = await this.cached('formats', async () => {
      const all = new Set((await this.archetypeTotals()).map((t) => t.format));
      return [...all].filter((format) => !EXCLUDED_FORMATS.test(format)).sort((a, b) => a.localeCompare(b));
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

  /** Decks per archetype and format over the whole data, from mtg_archetype_totals (one small document each). */
  private archetypeTotals(): Promise<MtgArchetypeTotal[]> {
    return this.cached('archetype totals', () => mtgArchetypeTotals(this.connection).find({}, { _id: 0, format: 1, archetype: 1, decks: 1 }).lean<MtgArchetypeTotal[]>().exec());
  }

  /** Every archetype name the format has in the whole data, largest first. */
  async archetypeNames(format: string): Promise<string[]> {
    const totals = (await this.archetypeTotals()).filter((t) => t.format === format);
    return totals.sort((a, b) => b.decks - a.decks || byName(a.archetype, b.archetype)).map((t) => t.archetype);
  }

  /** The formats an archetype name (any case) is played in over the whole data, most decks first (ties by format). */
  async formatsOfArchetype(archetype: string): Promise<Array<{ format: string; archetype: string; decks: number }>> {
    const wanted = archetype.trim().toLowerCase();
    return (await this.archetypeTotals())
      .filter((t) => t.archetype.toLowerCase() === wanted)
      .map(({ format, archetype: name, decks }) => ({ format, archetype: name, decks }))
      .sort((a, b) => b.decks - a.decks || byName(a.format, b.format));
  }

  /**
   * Card adoption over the newest `limit` lists of an archetype in the window (newest day first, then
   * highest id, as a sorted read of the lists would take them). Shared with the cache: read it, do not change it.
   */
  async archetypeAdoption(format: string, archetype: string, window: TimeWindow, limit: number): Promise<ListsAdoption> {
    return this.cached(`adoption ${format} ${archetype} ${window.start} ${window.end} ${limit}`, () =>
      this.newestAdoption({ format, archetype, date: dateRange(window) }, { format, archetype_name: archetype }, limit),
    );
  }

  /** The sideboards alone over the newest `limit` lists of the format whose colours are among `colors` (a WUBRG string). */
  async colorSideboardAdoption(format: string, colors: string, window: TimeWindow, limit: number): Promise<ListsAdoption> {
    const subsets = colorSubsets(colors);
    return this.cached(`sideboard adoption ${format} ${colors} ${window.start} ${window.end} ${limit}`, () =>
      this.newestAdoption({ format, color: { $in: subsets }, date: dateRange(window) }, { format, archetype_color: { $in: subsets } }, limit, ['sideboard']),
    );
  }

  /**
   * Whole days of the daily adoption counts, newest first, while they fit in `limit` lists; the day that
   * does not fit whole is read from its deck lists, highest ids first, for the lists still wanted. Read
   * through a cursor in small batches, so days past the sample are never sent.
   */
  private async newestAdoption(days: Record<string, unknown>, lists: Record<string, unknown>, limit: number, boards: readonly Board[] = BOARDS): Promise<ListsAdoption> {
    const projection = Object.fromEntries([['_id', 0], ['date', 1], ['day', 1], ['decks', 1], ...boards.map((board) => [board, 1])]);
    const cursor = mtgDailyAdoption(this.connection)
      .find(days, projection)
      .sort({ date: -1 })
      .lean<Pick<MtgDailyAdoption, 'date' | 'day' | 'decks' | 'mainboard' | 'sideboard'>>()
      .cursor({ batchSize: ADOPTION_BATCH });
    const adoption = emptyAdoption();
    let day: { date: Date; docs: Array<Pick<MtgDailyAdoption, 'decks' | 'mainboard' | 'sideboard'>>; decks: number } | undefined;
    // Adds a whole day, or its newest lists when it does not fit; false once the sample is full.
    const take = async (whole: NonNullable<typeof day>): Promise<boolean> => {
      if (adoption.lists + whole.decks <= limit) for (const doc of whole.docs) addAdoption(adoption, doc.decks, { mainboard: doc.mainboard ?? [], sideboard: doc.sideboard ?? [] });
      else addLists(adoption, await this.lists({ ...lists, date: whole.date }, limit - adoption.lists), boards);
      return adoption.lists < limit;
    };
    try {
      for await (const doc of cursor) {
        if (day !== undefined && day.date.getTime() !== doc.date.getTime()) {
          if (!(await take(day))) return adoption;
          day = undefined;
        }
        day ??= { date: doc.date, docs: [], decks: 0 };
        day.docs.push(doc);
        day.decks += doc.decks;
      }
      if (day !== undefined) await take(day);
      return adoption;
    } finally {
      await cursor.close();
    }
  }

  /**
   * Per opponent and card, the matches in the window of the archetype's decks that had the card in
   * their sideboard against that opponent. Shared with the cache: read it, do not change it.
   */
  async sideboardResults(format: string, archetype: string, window: TimeWindow): Promise<Map<string, Map<string, MatchRecord>>> {
    return this.cached(`sideboard results ${format} ${archetype} ${window.start} ${window.end}`, async () => {
      const days = await mtgDailySideboardResults(this.connection)
        .find({ format, archetype, date: dateRange(window) }, { _id: 0, sideboards: 1 })
        .lean<Array<Pick<MtgDailySideboardResults, 'sideboards'>>>();
      const results = new Map<string, Map<string, MatchRecord>>();
      for (const { cards, results: byOpponent } of days.flatMap((day) => day.sideboards)) {
        for (const { opponent, matches, wins, losses, draws } of byOpponent) {
          const byCard = results.get(opponent) ?? results.set(opponent, new Map()).get(opponent)!;
          for (const card of cards) {
            const record = byCard.get(card) ?? byCard.set(card, { matches: 0, wins: 0, losses: 0, draws: 0 }).get(card)!;
            record.matches += matches;
            record.wins += wins;
            record.losses += losses;
            record.draws += draws;
          }
        }
      }
      return results;
    });
  }

  /** The newest lists matching the filter, highest id first within a day. */
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
