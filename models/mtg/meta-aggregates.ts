/**
 * The pre-aggregated statistics the meta tools read, computed from deck lists and matches: per format
 * and day, decks per archetype (mtg_daily_decks), matches per pair of archetypes (mtg_daily_matches),
 * card adoption per archetype (mtg_daily_adoption) and results per sideboard card and opponent
 * (mtg_daily_sideboard_results); and decks per archetype over the whole data (mtg_archetype_totals).
 * Each deck list and match contributes small documents that add up (aggregate-shape.ts), so a full
 * load and an incremental one compute them the same way. Pure.
 */
import { aggregateDifferences, AggregateBuilder, type AggregateDocument, type AggregateShape } from './aggregate-shape.js';
import { dayToDate } from './dataset-records.js';
import type { MtgDeckCard, MtgDecklist } from './decklist.js';
import type { MtgMatch } from './match.js';

export type DeckFacts = Pick<MtgDecklist, '_id' | 'format' | 'day' | 'archetype_name' | 'archetype_color' | 'mainboard' | 'sideboard'>;
export type MatchFacts = Pick<MtgMatch, 'format' | 'day' | 'deck1_id' | 'deck2_id' | 'deck1_archetype' | 'deck2_archetype' | 'result'>;

/** The aggregate collections, keyed as the load and --verify name them. */
export const META_AGGREGATES = ['daily_decks', 'daily_matches', 'daily_adoption', 'daily_sideboard_results', 'archetype_totals'] as const;
export type MetaAggregate = (typeof META_AGGREGATES)[number];

const s = (value: unknown) => String(value);
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const cardList = (board: string) => ({
  field: board,
  key: (e: Record<string, unknown>) => s(e.card),
  label: (e: Record<string, unknown>) => `${board} ${s(e.card)}`,
  sums: ['decks', 'copies'],
  lists: [],
});

export const AGGREGATE_SHAPES: Record<MetaAggregate, AggregateShape> = {
  daily_decks: {
    collection: 'mtg_daily_decks',
    sums: [],
    lists: [{ field: 'counts', key: (e) => `${s(e.archetype)}\0${s(e.color)}`, label: (e) => `${s(e.archetype)} (${s(e.color)})`, sums: ['decks'], lists: [] }],
  },
  daily_matches: {
    collection: 'mtg_daily_matches',
    sums: [],
    lists: [
      {
        field: 'counts',
        key: (e) => JSON.stringify([e.deck1 ?? null, e.deck2 ?? null, e.result]),
        label: (e) => `${(e.deck1 as string | null) ?? '(no list)'} vs ${(e.deck2 as string | null) ?? '(no list)'}, ${s(e.result)}`,
        sums: ['matches'],
        lists: [],
      },
    ],
  },
  daily_adoption: { collection: 'mtg_daily_adoption', sums: ['decks'], lists: [cardList('mainboard'), cardList('sideboard')] },
  daily_sideboard_results: {
    collection: 'mtg_daily_sideboard_results',
    sums: [],
    lists: [
      {
        field: 'sideboards',
        key: (e) => (e.cards as string[]).join('\n'),
        label: (e) => `sideboard [${(e.cards as string[]).join(', ')}]`,
        sums: [],
        lists: [{ field: 'results', key: (e) => s(e.opponent), label: (e) => `vs ${s(e.opponent)}`, sums: ['matches', 'wins', 'losses', 'draws'], lists: [] }],
      },
    ],
  },
  archetype_totals: { collection: 'mtg_archetype_totals', sums: ['decks'], lists: [] },
};

const day = (format: string, d: string) => ({ format, date: dayToDate(d), day: d });
const adoptionOf = (cards: MtgDeckCard[]) => cards.map(({ card, count }) => ({ card, decks: 1, copies: count }));

