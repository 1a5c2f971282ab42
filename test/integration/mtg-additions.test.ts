/**
 * Adding tournaments to a loaded dataset (`troupe seed mtg --add`): the aggregates are updated in the
 * same transaction and equal a recomputation from the raw collections; the meta tools see the new data
 * at once; a bad addition changes nothing; a full reload keeps the additions.
 */
import { expect } from 'chai';
import mongoose from 'mongoose';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { MetaQueries } from '../../actors/meta/meta-queries.js';
import { currentWindow } from '../../actors/meta/time-window.js';
import type { MtgDataset } from '../../models/mtg/dataset-files.js';
import { mtgDailyDecks } from '../../models/mtg/daily-deck-counts.js';
import { mtgDecklists } from '../../models/mtg/decklist.js';
import { verifyMetaAggregates } from '../../models/mtg/meta-aggregates-verification.js';
import { mtgDatasetMarker } from '../../models/mtg/seed.js';
import { addMtgTournaments, MtgAdditionError, MtgAdditionRecords } from '../../models/mtg/tournament-additions.js';
import { seedMtgFast } from '../../scripts/load-mtg-dataset.js';
import { uniqueDbName } from '../support/mongo-target.js';
import { writeMtgSampleDataset, type MtgSampleDataset } from '../support/mtg-sample-dataset.js';

/** Copies of a day's tournaments under new ids, on `day`: they add to that day's aggregates (or make new ones). */
function copies(dataset: MtgDataset, from: string, day: string, offset: number): MtgAdditionRecords {
  const tournaments = dataset.tournaments.filter((t) => t.date === from && t.format === 'Modern');
  const ids = new Set(tournaments.map((t) => t.id));
  const decklists = dataset.decklists.filter((d) => ids.has(d.tournament_id));
  const matches = dataset.matches.filter((m) => ids.has(m.tournament_id));
  const deck = (id: number | null) => (id === null ? null : id + offset);
  return MtgAdditionRecords.parse({
    tournaments: tournaments.map((t) => ({ ...t, id: t.id + offset, key: `${t.key}#added`, date: day })),
    decklists: decklists.map((d) => ({ ...d, id: d.id + offset, tournament_id: d.tournament_id + offset, date: day })),
    matches: matches.map((m) => ({ ...m, id: m.id + offset, tournament_id: m.tournament_id + offset, deck1_id: deck(m.deck1_id), deck2_id: deck(m.deck2_id) })),
  });
}

async function expectAdditionError(promise: Promise<unknown>, message: RegExp) {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(MtgAdditionError);
    expect((error as Error).message).to.match(message);
    return;
  }
  expect.fail('expected an MtgAdditionError');
}

