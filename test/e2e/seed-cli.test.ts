import { expect } from 'chai';
import mongoose from 'mongoose';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { uniqueDbName } from '../support/mongo-target.js';
import { runTroupe, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';

describe('troupe seed mtg (CLI)', function () {
  this.timeout(60_000);
  const spawned: TroupeProcess[] = [];
  let mongo: EmbeddedMongo;
  const dbName = uniqueDbName('seed_cli');

  const troupe = (args: string[]) => runTroupe(args, troupeEnv({ MONGODB_URI: mongo.uri, MONGODB_DB: dbName }), spawned);

  before(async () => {
    mongo = await startEmbeddedMongo({ port: 0 });
  });

  afterEach(async () => {
    for (const child of spawned.splice(0)) await child.kill();
  });

  after(async () => {
    await mongo?.stop();
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

  it('--verify checks the daily counts against the raw collections, and lists a tampered one', async () => {
    // Loaded by the test above; alone, this loads it.
    expect((await troupe(['seed', 'mtg'])).code).to.equal(0);
    const clean = await troupe(['seed', 'mtg', '--verify']);
    expect(clean.code, clean.stderr).to.equal(0);
    expect(clean.stdout).to.match(/^aggregates match: \d+ mtg_daily_decks and \d+ mtg_daily_matches documents recomputed from mtg_decklists and mtg_matches \(\d+\.\d s\)\.$/m);

    const connection = await mongoose.createConnection(mongo.uri, { dbName }).asPromise();
    try {
      await connection.db!.collection('mtg_daily_decks').updateOne({ _id: 'Modern/2026-08-08' as never }, { $inc: { 'counts.0.decks': 5 } });
    } finally {
      await connection.close();
    }
    const tampered = await troupe(['seed', 'mtg', '--verify']);
    expect(tampered.code).to.equal(1);
    expect(tampered.stdout).to.match(/^aggregates differ from mtg_decklists and mtg_matches in 1 figure \(/m);
    expect(tampered.stdout).to.match(/^ {2}mtg_daily_decks Modern\/2026-08-08 .+: (\d+) stored, \d+ expected$/m);
    expect(tampered.stdout).to.include('Rebuild them with: troupe seed mtg --force');

    const both = await troupe(['seed', 'mtg', '--verify', '--force']);
    expect(both.code).to.equal(1);
    expect(both.stderr).to.include('--force and --verify do not go together');
  });
});