/** What one deck list adds to each aggregate. */
export function deckContributions(deck: DeckFacts): Array<[MetaAggregate, AggregateDocument]> {
  const { format, day: d, archetype_name: archetype, archetype_color: color } = deck;
  return [
    ['daily_decks', { _id: `${format}/${d}`, ...day(format, d), counts: [{ archetype, color, decks: 1 }] }],
    ['daily_adoption', { _id: `${format}/${d}/${archetype}/${color}`, ...day(format, d), archetype, color, decks: 1, mainboard: adoptionOf(deck.mainboard), sideboard: adoptionOf(deck.sideboard) }],
    ['archetype_totals', { _id: `${format}/${archetype}`, format, archetype, decks: 1 }],
  ];
}

/**
 * What one match adds: its pair's count, and for each side whose deck has a list and met another
 * archetype, the result under that deck's sideboard. `sideboardOf` gives a deck's sideboard.
 */
export function matchContributions(match: MatchFacts, sideboardOf: (deckId: number) => MtgDeckCard[] | undefined): Array<[MetaAggregate, AggregateDocument]> {
  const { format, day: d, deck1_archetype: deck1, deck2_archetype: deck2, result } = match;
  const out: Array<[MetaAggregate, AggregateDocument]> = [['daily_matches', { _id: `${format}/${d}`, ...day(format, d), counts: [{ deck1: deck1 ?? null, deck2: deck2 ?? null, result, matches: 1 }] }]];
  const sides = [
    { ours: deck1, theirs: deck2, deckId: match.deck1_id, player: 'p1' },
    { ours: deck2, theirs: deck1, deckId: match.deck2_id, player: 'p2' },
  ];
  for (const { ours, theirs, deckId, player } of sides) {
    if (ours === null || theirs === null || ours === theirs || deckId === null) continue;
    const sideboard = sideboardOf(deckId);
    if (sideboard === undefined) continue;
    // Decks with the same sideboard (as a set of cards) add up; one with none says nothing about a card.
    const cards = [...new Set(sideboard.map((c) => c.card))].sort(byKey);
    if (cards.length === 0) continue;
    const record = { opponent: theirs, matches: 1, wins: result === player ? 1 : 0, losses: result !== player && result !== 'draw' ? 1 : 0, draws: result === 'draw' ? 1 : 0 };
    out.push(['daily_sideboard_results', { _id: `${format}/${d}/${ours}`, ...day(format, d), archetype: ours, sideboards: [{ cards, results: [record] }] }]);
  }
  return out;
}

/** Builders for every aggregate, to add contributions (and stored documents) to. */
export function aggregateBuilders(): Record<MetaAggregate, AggregateBuilder> {
  return Object.fromEntries(META_AGGREGATES.map((name) => [name, new AggregateBuilder(AGGREGATE_SHAPES[name])])) as Record<MetaAggregate, AggregateBuilder>;
}

export function addContributions(builders: Record<MetaAggregate, AggregateBuilder>, contributions: Iterable<[MetaAggregate, AggregateDocument]>): void {
  for (const [name, document] of contributions) builders[name].add(document);
}

/** Every aggregate of these deck lists and matches (a match's decks are looked up among the lists). */
export function metaAggregates(decklists: Iterable<DeckFacts>, matches: Iterable<MatchFacts>): Record<MetaAggregate, AggregateDocument[]> {
  const builders = aggregateBuilders();
  const sideboards = new Map<number, MtgDeckCard[]>();
  for (const deck of decklists) {
    sideboards.set(deck._id, deck.sideboard);
    addContributions(builders, deckContributions(deck));
  }
  for (const match of matches) addContributions(builders, matchContributions(match, (id) => sideboards.get(id)));
  return Object.fromEntries(META_AGGREGATES.map((name) => [name, builders[name].documents()])) as Record<MetaAggregate, AggregateDocument[]>;
}

/** Where the stored aggregates differ from the expected ones, per collection in META_AGGREGATES order; empty when they match. */
export function metaAggregateDifferences(stored: Record<MetaAggregate, AggregateDocument[]>, expected: Record<MetaAggregate, AggregateDocument[]>): string[] {
  return META_AGGREGATES.flatMap((name) => aggregateDifferences(AGGREGATE_SHAPES[name], stored[name], expected[name]));
}
