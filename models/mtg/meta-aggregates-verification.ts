/**
 * The meta aggregates against the raw collections: recomputed from mtg_decklists and mtg_matches and
 * compared with what is stored, for `troupe seed mtg --verify`; and rebuilt from them, for data that was
 * not written by a load.
 */
import type { Connection } from 'mongoose';
import type { AggregateDocument } from './aggregate-shape.js';
import { mtgDecklists } from './decklist.js';
import { mtgMatches } from './match.js';
import { META_AGGREGATES, metaAggregateDifferences, metaAggregates, type DeckFacts, type MatchFacts, type MetaAggregate } from './meta-aggregates.js';
import { mtgAggregateModels } from './seed.js';

export interface MetaAggregatesCheck {
  /** Aggregate documents computed from the raw collections, per collection. */
  documents: Record<MetaAggregate, number>;
  /** Every figure that differs, in order of collection, document and name; empty when they match. */
  differences: string[];
}

async function aggregatesFromRawCollections(connection: Connection): Promise<Record<MetaAggregate, AggregateDocument[]>> {
  // The driver's plain documents: mongoose's lean reads cost a third more on whole collections.
  const [decklists, matches] = await Promise.all([
    mtgDecklists(connection).collection.find({}, { projection: { format: 1, day: 1, archetype_name: 1, archetype_color: 1, mainboard: 1, sideboard: 1 } }).toArray() as unknown as Promise<DeckFacts[]>,
    mtgMatches(connection).collection.find({}, { projection: { _id: 0, format: 1, day: 1, deck1_id: 1, deck2_id: 1, deck1_archetype: 1, deck2_archetype: 1, result: 1 } }).toArray() as unknown as Promise<MatchFacts[]>,
  ]);
  return metaAggregates(decklists, matches);
}

async function storedAggregates(connection: Connection): Promise<Record<MetaAggregate, AggregateDocument[]>> {
  const models = mtgAggregateModels(connection);
  const stored = await Promise.all(META_AGGREGATES.map((name) => models[name].collection.find({}).toArray() as unknown as Promise<AggregateDocument[]>));
  return Object.fromEntries(META_AGGREGATES.map((name, i) => [name, stored[i]])) as Record<MetaAggregate, AggregateDocument[]>;
}

export async function verifyMetaAggregates(connection: Connection): Promise<MetaAggregatesCheck> {
  const [expected, stored] = await Promise.all([aggregatesFromRawCollections(connection), storedAggregates(connection)]);
  const documents = Object.fromEntries(META_AGGREGATES.map((name) => [name, expected[name].length])) as Record<MetaAggregate, number>;
  return { documents, differences: metaAggregateDifferences(stored, expected) };
}

/** Replaces the aggregates with those of the raw collections as they are now. */
export async function rebuildMetaAggregates(connection: Connection): Promise<void> {
  const expected = await aggregatesFromRawCollections(connection);
  const models = mtgAggregateModels(connection);
  await Promise.all(META_AGGREGATES.map((name) => models[name].deleteMany({})));
  await Promise.all(META_AGGREGATES.map((name) => models[name].insertMany(expected[name] as never[], { lean: true })));
}
