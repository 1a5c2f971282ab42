/**
 * New tournaments added to a loaded MTG dataset (`troupe seed mtg --add FILE`): their records are
 * inserted, every aggregate they touch is read, added to and written back, and the dataset marker gets
 * a new revision, all in one transaction, so the meta tools see the tournaments with their aggregates
 * or not at all, and drop their cached answers. The records are also kept in mtg_additions, so a later
 * full reload (a new shipped dataset, --force) loads them again after the files.
 */
import { createHash } from 'node:crypto';
import { Schema, type ClientSession, type Connection, type Model } from 'mongoose';
import { z } from 'zod';
import { modelOn } from '../model-on.js';
import type { AggregateDocument } from './aggregate-shape.js';
import { mtgCards } from './card.js';
import type { RawDecklist, RawMatch, RawTournament } from './dataset-files.js';
import { datasetMarkers, type DatasetMarker } from './dataset-marker.js';
import { decklistDocument, matchDocument, tournamentDocument } from './dataset-records.js';
import type { MtgDeckCard } from './decklist.js';
import { addContributions, aggregateBuilders, deckContributions, matchContributions, META_AGGREGATES } from './meta-aggregates.js';
import { MTG_DATASET_ID, mtgAggregateModels, mtgDatasetMarker, mtgModels, type MtgCounts, MTG_COLLECTIONS } from './seed.js';

const Day = z.string().regex(/^\d{4}-\d\d-\d\d$/, 'a YYYY-MM-DD day');
const Id = z.number().int().nonnegative();
const CardRef = z.tuple([Id, z.number().int().positive()]);

/** The records of an addition, in the shipped dataset's own format (models/data/mtg/README.md). */
export const MtgAdditionRecords = z
  .object({
    tournaments: z
      .array(
        z.object({
          id: Id,
          key: z.string().min(1),
          source: z.string(),
          name: z.string(),
          format: z.string().min(1),
          date: Day,
          start_time: z.string().nullish(),
          url: z.string().nullish(),
          kind: z.string(),
          player_count: z.number().int().nullish(),
          deck_count: z.number().int().nullish(),
          round_count: z.number().int().nullish(),
          match_count: z.number().int().nullish(),
          has_swiss_rounds: z.boolean(),
        }),
      )
      .min(1, 'an addition needs at least one tournament'),
    decklists: z.array(
      z.object({
        id: Id,
        tournament_id: Id,
        format: z.string().min(1),
        date: Day,
        player: z.string(),
        result: z.string().nullish(),
        rank: z.number().nullish(),
        points: z.number().nullish(),
        wins: z.number().nullish(),
        losses: z.number().nullish(),
        draws: z.number().nullish(),
        archetype: z.string().min(1),
        archetype_color: z.string().regex(/^(C|W?U?B?R?G?)$/, 'a WUBRG subset or "C"').min(1),
        archetype_method: z.string(),
        companion: z.string().nullish(),
        mainboard: z.array(CardRef),
        sideboard: z.array(CardRef),
      }),
    ),
    matches: z.array(
      z.object({
        id: Id,
        tournament_id: Id,
        round: z.string(),
        round_number: z.number().int(),
        deck1_id: Id.nullable(),
        deck2_id: Id.nullable(),
        player1: z.string().optional(),
        player2: z.string().optional(),
        games: z.string(),
        result: z.enum(['p1', 'p2', 'draw']),
      }),
    ),
  })
  .strict();
export type MtgAdditionRecords = z.infer<typeof MtgAdditionRecords>;

/** An addition's records as applied, kept for reloads. */
export interface MtgAddition {
  /** sha256 of the records. */
  _id: string;
  added_at: Date;
  tournaments: RawTournament[];
  decklists: RawDecklist[];
  matches: RawMatch[];
}

const additionSchema = new Schema<MtgAddition>(
  {
    _id: { type: String, required: true },
    added_at: { type: Date, required: true },
    // Kept as given (validated by MtgAdditionRecords when added).
    tournaments: { type: Schema.Types.Mixed, required: true },
    decklists: { type: Schema.Types.Mixed, required: true },
    matches: { type: Schema.Types.Mixed, required: true },
  },
  { collection: 'mtg_additions', versionKey: false },
);

export function mtgAdditions(connection: Connection): Model<MtgAddition> {
  return modelOn<MtgAddition>(connection, 'MtgAddition', additionSchema);
}

/** An addition that cannot be applied as it is; nothing was changed. */
export class MtgAdditionError extends Error {}

export interface MtgAdditionResult {
  added: Pick<MtgCounts, 'tournaments' | 'decklists' | 'matches'>;
  /** Aggregate documents written (created or updated). */
  aggregates_written: number;
  marker: DatasetMarker;
}

const listed = (ids: Iterable<number>) => {
  const all = [...ids];
  return `${all.slice(0, 10).join(', ')}${all.length > 10 ? ` and ${all.length - 10} more` : ''}`;
};

