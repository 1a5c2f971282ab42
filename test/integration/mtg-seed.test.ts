import { expect } from 'chai';
import { BSON } from 'mongodb';
import mongoose, { type Connection } from 'mongoose';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { mtgCards } from '../../models/mtg/card.js';
import { cardLookupKey } from '../../models/mtg/card-lookup-key.js';
import { verifyMetaAggregates } from '../../models/mtg/meta-aggregates-verification.js';
import { mtgDailyDecks } from '../../models/mtg/daily-deck-counts.js';
import { mtgDailyMatches } from '../../models/mtg/daily-match-counts.js';
import { datasetMarkers } from '../../models/mtg/dataset-marker.js';
import { mtgDecklists } from '../../models/mtg/decklist.js';
import { mtgMatches } from '../../models/mtg/match.js';
import { MTG_COLLECTIONS, MTG_DOCUMENTS_VERSION, mtgAggregateModels, mtgModels, seedMtg, type SeedMtgResult, type SeedProgress } from '../../models/mtg/seed.js';
import { mtgTournaments } from '../../models/mtg/tournament.js';
import { synthesizeOlderCopies } from '../../scripts/bench/mtg-scale.js';
import { seedMtgFast } from '../../scripts/load-mtg-dataset.js';
import { writeMtgSampleDataset, type MtgSampleDataset } from '../support/mtg-sample-dataset.js';

/** meta.json's counts for the shipped dataset (also in models/data/mtg/README.md). */
const COUNTS = { cards: 6462, tournaments: 1025, decklists: 35716, matches: 45606 };

async function countsIn(connection: Connection): Promise<typeof COUNTS> {
  return {
    cards: await mtgCards(connection).countDocuments(),
    tournaments: await mtgTournaments(connection).countDocuments(),
    decklists: await mtgDecklists(connection).countDocuments(),
    matches: await mtgMatches(connection).countDocuments(),
  };
}

