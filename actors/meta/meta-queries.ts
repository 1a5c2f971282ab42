/**
 * The MongoDB side of the meta tools: every read they make of the tournament data, as aggregations
 * and projected finds over the seeded collections. Answers are raw tallies and lists; meta-stats.ts
 * does the arithmetic.
 */
import type { Connection } from 'mongoose';
import { mtgCards, type MtgCard } from '../../models/mtg/card.js';
import { mtgDecklists, type MtgDeckCard } from '../../models/mtg/decklist.js';
import { mtgMatches } from '../../models/mtg/match.js';
import { mtgTournaments } from '../../models/mtg/tournament.js';
import { RequestError } from '../runtime/contract.js';
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

export class MetaQueries {
  constructor(private readonly connection: Connection) {}

  /** Constructed formats present in the tournaments, sorted. */
  async formats(): Promise<string[]> {
    const all = (await mtgTournaments(this.connection).distinct('format')) as string[];
    return all.filter((format) => !EXCLUDED_FORMATS.test(format)).sort((a, b) => a.localeCompare(b));
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
    const newest = await mtgTournaments(this.connection).findOne({ format: { $not: EXCLUDED_FORMATS } }, { date: 1 }).sort({ date: -1 }).lean();
    if (!newest) throw new RequestError('unavailable', 'no tournament data is loaded; run `troupe seed mtg`');
    return dayOf(newest.date);
  }

  /** Decks per archetype and colour, for each window. */
  async deckTallies(format: string, windows: TimeWindow[]): Promise<DeckTally[][]> {
    return Promise.all(
      windows.map(async (window) => {
        const groups = await mtgDecklists(this.connection).aggregate<{ _id: { a: string; c: string }; n: number }>([
          { $match: { format, date: dateRange(window) } },
          { $group: { _id: { a: '$archetype_name', c: '$archetype_color' }, n: { $sum: 1 } } },
        ]);
        return groups.map((g) => ({ archetype: g._id.a, color: g._id.c, count: g.n }));
      }),
    );
  }

  /** Matches per pair of archetypes and result, for each window. */
  async matchTallies(format: string, windows: TimeWindow[]): Promise<MatchTally[][]> {
    return Promise.all(
      windows.map(async (window) => {
        const groups = await mtgMatches(this.connection).aggregate<{ _id: { a: string | null; b: string | null; r: MatchTally['result'] }; n: number }>([
          { $match: { format, date: dateRange(window) } },
          { $group: { _id: { a: '$deck1_archetype', b: '$deck2_archetype', r: '$result' }, n: { $sum: 1 } } },
        ]);
        return groups.map((g) => ({ deck1: g._id.a ?? null, deck2: g._id.b ?? null, result: g._id.r, count: g.n }));
      }),
    );
  }

  /** Every archetype name the format has in the whole data, largest first. */
  async archetypeNames(format: string): Promise<string[]> {
    const groups = await mtgDecklists(this.connection).aggregate<{ _id: string; n: number }>([
      { $match: { format } },
      { $group: { _id: '$archetype_name', n: { $sum: 1 } } },
      { $sort: { n: -1, _id: 1 } },
    ]);
    return groups.map((g) => g._id);
  }

  /** The formats an archetype name (any case) is played in over the whole data, most decks first. */
  async formatsOfArchetype(archetype: string): Promise<Array<{ format: string; archetype: string; decks: number }>> {
    const groups = await mtgDecklists(this.connection).aggregate<{ _id: { f: string; a: string }; n: number }>([
      { $group: { _id: { f: '$format', a: '$archetype_name' }, n: { $sum: 1 } } },
    ]);
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
