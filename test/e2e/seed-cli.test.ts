import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import mongoose from 'mongoose';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { seedMtgFast } from '../../scripts/load-mtg-dataset.js';
import { uniqueDbName } from '../support/mongo-target.js';
import { writeMtgSampleDataset, type MtgSampleDataset } from '../support/mtg-sample-dataset.js';
import { runTroupe, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';

describe('troupe seed mtg (CLI)', function () {
  // One test loads the whole dataset twice: 24 s on a day this shared machine ran at a quarter of its speed.
  this.timeout(120_000);
  const spawned: TroupeProcess[] = [];
  let mongo: EmbeddedMongo;
  let sample: MtgSampleDataset;
  const dbName = uniqueDbName('seed_cli');

  const troupe = (args: string[], db = dbName) => runTroupe(args, troupeEnv({ MONGODB_URI: mongo.uri, MONGODB_DB: db }), spawned);

  /**
   * A database of its own holding a sample of the dataset's real records, loaded by this process:
   * --verify and --add work on any complete load, and on the sample they take a fraction of the time.
   */
  async function loadedSample(): Promise<string> {
    const db = uniqueDbName('seed_cli_sample');
    const connection = await mongoose.createConnection(mongo.uri, { dbName: db }).asPromise();
    try {
      expect((await seedMtgFast(connection, { dataDir: sample.dir })).status).to.equal('loaded');
    } finally {
      await connection.close();
    }
    return db;
  }

  before(async () => {
    mongo = await startEmbeddedMongo({ port: 0 });
    sample = await writeMtgSampleDataset();
  });

  afterEach(async () => {
    for (const child of spawned.splice(0)) await child.kill();
  });

  after(async () => {
    await mongo?.stop();
    await sample?.remove();
  });

  it('loads the dataset, printing counts and seconds; a second run changes nothing', async () => {
    const first = await troupe(['seed', 'mtg']);
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.match(/^MTG dataset \(as of 2026-08-08\) loaded in \d+\.\d s:$/m);
    for (const [name, count] of [['cards', '6,462'], ['tournaments', '1,025'], ['decklists', '35,716'], ['matches', '45,606']]) {
      expect(first.stdout).to.match(new RegExp(`^ {2}${name}\\s+${count}$`, 'm'));
      // Not a terminal: one plain progress line per collection, no carriage returns.
      expect(first.stderr).to.include(`loaded ${count} ${name}\n`);
    }
    expect(first.stderr).to.not.include('\r');

    const second = await troupe(['seed', 'mtg']);
    expect(second.code, second.stderr).to.equal(0);
    expect(second.stdout).to.match(/^MTG dataset \(as of 2026-08-08\) already loaded on \S+; nothing changed/m);
    expect(second.stdout).to.match(/^ {2}decklists\s+35,716$/m);
    expect(second.stderr).to.equal('');
  });

  it('--verify checks the aggregates against the raw collections, and lists a tampered one', async () => {
    const db = await loadedSample();
    const clean = await troupe(['seed', 'mtg', '--verify'], db);
    expect(clean.code, clean.stderr).to.equal(0);
    expect(clean.stdout).to.match(
      /^aggregates match: [\d,]+ mtg_daily_decks, [\d,]+ mtg_daily_matches, [\d,]+ mtg_daily_adoption, [\d,]+ mtg_daily_sideboard_results, [\d,]+ mtg_archetype_totals documents recomputed from mtg_decklists and mtg_matches \(\d+\.\d s\)\.$/m,
    );

    const connection = await mongoose.createConnection(mongo.uri, { dbName: db }).asPromise();
    const tamper = (by: number) => connection.db!.collection('mtg_daily_decks').updateOne({ _id: 'Modern/2026-08-08' as never }, { $inc: { 'counts.0.decks': by } });
    try {
      await tamper(5);
      const tampered = await troupe(['seed', 'mtg', '--verify'], db);
      expect(tampered.code).to.equal(1);
      expect(tampered.stdout).to.match(/^aggregates differ from mtg_decklists and mtg_matches in 1 figure \(/m);
      expect(tampered.stdout).to.match(/^ {2}mtg_daily_decks Modern\/2026-08-08 .+: (\d+) stored, \d+ expected$/m);
      expect(tampered.stdout).to.include('Rebuild them with: troupe seed mtg --force');
    } finally {
      await tamper(-5);
      await connection.close();
    }

    const both = await troupe(['seed', 'mtg', '--verify', '--force'], db);
    expect(both.code).to.equal(1);
    expect(both.stderr).to.include('--force and --verify do not go together');
  });

  it('--add adds a file of new tournaments with their aggregates, and refuses a bad or repeated one', async () => {
    const db = await loadedSample();
    const { dataset } = sample;
    const tournament = dataset.tournaments.find((t) => t.date === '2026-08-08' && t.format === 'Modern')!;
    const decklists = dataset.decklists.filter((d) => d.tournament_id === tournament.id);
    const matches = dataset.matches.filter((m) => m.tournament_id === tournament.id);
    const [t, d, m] = [90_000_000, 90_000_000, 90_000_000];
    const addition = {
      tournaments: [{ ...tournament, id: tournament.id + t, key: `${tournament.key}#cli`, date: '2026-08-09' }],
      decklists: decklists.map((x) => ({ ...x, id: x.id + d, tournament_id: x.tournament_id + t, date: '2026-08-09' })),
      matches: matches.map((x) => ({ ...x, id: x.id + m, tournament_id: x.tournament_id + t, deck1_id: x.deck1_id === null ? null : x.deck1_id + d, deck2_id: x.deck2_id === null ? null : x.deck2_id + d })),
    };
    const dir = await mkdtemp(join(tmpdir(), 'troupe-seed-add-'));
    try {
      const file = join(dir, 'addition.json.gz');
      await writeFile(file, gzipSync(JSON.stringify(addition)));
      const added = await troupe(['seed', 'mtg', '--add', file], db);
      expect(added.code, added.stderr).to.equal(0);
      expect(added.stdout).to.match(new RegExp(`^added 1 tournaments, ${decklists.length} decklists and ${matches.length} matches \\(dataset now as of 2026-08-09, revision 1\\); [\\d,]+ aggregate documents updated`, 'm'));

      const again = await troupe(['seed', 'mtg', '--add', file], db);
      expect(again.code).to.equal(1);
      expect(again.stderr).to.match(/^troupe seed mtg --add: tournaments already loaded: ids \d+; nothing was added$/m);
      const bad = join(dir, 'bad.json');
      await writeFile(bad, JSON.stringify({ tournaments: [{ id: 'x' }], decklists: [], matches: [] }));
      const refused = await troupe(['seed', 'mtg', '--add', bad], db);
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.include('does not hold {tournaments, decklists, matches} records: tournaments.0.id:');
      const both = await troupe(['seed', 'mtg', '--add', file, '--force'], db);
      expect(both.stderr).to.include('--add goes alone');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
