import { expect } from 'chai';
import type { Document } from 'mongodb';
import { expectServerError, useMongo } from '../../support/mongo-target.js';

describe('embedded mongo: administrative and counting commands', function () {
  const m = useMongo('commands');

  it('ping answers ok: 1', async function () {
    const reply = await m.db.command({ ping: 1 });
    expect(reply.ok).to.equal(1);
  });

  it('buildInfo reports a 7.x version', async function () {
    const info = await m.client.db('admin').command({ buildInfo: 1 });
    expect(info.ok).to.equal(1);
    expect(info.version).to.be.a('string').and.match(/^7\./);
    expect(info.versionArray, 'versionArray').to.be.an('array');
    expect((info.versionArray as number[])[0]).to.equal(7);
  });

  it('an unknown command fails with 59 CommandNotFound', async function () {
    const error = await expectServerError(m.db.command({ noSuchCommand: 1 }), 59);
    expect(error.codeName).to.equal('CommandNotFound');
  });

  describe('databases and collections', function () {
    it('listDatabases includes a database once it holds data, with nameOnly and a filter', async function () {
      await m.db.collection('listed').insertOne({ a: 1 });
      const admin = m.client.db('admin');
      const all = await admin.command({ listDatabases: 1 });
      expect(all.ok).to.equal(1);
      const mine = (all.databases as Document[]).find((d) => d.name === m.dbName);
      expect(mine, `${m.dbName} in listDatabases`).to.exist;
      expect(mine!.sizeOnDisk).to.be.a('number');
      expect(mine!.empty).to.equal(false);
      expect(all.totalSize).to.be.a('number');

      const namesOnly = await admin.command({ listDatabases: 1, nameOnly: true });
      const names = (namesOnly.databases as Document[]).map((d) => d.name as string);
      expect(names).to.include(m.dbName);
      for (const entry of namesOnly.databases as Document[]) expect(Object.keys(entry)).to.deep.equal(['name']);

      const filtered = await admin.command({ listDatabases: 1, filter: { name: m.dbName } });
      expect((filtered.databases as Document[]).map((d) => d.name)).to.deep.equal([m.dbName]);

      const viaHelper = await m.client.db().admin().listDatabases();
      expect(viaHelper.databases.map((d) => d.name)).to.include(m.dbName);
    });

    it('create makes an empty collection that listCollections reports', async function () {
      await m.db.createCollection('made_empty');
      const found = await m.db.listCollections({ name: 'made_empty' }).toArray();
      expect(found).to.have.length(1);
      expect(found[0]!.name).to.equal('made_empty');
      expect(found[0]!.type).to.equal('collection');
      expect(await m.db.collection('made_empty').countDocuments()).to.equal(0);
    });

    it('create on an existing collection fails with 48 NamespaceExists', async function () {
      await m.db.command({ create: 'made_twice' });
      if (m.target.embedded) {
        const error = await expectServerError(m.db.command({ create: 'made_twice' }), 48);
        expect(error.codeName).to.equal('NamespaceExists');
      } else {
        // Newer mongod versions accept an identical re-create (SERVER-60064): either answer is MongoDB's.
        try {
          expect((await m.db.command({ create: 'made_twice' })).ok).to.equal(1);
        } catch (error) {
          expect((error as { code?: number }).code).to.equal(48);
        }
      }
    });

    it('create with options that conflict with the existing collection fails with 48 NamespaceExists (never silently ok)', async function () {
      await m.db.command({ create: 'made_conflicting' });
      const error = await expectServerError(m.db.command({ create: 'made_conflicting', validator: { must: { $exists: true } } }));
      if (m.target.embedded && error.code === 2) {
        // The embedded server may reject the unsupported option itself, loudly and by name.
        expect(error.message).to.include('validator');
      } else {
        expect(error.code, error.message).to.equal(48);
        expect(error.codeName).to.equal('NamespaceExists');
      }
    });

    it('listCollections filters by name (exact, $in, regex) and nameOnly returns only name and type', async function () {
      await m.db.createCollection('lc_alpha');
      await m.db.createCollection('lc_beta');
      await m.db.collection('lc_gamma').insertOne({ x: 1 });

      const exact = await m.db.listCollections({ name: 'lc_beta' }).toArray();
      expect(exact.map((c) => c.name)).to.deep.equal(['lc_beta']);

      const some = await m.db.listCollections({ name: { $in: ['lc_alpha', 'lc_gamma', 'lc_missing'] } }).toArray();
      expect(some.map((c) => c.name).sort()).to.deep.equal(['lc_alpha', 'lc_gamma']);

      const byRegex = await m.db.listCollections({ name: /^lc_/ }, { nameOnly: true }).toArray();
      expect(byRegex.map((c) => c.name).sort()).to.deep.equal(['lc_alpha', 'lc_beta', 'lc_gamma']);
      for (const entry of byRegex) expect(Object.keys(entry).sort()).to.deep.equal(['name', 'type']);

      const raw = await m.db.command({ listCollections: 1, filter: { name: 'lc_alpha' }, nameOnly: true });
      expect(raw.cursor.ns).to.equal(`${m.dbName}.$cmd.listCollections`);
      expect(raw.cursor.firstBatch).to.deep.equal([{ name: 'lc_alpha', type: 'collection' }]);
    });

    it('drop removes a collection with its documents and indexes', async function () {
      const coll = m.db.collection('dropped');
      await coll.insertMany([{ a: 1 }, { a: 2 }]);
      await coll.createIndex({ a: 1 });
      expect(await coll.drop()).to.equal(true);
      expect(await m.db.listCollections({ name: 'dropped' }).toArray()).to.deep.equal([]);
      expect(await coll.countDocuments()).to.equal(0);
      await coll.insertOne({ a: 3 });
      const indexes = await coll.listIndexes().toArray();
      expect(indexes.map((i) => i.name)).to.deep.equal(['_id_']);
    });

    it('drop of a missing collection fails with 26 NamespaceNotFound (db.command)', async function () {
      if (m.target.embedded) {
        const error = await expectServerError(m.db.command({ drop: 'never_created' }), 26);
        expect(error.codeName).to.equal('NamespaceNotFound');
      } else {
        // mongod 7.0+ made this a no-op (SERVER-43894); older versions answer 26.
        try {
          const reply = await m.db.command({ drop: 'never_created' });
          expect(reply.ok).to.equal(1);
        } catch (error) {
          expect((error as { code?: number }).code).to.equal(26);
        }
      }
    });

    it('dropDatabase removes every collection of the database', async function () {
      const other = m.client.db(`${m.dbName}_x`);
      try {
        await other.collection('a').insertOne({ a: 1 });
        await other.collection('b').insertOne({ b: 1 });
        const reply = await other.command({ dropDatabase: 1 });
        expect(reply.ok).to.equal(1);
        expect(await other.listCollections().toArray()).to.deep.equal([]);
        const dbs = await m.client.db('admin').command({ listDatabases: 1, nameOnly: true });
        expect((dbs.databases as Document[]).map((d) => d.name)).not.to.include(`${m.dbName}_x`);
      } finally {
        await other.dropDatabase();
      }
    });
  });

  describe('counting and distinct', function () {
    it('count, countDocuments and estimatedDocumentCount agree with the data', async function () {
      const coll = m.fresh('counting');
      await coll.insertMany(Array.from({ length: 10 }, (_, i) => ({ i, even: i % 2 === 0 })));
      const raw = await m.db.command({ count: coll.collectionName, query: { even: true } });
      expect(raw.n).to.equal(5);
      const rawAll = await m.db.command({ count: coll.collectionName });
      expect(rawAll.n).to.equal(10);
      const rawSkipLimit = await m.db.command({ count: coll.collectionName, query: {}, skip: 3, limit: 4 });
      expect(rawSkipLimit.n).to.equal(4);
      expect(await coll.countDocuments({ i: { $gte: 7 } })).to.equal(3);
      expect(await coll.countDocuments({}, { skip: 8 })).to.equal(2);
      expect(await coll.countDocuments({}, { limit: 3 })).to.equal(3);
      expect(await coll.estimatedDocumentCount()).to.equal(10);
      expect(await m.fresh('counting_empty').countDocuments()).to.equal(0);
      expect(await m.db.collection('counting_missing').estimatedDocumentCount()).to.equal(0);
    });

    it('distinct returns each value once, flattens arrays and honours a filter', async function () {
      const coll = m.fresh('distinct');
      await coll.insertMany([
        { kind: 'a', tags: ['x', 'y'], nested: { v: 1 } },
        { kind: 'b', tags: ['y', 'z'], nested: { v: 2 } },
        { kind: 'a', tags: 'w', nested: { v: 1 } },
        { kind: 'c' },
      ]);
      expect((await coll.distinct('kind')).sort()).to.deep.equal(['a', 'b', 'c']);
      expect((await coll.distinct('tags')).sort()).to.deep.equal(['w', 'x', 'y', 'z']);
      expect((await coll.distinct('tags', { kind: 'b' })).sort()).to.deep.equal(['y', 'z']);
      expect((await coll.distinct('nested.v')).sort()).to.deep.equal([1, 2]);
      const raw = await m.db.command({ distinct: coll.collectionName, key: 'kind', query: { tags: 'y' } });
      expect((raw.values as string[]).sort()).to.deep.equal(['a', 'b']);
    });
  });
});
