/**
 * Loads the bundled MTG dataset into MongoDB, once. The `datasets` marker ({_id: 'mtg'}) is written
 * after everything else: with a marker for the same files nothing is done; without one, whatever an
 * interrupted load left is cleared and the load starts over; a marker for other files (the shipped
 * dataset changed) means a reload. The aggregates the meta tools read (meta-aggregates.ts) are computed
 * in memory from the same documents and written before the marker too, so a marker always stands for
 * raw collections and aggregates that agree.
 */
import { performance } from 'node:perf_hooks';
import type { Connection, Model } from 'mongoose';
import { mtgCards } from './card.js';
import { MTG_DATA_DIR, parseMtgDataset, readMtgDatasetFiles, type MtgDataset } from './dataset-files.js';
import { datasetMarkers, type DatasetMarker } from './dataset-marker.js';
import { cardDocument, decklistDocument, matchDocument, tournamentDocument } from './dataset-records.js';
import { mtgArchetypeTotals } from './archetype-totals.js';
import { mtgDailyAdoption } from './daily-adoption.js';
import { mtgDailyDecks } from './daily-deck-counts.js';
import { mtgDailyMatches } from './daily-match-counts.js';
import { mtgDailySideboardResults } from './daily-sideboard-results.js';
import { META_AGGREGATES, metaAggregates, type MetaAggregate } from './meta-aggregates.js';
import { mtgDecklists } from './decklist.js';
import { mtgMatches } from './match.js';
import { mtgAdditions } from './tournament-additions.js';
import { mtgTournaments } from './tournament.js';

export const MTG_DATASET_ID = 'mtg';
/** Bumped when the documents built from the same files change shape: a load of an older version is reloaded. */
export const MTG_DOCUMENTS_VERSION = 4;

/** The collections the dataset fills, in load order. */
export const MTG_COLLECTIONS = ['cards', 'tournaments', 'decklists', 'matches'] as const;
export type MtgCollection = (typeof MTG_COLLECTIONS)[number];
export type MtgCounts = Record<MtgCollection, number>;

export interface SeedProgress {
  collection: MtgCollection;
  /** Documents of this collection inserted so far, and in all. */
  done: number;
  total: number;
  /** The same over every collection. */
  overallDone: number;
  overallTotal: number;
}

export interface SeedMtgOptions {
  /** Default: models/data/mtg. */
  dataDir?: string;
  /** Reload even when the marker says these files are loaded. */
  force?: boolean;
  /** Documents per insertMany. */
  batchSize?: number;
  /** Called after every batch. */
  onProgress?: (progress: SeedProgress) => void;
  /**
   * More records to load with the files' (e.g. `bench:meta --scale`'s synthetic tournaments), built from
   * the parsed dataset; their ids must not collide with its own. They go through the same documents,
   * aggregates and marker as the shipped records. Always a load (as with `force`), and the marker's
   * content_hash gets a `+extra:` suffix, so a later plain `troupe seed mtg` sees other data and reloads the files alone.
   */
  extraRecords?: (dataset: MtgDataset) => Pick<MtgDataset, 'tournaments' | 'decklists' | 'matches'>;
}

export interface SeedMtgResult {
  /** 'already-loaded': the marker matched and nothing was written. */
  status: 'loaded' | 'already-loaded';
  /** What was there before a load: nothing, an interrupted load, another version of the dataset, or a forced reload. */
  replaced: 'nothing' | 'partial' | 'outdated' | 'forced';
  counts: MtgCounts;
  seconds: number;
  marker: DatasetMarker;
}

export function mtgModels(connection: Connection): { [C in MtgCollection]: Model<never> } {
  return {
    cards: mtgCards(connection) as unknown as Model<never>,
    tournaments: mtgTournaments(connection) as unknown as Model<never>,
    decklists: mtgDecklists(connection) as unknown as Model<never>,
    matches: mtgMatches(connection) as unknown as Model<never>,
  };
}

/** The aggregate collections computed from `decklists` and `matches`, written after them. */
export function mtgAggregateModels(connection: Connection): { [C in MetaAggregate]: Model<never> } {
  return {
    daily_decks: mtgDailyDecks(connection) as unknown as Model<never>,
    daily_matches: mtgDailyMatches(connection) as unknown as Model<never>,
    daily_adoption: mtgDailyAdoption(connection) as unknown as Model<never>,
    daily_sideboard_results: mtgDailySideboardResults(connection) as unknown as Model<never>,
    archetype_totals: mtgArchetypeTotals(connection) as unknown as Model<never>,
  };
}

/** The marker of a complete load, if there is one. */
export async function mtgDatasetMarker(connection: Connection): Promise<DatasetMarker | undefined> {
  return (await datasetMarkers(connection).findById(MTG_DATASET_ID).lean<DatasetMarker>()) ?? undefined;
}