/** Records that refer to what the addition does not hold, and cards the card data does not know. */
function checkReferences(records: MtgAdditionRecords, knownCards: ReadonlySet<number>): void {
  const tournaments = new Map(records.tournaments.map((t) => [t.id, t]));
  const decks = new Set(records.decklists.map((d) => d.id));
  const problems: string[] = [];
  for (const [name, list] of [['tournament', records.tournaments], ['decklist', records.decklists], ['match', records.matches]] as const) {
    const seen = new Set<number>();
    const twice = list.filter((r) => seen.size === seen.add(r.id).size).map((r) => r.id);
    if (twice.length) problems.push(`${name} ids listed twice: ${listed(twice)}`);
  }
  const strayDecks = records.decklists.filter((d) => tournaments.get(d.tournament_id)?.format !== d.format || tournaments.get(d.tournament_id)?.date !== d.date);
  if (strayDecks.length) problems.push(`decklists whose tournament is not in the file, or has another format or date: ${listed(strayDecks.map((d) => d.id))}`);
  const strayMatches = records.matches.filter((m) => !tournaments.has(m.tournament_id) || [m.deck1_id, m.deck2_id].some((id) => id !== null && !decks.has(id)));
  if (strayMatches.length) problems.push(`matches whose tournament or decks are not in the file: ${listed(strayMatches.map((m) => m.id))}`);
  const unknown = new Set(records.decklists.flatMap((d) => [...d.mainboard, ...d.sideboard].map(([index]) => index)).filter((index) => !knownCards.has(index)));
  if (unknown.size) problems.push(`card indexes the card data does not have: ${listed(unknown)}`);
  if (problems.length) throw new MtgAdditionError(problems.join('; '));
}

/** Applies an addition (validated with MtgAdditionRecords) to the loaded dataset, in one transaction. */
export async function addMtgTournaments(connection: Connection, records: MtgAdditionRecords, now = new Date()): Promise<MtgAdditionResult> {
  if ((await mtgDatasetMarker(connection)) === undefined) throw new MtgAdditionError('no complete MTG load to add to; run `troupe seed mtg` first');
  const indexes = [...new Set(records.decklists.flatMap((d) => [...d.mainboard, ...d.sideboard].map(([index]) => index)))];
  const cards = await mtgCards(connection).find({ _id: { $in: indexes } }, { name: 1 }).lean<Array<{ _id: number; name: string }>>();
  checkReferences(records, new Set(cards.map((c) => c._id)));

  const cardNames: string[] = [];
  for (const card of cards) cardNames[card._id] = card.name;
  const tournaments = records.tournaments.map((t) => tournamentDocument(t as RawTournament));
  const tournamentsById = new Map(tournaments.map((t) => [t._id, t]));
  const decklists = records.decklists.map((d) => decklistDocument(d as RawDecklist, cardNames));
  const decklistsById = new Map(decklists.map((d) => [d._id, d]));
  const matches = records.matches.map((m) => matchDocument(m as RawMatch, tournamentsById, decklistsById));
  const id = createHash('sha256').update(JSON.stringify(records)).digest('hex');

  const models = mtgModels(connection);
  const aggregateModels = mtgAggregateModels(connection);
  let result: MtgAdditionResult | undefined;
  await connection.transaction(async (session: ClientSession) => {
    for (const [name, docs] of [['tournaments', tournaments], ['decklists', decklists], ['matches', matches]] as const) {
      const taken = await models[name].find({ _id: { $in: docs.map((d) => d._id) } } as never, { _id: 1 }).session(session).lean<Array<{ _id: number }>>();
      if (taken.length) throw new MtgAdditionError(`${name} already loaded: ids ${listed(taken.map((t) => t._id))}`);
    }
    await models.tournaments.insertMany(tournaments as never[], { session });
    if (decklists.length) await models.decklists.insertMany(decklists as never[], { session });
    if (matches.length) await models.matches.insertMany(matches as never[], { session });

    // The stored documents the contributions touch go in first, so the writes are their sums.
    const builders = aggregateBuilders();
    const contributions = [
      ...decklists.flatMap(deckContributions),
      ...matches.flatMap((m) => matchContributions(m, (deckId): MtgDeckCard[] | undefined => decklistsById.get(deckId)?.sideboard)),
    ];
    for (const name of META_AGGREGATES) {
      const ids = [...new Set(contributions.filter(([n]) => n === name).map(([, doc]) => doc._id))];
      const stored = ids.length ? await aggregateModels[name].find({ _id: { $in: ids } } as never).session(session).lean<AggregateDocument[]>() : [];
      for (const doc of stored) builders[name].add(doc);
    }
    addContributions(builders, contributions);
    let written = 0;
    for (const name of META_AGGREGATES) {
      const docs = builders[name].documents();
      if (docs.length === 0) continue;
      await aggregateModels[name].bulkWrite(
        docs.map((doc) => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc as never, upsert: true } })),
        { session },
      );
      written += docs.length;
    }

    await mtgAdditions(connection).create([{ _id: id, added_at: now, tournaments: records.tournaments, decklists: records.decklists, matches: records.matches }], { session });
    const marker = (await datasetMarkers(connection).findById(MTG_DATASET_ID).session(session).lean<DatasetMarker>())!;
    const counts = { ...marker.counts } as MtgCounts;
    for (const name of MTG_COLLECTIONS) counts[name] = (counts[name] ?? 0) + (name === 'cards' ? 0 : records[name].length);
    const newest = tournaments.reduce((day, t) => (t.day > day ? t.day : day), marker.as_of);
    const updated: DatasetMarker = { ...marker, as_of: newest, counts, revision: (marker.revision ?? 0) + 1, updated_at: now };
    await datasetMarkers(connection).replaceOne({ _id: MTG_DATASET_ID }, updated, { session });
    result = { added: { tournaments: tournaments.length, decklists: decklists.length, matches: matches.length }, aggregates_written: written, marker: updated };
  });
  return result!;
}
