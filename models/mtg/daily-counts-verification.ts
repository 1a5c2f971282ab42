/**
 * The daily counts against the raw collections: recomputed from mtg_decklists and mtg_matches (only the
 * fields they count, so no card lists are read) and compared with what is stored, for
 * `troupe seed mtg --verify`; and rebuilt from them, for data that was not written by a load.
 */
import type { Connection } from 'mongoose';
import { dailyCountDifferences, dailyDeckCounts, dailyMatchCounts, type DeckFacts, type MatchFacts } from './daily-counts.js';
import { mtgDailyDecks, type MtgDailyDecks } from './daily-deck-counts.js';
import { mtgDailyMatches, type MtgDailyMatches } from './daily-match-counts.js';
import { mtgDecklists } from './decklist.js';
import { mtgMatches } from './match.js';

export interface DailyCountsCheck {
  /** Daily documents computed from the raw collections, per collection. */
  documents: { decks: number; matches: number };
  /** Every figure that differs, in order of collection, day and name; empty when the counts match. */
  differences: string[];
}

async function countsFromRawCollections(connection: Connection): Promise<{ decks: MtgDailyDecks[]; matches: MtgDailyMatches[] }> {
  const [decklists, matches] = await Promise.all([
    mtgDecklists(connection).find({}, { _id: 0, format: 1, day: 1, archetype_name: 1, archetype_color: 1 }).lean<DeckFacts[]>(),
    mtgMatches(connection).find({}, { _id: 0, format: 1, day: 1, deck1_archetype: 1, deck2_archetype: 1, result: 1 }).lean<MatchFacts[]>(),
  ]);
  return { decks: dailyDeckCounts(decklists), matches: dailyMatchCounts(matches) };
}

export async function verifyDailyCounts(connection: Connection): Promise<DailyCountsCheck> {
  const [expected, decks, matches] = await Promise.all([
    countsFromRawCollections(connection),
    mtgDailyDecks(connection).find({}).lean<MtgDailyDecks[]>(),
    mtgDailyMatches(connection).find({}).lean<MtgDailyMatches[]>(),
  ]);
  return { documents: { decks: expected.decks.length, matches: expected.matches.length }, differences: dailyCountDifferences({ decks, matches }, expected) };
}

/** Replaces the daily counts with those of the raw collections as they are now. */
export async function rebuildDailyCounts(connection: Connection): Promise<void> {
  const { decks, matches } = await countsFromRawCollections(connection);
  await Promise.all([mtgDailyDecks(connection).deleteMany({}), mtgDailyMatches(connection).deleteMany({})]);
  await Promise.all([mtgDailyDecks(connection).insertMany(decks, { lean: true }), mtgDailyMatches(connection).insertMany(matches, { lean: true })]);
}