export async function seedMtg(connection: Connection, options: SeedMtgOptions = {}): Promise<SeedMtgResult> {
  const started = performance.now();
  const { dataDir = MTG_DATA_DIR, batchSize = 1000, onProgress, extraRecords } = options;
  const force = options.force === true || extraRecords !== undefined;
  const files = await readMtgDatasetFiles(dataDir);
  const markers = datasetMarkers(connection);
  const models = mtgModels(connection);
  const aggregateModels = mtgAggregateModels(connection);
  const everyModel = [...Object.values(models), ...Object.values(aggregateModels)];
  const previous = await mtgDatasetMarker(connection);
  const seconds = () => Math.round((performance.now() - started) / 10) / 100;

  if (previous !== undefined && previous.content_hash === files.contentHash && previous.documents_version === MTG_DOCUMENTS_VERSION && !force) {
    return { status: 'already-loaded', replaced: 'nothing', counts: await countDocuments(models), seconds: seconds(), marker: previous };
  }

  let replaced: SeedMtgResult['replaced'] = force && previous !== undefined ? 'forced' : previous !== undefined ? 'outdated' : 'nothing';
  // Without a marker, documents can only be the remains of a load that did not finish.
  if (replaced === 'nothing' && (await Promise.all(everyModel.map((model) => model.estimatedDocumentCount()))).some((count) => count > 0)) replaced = 'partial';
  if (replaced !== 'nothing') {
    // The marker goes first: if clearing is interrupted too, the next run still sees a partial load.
    await markers.deleteOne({ _id: MTG_DATASET_ID });
    await Promise.all(everyModel.map((model) => model.deleteMany({})));
  }
  await Promise.all(everyModel.map((model) => model.init()));

  const dataset = parseMtgDataset(files);
  // Tournaments added since an earlier load (`troupe seed mtg --add`) are loaded again after the files.
  for (const addition of await mtgAdditions(connection).find({}).sort({ added_at: 1 }).lean()) {
    dataset.tournaments = dataset.tournaments.concat(addition.tournaments);
    dataset.decklists = dataset.decklists.concat(addition.decklists);
    dataset.matches = dataset.matches.concat(addition.matches);
  }
  let contentHash = files.contentHash;
  if (extraRecords !== undefined) {
    const extra = extraRecords(dataset);
    dataset.tournaments = dataset.tournaments.concat(extra.tournaments);
    dataset.decklists = dataset.decklists.concat(extra.decklists);
    dataset.matches = dataset.matches.concat(extra.matches);
    contentHash = `${files.contentHash}+extra:${extra.tournaments.length}/${extra.decklists.length}/${extra.matches.length}`;
  }
  const cardNames = dataset.cards.map((card) => card.name);
  const tournaments = dataset.tournaments.map(tournamentDocument);
  const tournamentsById = new Map(tournaments.map((tournament) => [tournament._id, tournament]));
  const decklists = dataset.decklists.map((decklist) => decklistDocument(decklist, cardNames));
  const decklistsById = new Map(decklists.map((decklist) => [decklist._id, decklist]));
  const matches = dataset.matches.map((match) => matchDocument(match, tournamentsById, decklistsById));
  const documents: Record<MtgCollection, () => object[]> = {
    cards: () => dataset.cards.map(cardDocument),
    tournaments: () => tournaments,
    decklists: () => decklists,
    matches: () => matches,
  };

  const overallTotal = MTG_COLLECTIONS.reduce((sum, name) => sum + dataset[name].length, 0);
  let overallDone = 0;
  for (const name of MTG_COLLECTIONS) {
    const docs = documents[name]();
    for (let start = 0; start < docs.length; start += batchSize) {
      const batch = docs.slice(start, start + batchSize);
      // lean: the documents are built to the schema above, so mongoose's per-document casting is skipped.
      await models[name].insertMany(batch as never[], { ordered: false, lean: true });
      overallDone += batch.length;
      onProgress?.({ collection: name, done: start + batch.length, total: docs.length, overallDone, overallTotal });
    }
  }

  // From the documents in memory: grouping them again in MongoDB would read back everything just written.
  const aggregates = metaAggregates(decklists, matches);
  for (const name of META_AGGREGATES) {
    for (let start = 0; start < aggregates[name].length; start += batchSize) {
      await aggregateModels[name].insertMany(aggregates[name].slice(start, start + batchSize) as never[], { ordered: false, lean: true });
    }
  }

  const counts = await countDocuments(models);
  for (const name of MTG_COLLECTIONS) {
    if (counts[name] !== dataset[name].length) throw new Error(`loaded ${counts[name]} MTG ${name}, expected ${dataset[name].length}`);
  }
  for (const name of META_AGGREGATES) {
    const stored = await aggregateModels[name].estimatedDocumentCount();
    if (stored !== aggregates[name].length) throw new Error(`loaded ${stored} MTG ${name}, expected ${aggregates[name].length}`);
  }
  const marker: DatasetMarker = {
    _id: MTG_DATASET_ID,
    as_of: tournaments.reduce((day, t) => (t.day > day ? t.day : day), dataset.meta.as_of),
    content_hash: contentHash,
    documents_version: MTG_DOCUMENTS_VERSION,
    counts,
    loaded_at: new Date(),
  };
  await markers.replaceOne({ _id: MTG_DATASET_ID }, marker, { upsert: true });
  return { status: 'loaded', replaced, counts, seconds: seconds(), marker };
}

async function countDocuments(models: ReturnType<typeof mtgModels>): Promise<MtgCounts> {
  const entries = await Promise.all(MTG_COLLECTIONS.map(async (name) => [name, await models[name].estimatedDocumentCount()] as const));
  return Object.fromEntries(entries) as MtgCounts;
}