describe('seedMtg (the bundled MTG dataset into MongoDB)', function () {
  this.timeout(60_000);
  let mongo: EmbeddedMongo;
  let connection: Connection;
  let first: SeedMtgResult;
  const progress: SeedProgress[] = [];

  before(async () => {
    mongo = await startEmbeddedMongo({ port: 0 });
    connection = await mongoose.createConnection(mongo.uri, { dbName: 'mtg_seed' }).asPromise();
    first = await seedMtg(connection, { onProgress: (p) => progress.push(p) });
  });

  after(async () => {
    await connection?.close();
    await mongo?.stop();
  });

  it('loads every record of the dataset and writes the marker last', async () => {
    expect(first.status).to.equal('loaded');
    expect(first.replaced).to.equal('nothing');
    expect(first.counts).to.deep.equal(COUNTS);
    expect(await countsIn(connection)).to.deep.equal(COUNTS);
    const marker = await datasetMarkers(connection).findById('mtg').lean();
    expect(marker).to.include({ as_of: '2026-08-08' });
    expect(marker!.content_hash).to.match(/^[0-9a-f]{64}$/);
    expect(marker!.counts).to.deep.equal(COUNTS);
    expect(progress.at(-1)).to.deep.include({ collection: 'matches', done: COUNTS.matches, overallDone: progress.at(-1)!.overallTotal });
  });

  it('writes aggregates (daily decks, matches, card adoption, sideboard results; archetype totals) whose totals are the raw collections\' (every figure is checked against them on the sample below)', async () => {
    const documents = (collection: string) => connection.db!.collection(collection).countDocuments();
    expect(await documents('mtg_daily_decks')).to.be.greaterThan(300);
    expect(await documents('mtg_daily_adoption')).to.be.greaterThan(await documents('mtg_daily_decks'));
    expect(await documents('mtg_daily_sideboard_results')).to.be.greaterThan(300);
    expect(await documents('mtg_archetype_totals')).to.be.greaterThan(100);
    const total = async (collection: string) => (await connection.db!.collection(collection).aggregate<{ n: number }>([{ $group: { _id: null, n: { $sum: '$decks' } } }]).toArray())[0].n;
    expect(await total('mtg_daily_adoption')).to.equal(COUNTS.decklists);
    expect(await total('mtg_archetype_totals')).to.equal(COUNTS.decklists);
    const sum = async (collection: string, field: string) =>
      (await connection.db!.collection(collection).aggregate<{ n: number }>([{ $unwind: '$counts' }, { $group: { _id: null, n: { $sum: `$counts.${field}` } } }]).toArray())[0].n;
    expect(await sum('mtg_daily_decks', 'decks')).to.equal(COUNTS.decklists);
    expect(await sum('mtg_daily_matches', 'matches')).to.equal(COUNTS.matches);
    // One document per format and day, its counts keyed by what the meta tools group by.
    const day = await mtgDailyDecks(connection).findById('Pauper/2026-05-17').lean();
    expect(day).to.deep.include({ format: 'Pauper', day: '2026-05-17', date: new Date('2026-05-17T00:00:00Z') });
    expect(day!.counts.reduce((n, c) => n + c.decks, 0)).to.equal(await mtgDecklists(connection).countDocuments({ format: 'Pauper', day: '2026-05-17' }));
  });

  it('creates the indexes the meta queries need', async () => {
    const keys = async (collection: string) => (await connection.db!.collection(collection).listIndexes().toArray()).map((index) => index.key as object);
    expect(await keys('mtg_decklists')).to.deep.include.members([{ format: 1, date: 1 }, { format: 1, archetype_name: 1, date: 1 }]);
    expect(await keys('mtg_matches')).to.deep.include.members([{ format: 1, date: 1 }, { deck1_id: 1 }, { deck2_id: 1 }]);
    expect(await keys('mtg_tournaments')).to.deep.include.members([{ format: 1, date: 1 }]);
    expect(await keys('mtg_daily_decks')).to.deep.include.members([{ format: 1, date: 1 }]);
    expect(await keys('mtg_daily_matches')).to.deep.include.members([{ format: 1, date: 1 }]);
    const cardIndexes = await connection.db!.collection('mtg_cards').listIndexes().toArray();
    expect(cardIndexes.find((index) => index.key.name === 1)?.unique).to.equal(true);
    expect(cardIndexes.map((index) => index.key as object)).to.deep.include({ lookup_keys: 1 });
  });

  it('stores deck lists with card names, real dates and the record', async () => {
    const deck = await mtgDecklists(connection).findById(1).lean();
    expect(deck).to.deep.include({ tournament_id: 1, format: 'Pauper', day: '2026-05-17', player: 'Elvengrillo', wins: 4, losses: 1, draws: 0 });
    expect(deck).to.deep.include({ archetype: 'Red Madness', archetype_color: 'R', archetype_name: 'Red Madness' });
    expect(deck!.date).to.deep.equal(new Date('2026-05-17T00:00:00Z'));
    expect(deck!.mainboard[0]).to.deep.equal({ card: 'Faithless Looting', count: 4 });
    expect(deck!.mainboard.reduce((sum, entry) => sum + entry.count, 0)).to.equal(60);
    expect(deck!.sideboard).to.deep.include({ card: "Tormod's Crypt", count: 2 });

    const match = await mtgMatches(connection).findById(1).lean();
    expect(match).to.deep.include({ tournament_id: 1, format: 'Pauper', day: '2026-05-17', deck1_id: 2, deck2_id: 6, games: '2-1-0', result: 'p1' });
    expect(match!.date).to.deep.equal(new Date('2026-05-17T00:00:00Z'));
    const [deck2, deck6] = await Promise.all([2, 6].map((id) => mtgDecklists(connection).findById(id).lean()));
    expect(match).to.deep.include({ deck1_archetype: deck2!.archetype_name, deck2_archetype: deck6!.archetype_name });
  });

  it('names decks no archetype rule matched by their colours', async () => {
    const unknown = await mtgDecklists(connection).findOne({ archetype: 'Unknown' }).lean();
    expect(unknown!.archetype_name).to.equal(`Unknown (${unknown!.archetype_color})`);
    expect(await mtgDecklists(connection).countDocuments({ archetype_name: 'Unknown' })).to.equal(0);
    // A match against a player who published no list has no archetype on that side.
    const oneSided = await mtgMatches(connection).findOne({ deck2_id: null }).lean();
    expect(oneSided).to.deep.include({ deck2_archetype: null });
  });

  it('resolves every card a deck list names, and finds cards by their lookup key', async () => {
    const names = new Set(await mtgCards(connection).distinct('name'));
    expect(names.size).to.equal(COUNTS.cards);
    for (const board of ['mainboard.card', 'sideboard.card']) {
      const used = (await mtgDecklists(connection).distinct(board)) as string[];
      expect(used.length).to.be.greaterThan(100);
      expect(used.filter((name) => !names.has(name))).to.deep.equal([]);
    }

    const byKey = async (typed: string) => (await mtgCards(connection).find({ lookup_keys: cardLookupKey(typed) }).lean()).map((card) => card.name);
    expect(await byKey('lim duls vault')).to.deep.equal(["Lim-Dûl's Vault"]);
    expect(await byKey('LIGHTNING BOLT')).to.deep.equal(['Lightning Bolt']);
    expect(await byKey('fire//ice')).to.deep.equal(['Fire // Ice']);
    // A double-faced card answers to its front face and to its full name.
    expect(await byKey("Aang, Swift Savior // Aang and La, Ocean's Fury")).to.deep.equal(['Aang, Swift Savior']);
    const bolt = await mtgCards(connection).findOne({ name: 'Lightning Bolt' }).lean();
    expect(bolt).to.deep.include({ mana_cost: '{R}', mana_value: 1, type_line: 'Instant', is_land: false, colors: ['R'] });
  });

  it('changes nothing on a second run with the same files', async () => {
    const before = await datasetMarkers(connection).findById('mtg').lean();
    const again = await seedMtg(connection);
    expect(again.status).to.equal('already-loaded');
    expect(again.counts).to.deep.equal(COUNTS);
    expect(await countsIn(connection)).to.deep.equal(COUNTS);
    expect(await datasetMarkers(connection).findById('mtg').lean()).to.deep.equal(before);
  });
});