describe('adding tournaments to the loaded MTG dataset (a sample of its real records)', function () {
  this.timeout(60_000);
  let sample: MtgSampleDataset;
  let dataset: MtgDataset;
  let mongo: EmbeddedMongo;

  before(async () => {
    sample = await writeMtgSampleDataset();
    dataset = sample.dataset;
    mongo = await startEmbeddedMongo({ port: 0 });
  });

  after(async () => {
    await mongo?.stop();
    await sample?.remove();
  });

  /** Runs `fn` on a database of its own holding the sample. */
  async function onLoadedSample(fn: (connection: mongoose.Connection) => Promise<void>): Promise<void> {
    const connection = await mongoose.createConnection(mongo.uri, { dbName: uniqueDbName('mtg_additions') }).asPromise();
    try {
      expect((await seedMtgFast(connection, { dataDir: sample.dir })).status).to.equal('loaded');
      await fn(connection);
    } finally {
      await connection.close();
    }
  }

  it('updates every aggregate with the records, in one transaction, as a recomputation would; the meta tools see it at once', () =>
    onLoadedSample(async (connection: mongoose.Connection) => {
      const before = (await mtgDatasetMarker(connection))!;
      const newest = before.as_of;
      const queries = () => new MetaQueries(connection);
      const window = currentWindow(newest, 7);
      const decksBefore = (await queries().deckTallies('Modern', [window]))[0].reduce((n, t) => n + t.count, 0);

      // Onto existing days (the newest one: merged into stored documents), and onto a new newest day.
      const sameDay = copies(dataset, newest, newest, 50_000_000);
      const nextDay = copies(dataset, newest, '2026-08-09', 60_000_000);
      expect(sameDay.decklists.length).to.be.greaterThan(10);
      const first = await addMtgTournaments(connection, sameDay);
      expect(first.added).to.deep.equal({ tournaments: sameDay.tournaments.length, decklists: sameDay.decklists.length, matches: sameDay.matches.length });
      expect(first.marker).to.deep.include({ as_of: newest, revision: 1, content_hash: before.content_hash, loaded_at: before.loaded_at });
      expect(first.marker.counts.decklists).to.equal(before.counts.decklists + sameDay.decklists.length);
      expect((await verifyMetaAggregates(connection)).differences).to.deep.equal([]);

      // The answer cache is keyed by the marker's revision: the same window now counts the added lists.
      const decksAfter = (await queries().deckTallies('Modern', [window]))[0].reduce((n, t) => n + t.count, 0);
      expect(decksAfter).to.equal(decksBefore + sameDay.decklists.length);

      const second = await addMtgTournaments(connection, nextDay);
      expect(second.marker).to.deep.include({ as_of: '2026-08-09', revision: 2 });
      expect(await queries().newestDay()).to.equal('2026-08-09');
      expect(await mtgDailyDecks(connection).exists({ _id: 'Modern/2026-08-09' })).to.not.equal(null);

      // A full reload loads the files and then the additions again.
      const reloaded = await seedMtgFast(connection, { dataDir: sample.dir, force: true });
      expect(reloaded.counts.decklists).to.equal(before.counts.decklists + sameDay.decklists.length + nextDay.decklists.length);
      expect(reloaded.marker.as_of).to.equal('2026-08-09');
      expect(await mtgDailyDecks(connection).exists({ _id: 'Modern/2026-08-09' })).to.not.equal(null);
    }));

  it('refuses an addition that repeats loaded ids or refers to what it does not hold, changing nothing', () =>
    onLoadedSample(async (connection: mongoose.Connection) => {
      const before = (await mtgDatasetMarker(connection))!;
      const decks = await mtgDecklists(connection).estimatedDocumentCount();
      const newestDay = await mtgDailyDecks(connection).findById(`Modern/${before.as_of}`).lean();
      const real = copies(dataset, before.as_of, before.as_of, 0);
      await expectAdditionError(addMtgTournaments(connection, real), /^tournaments already loaded: ids \d+/);

      const fresh = copies(dataset, before.as_of, before.as_of, 70_000_000);
      const strayMatch = { ...fresh, matches: [...fresh.matches, { ...fresh.matches[0], id: 1, deck1_id: 123 }] };
      await expectAdditionError(addMtgTournaments(connection, strayMatch), /matches whose tournament or decks are not in the file: 1$/);
      const unknownCard = { ...fresh, decklists: [{ ...fresh.decklists[0], mainboard: [[999_999, 4] as [number, number]] }, ...fresh.decklists.slice(1)] };
      await expectAdditionError(addMtgTournaments(connection, unknownCard), /card indexes the card data does not have: 999999/);
      // New tournaments, but one deck list whose id is already loaded.
      const clash = { ...fresh, decklists: [...fresh.decklists, { ...fresh.decklists[0], id: real.decklists[0].id }] };
      await expectAdditionError(addMtgTournaments(connection, clash), /^decklists already loaded: ids \d+$/);

      expect(await mtgDecklists(connection).estimatedDocumentCount()).to.equal(decks);
      expect(await mtgDatasetMarker(connection)).to.deep.equal(before);
      expect(await mtgDailyDecks(connection).findById(`Modern/${before.as_of}`).lean()).to.deep.equal(newestDay);
      expect(() => MtgAdditionRecords.parse({ tournaments: [], decklists: [], matches: [] })).to.throw(/at least one tournament/);
    }));
});