/**
 * The load without the wire against the load over it, and what a load does about what it finds (an
 * older load, an interrupted one, --force, extra records), on a sample of the dataset's real records
 * (every card; the deck lists and matches of the first and last days): the full files are loaded above.
 */
describe('seedMtg on a sample of the dataset: without the wire, reloads, --verify', function () {
  this.timeout(60_000);
  let mongo: EmbeddedMongo;
  let connection: Connection;
  let sample: MtgSampleDataset;
  let COUNTS: MtgSampleDataset['counts'];

  before(async () => {
    sample = await writeMtgSampleDataset();
    COUNTS = sample.counts;
    mongo = await startEmbeddedMongo({ port: 0 });
    connection = await mongoose.createConnection(mongo.uri, { dbName: 'mtg_seed_sample' }).asPromise();
    expect(await seedMtgFast(connection, { dataDir: sample.dir })).to.deep.include({ status: 'loaded', replaced: 'nothing', counts: COUNTS });
  });

  after(async () => {
    await connection?.close();
    await mongo?.stop();
    await sample?.remove();
  });

  it('stores every document exactly as a load over the wire does when loading without the wire (seedMtgFast), and puts the models back', async () => {
    const wire = await mongoose.createConnection(mongo.uri, { dbName: 'mtg_sample_over_the_wire' }).asPromise();
    try {
      expect(await seedMtg(wire, { dataDir: sample.dir })).to.deep.include({ status: 'loaded', counts: COUNTS });
      const local = connection;
      for (const model of Object.values(mtgModels(local))) expect(Object.hasOwn(model, 'insertMany'), `${model.modelName}.insertMany put back`).to.equal(false);
      for (const name of [...MTG_COLLECTIONS.map((c) => `mtg_${c}`), ...Object.values(mtgAggregateModels(local)).map((m) => m.collection.collectionName)]) {
        // Raw BSON: the same bytes, field order and types included.
        const read = (c: Connection) => c.db!.collection(name).find({}, { sort: { _id: 1 }, raw: true }).toArray() as unknown as Promise<Buffer[]>;
        const [expected, actual] = await Promise.all([read(wire), read(local)]);
        expect(actual.length, name).to.equal(expected.length);
        for (let i = 0; i < expected.length; i++) {
          if (!actual[i].equals(expected[i])) {
            const shown = (bytes: Buffer) => BSON.EJSON.stringify(BSON.deserialize(bytes), { relaxed: false });
            expect.fail(`${name} #${i} differs: ${shown(actual[i])} stored without the wire, ${shown(expected[i])} over it`);
          }
        }
      }
      expect((await seedMtgFast(local, { dataDir: sample.dir })).status, 'a second run finds the marker').to.equal('already-loaded');
    } finally {
      await wire.close();
    }
  });
  it('reloads a load whose documents have an older shape', async () => {
    await datasetMarkers(connection).updateOne({ _id: 'mtg' }, { $unset: { documents_version: 1 } });
    const reloaded = await seedMtgFast(connection, { dataDir: sample.dir });
    expect(reloaded).to.deep.include({ status: 'loaded', replaced: 'outdated' });
    expect(reloaded.marker.documents_version).to.equal(MTG_DOCUMENTS_VERSION);
    expect(await countsIn(connection)).to.deep.equal(COUNTS);
  });

  it('clears and reloads what an interrupted load left (data without a marker)', async () => {
    // What a crash half-way through leaves: some collections partly filled, no marker.
    const modernDays = await mtgDailyMatches(connection).find({ format: 'Modern' }).sort({ _id: 1 }).lean();
    await datasetMarkers(connection).deleteOne({ _id: 'mtg' });
    const lastMatches = await mtgMatches(connection).find({}, { _id: 1 }).sort({ _id: -1 }).limit(Math.floor(COUNTS.matches / 2)).lean();
    await mtgMatches(connection).deleteMany({ _id: { $in: lastMatches.map((m) => m._id) } });
    await mtgDecklists(connection).deleteOne({ _id: 1 });
    await mtgDailyMatches(connection).deleteMany({ format: 'Modern' });

    const repaired = await seedMtgFast(connection, { dataDir: sample.dir });
    expect(repaired.status).to.equal('loaded');
    expect(repaired.replaced).to.equal('partial');
    expect(await countsIn(connection)).to.deep.equal(COUNTS);
    expect(await mtgDecklists(connection).findById(1).lean()).to.deep.include({ player: 'Elvengrillo' });
    expect(await datasetMarkers(connection).findById('mtg').lean()).to.deep.include({ as_of: '2026-08-08' });
    expect(await mtgDailyMatches(connection).find({ format: 'Modern' }).sort({ _id: 1 }).lean()).to.deep.equal(modernDays);
  });

  it('reloads everything when forced, its daily counts matching the raw collections', async () => {
    const reloaded = await seedMtgFast(connection, { dataDir: sample.dir, force: true });
    expect(reloaded).to.deep.include({ status: 'loaded', replaced: 'forced' });
    expect((await verifyMetaAggregates(connection)).differences).to.deep.equal([]);
  });

  it('verify reports a tampered, a missing and an extra daily count', async () => {
    const day = (await mtgDailyDecks(connection).findById('Modern/2026-08-08').lean())!;
    const first = day.counts[0];
    await mtgDailyDecks(connection).updateOne({ _id: day._id }, { $inc: { 'counts.0.decks': 2 } });
    await mtgDailyMatches(connection).deleteOne({ _id: 'Pauper/2026-05-17' });
    await mtgDailyMatches(connection).updateOne({ _id: 'Legacy/2026-08-08' }, { $push: { counts: { deck1: 'Nobody', deck2: null, result: 'p1', matches: 1 } } });

    const { differences } = await verifyMetaAggregates(connection);
    expect(differences).to.include(`mtg_daily_decks Modern/2026-08-08 ${first.archetype} (${first.color}): ${first.decks + 2} stored, ${first.decks} expected`);
    expect(differences).to.include('mtg_daily_matches Legacy/2026-08-08 Nobody vs (no list), p1: 1 stored, none expected');
    expect(differences).to.include('mtg_daily_matches Pauper/2026-05-17 format: missing stored, Pauper expected');
    expect(differences.filter((d) => d.startsWith('mtg_daily_matches Pauper/2026-05-17 ')).length).to.be.greaterThan(3);
    expect(differences.every((d) => / Modern\/2026-08-08 | Legacy\/2026-08-08 | Pauper\/2026-05-17 /.test(d))).to.equal(true);

    // A reload writes them right again.
    await seedMtgFast(connection, { dataDir: sample.dir, force: true });
    expect(await mtgDailyDecks(connection).findById('Modern/2026-08-08').lean()).to.deep.equal(day);
  });
  it('loads extra records with the files (bench:meta --scale), counting them in the daily counts, and a plain load drops them again', async () => {
    const scaled = await seedMtgFast(connection, {
      dataDir: sample.dir,
      extraRecords: (dataset) => {
        const tournaments = dataset.tournaments.filter((t) => t.id === 1);
        const decklists = dataset.decklists.filter((d) => d.tournament_id === 1);
        const matches = dataset.matches.filter((m) => m.tournament_id === 1);
        const extra = synthesizeOlderCopies({ tournaments, decklists, matches }, 3, dataset);
        expect(extra.tournaments.map((t) => t.date)).to.deep.equal(['2026-05-16', '2026-05-15']);
        return extra;
      },
    });
    const first = await mtgTournaments(connection).findById(1).lean();
    const extraDecks = await mtgDecklists(connection).countDocuments({ tournament_id: first!._id });
    expect(scaled).to.deep.include({ status: 'loaded', replaced: 'forced' });
    expect(scaled.counts).to.deep.include({ tournaments: COUNTS.tournaments + 2, decklists: COUNTS.decklists + 2 * extraDecks });
    expect(scaled.marker.content_hash).to.match(/^[0-9a-f]{64}\+extra:2\/\d+\/\d+$/);
    expect(await mtgDailyDecks(connection).exists({ _id: 'Pauper/2026-05-15' })).to.not.equal(null);
    expect((await verifyMetaAggregates(connection)).differences).to.deep.equal([]);

    const plain = await seedMtgFast(connection, { dataDir: sample.dir });
    expect(plain).to.deep.include({ status: 'loaded', replaced: 'outdated' });
    expect(plain.counts).to.deep.equal(COUNTS);
    expect(await mtgDailyDecks(connection).exists({ _id: 'Pauper/2026-05-15' })).to.equal(null);
  });
});
