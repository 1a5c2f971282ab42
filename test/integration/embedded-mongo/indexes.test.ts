import { expect } from 'chai';
import { Double, Int32, Long, ObjectId, type Collection, type Document, type IndexDescriptionInfo } from 'mongodb';
import { expectServerError, useMongo } from '../../support/mongo-target.js';

describe('embedded mongo: indexes', function () {
  const m = useMongo('indexes');

  const byName = async (coll: Collection): Promise<Record<string, IndexDescriptionInfo>> =>
    Object.fromEntries((await coll.listIndexes().toArray()).map((i) => [i.name, i as IndexDescriptionInfo]));

  describe('createIndexes / listIndexes / dropIndexes', function () {
    it('a new collection has only the _id_ index', async function () {
      const coll = m.fresh('idx_default');
      await coll.insertOne({ a: 1 });
      const indexes = await coll.listIndexes().toArray();
      expect(indexes).to.have.length(1);
      expect(indexes[0]).to.deep.include({ name: '_id_', key: { _id: 1 } });
      expect(indexes[0]).to.have.property('v');
    });

    it('creates single-field and compound indexes with MongoDB default names', async function () {
      const coll = m.fresh('idx_names');
      expect(await coll.createIndex({ a: 1 })).to.equal('a_1');
      expect(await coll.createIndex({ b: -1, 'c.d': 1 })).to.equal('b_-1_c.d_1');
      expect(await coll.createIndex({ e: 1 }, { name: 'custom_e' })).to.equal('custom_e');
      const indexes = await byName(coll);
      expect(Object.keys(indexes).sort()).to.deep.equal(['_id_', 'a_1', 'b_-1_c.d_1', 'custom_e']);
      expect(indexes['a_1']!.key).to.deep.equal({ a: 1 });
      expect(indexes['b_-1_c.d_1']!.key).to.deep.equal({ b: -1, 'c.d': 1 });
      expect(Object.keys(indexes['b_-1_c.d_1']!.key), 'compound key order').to.deep.equal(['b', 'c.d']);
    });

    it('the raw createIndexes command reports numIndexesBefore/After and is idempotent', async function () {
      const coll = m.fresh('idx_raw');
      const first = await m.db.command({ createIndexes: coll.collectionName, indexes: [{ key: { x: 1 }, name: 'x_1' }] });
      expect(first.ok).to.equal(1);
      expect(first.numIndexesBefore).to.equal(1);
      expect(first.numIndexesAfter).to.equal(2);
      const again = await m.db.command({ createIndexes: coll.collectionName, indexes: [{ key: { x: 1 }, name: 'x_1' }] });
      expect(again.ok).to.equal(1);
      expect(again.numIndexesBefore).to.equal(2);
      expect(again.numIndexesAfter).to.equal(2);
    });

    it('listIndexes shows unique, sparse, partialFilterExpression and expireAfterSeconds options', async function () {
      const coll = m.fresh('idx_options');
      await coll.createIndex({ u: 1 }, { unique: true });
      await coll.createIndex({ s: 1 }, { unique: true, sparse: true });
      await coll.createIndex({ p: 1 }, { unique: true, partialFilterExpression: { active: true } });
      await coll.createIndex({ at: 1 }, { expireAfterSeconds: 3600 });
      const indexes = await byName(coll);
      expect(indexes['u_1']).to.deep.include({ key: { u: 1 }, unique: true });
      expect(indexes['s_1']).to.deep.include({ key: { s: 1 }, unique: true, sparse: true });
      expect(indexes['p_1']).to.deep.include({ key: { p: 1 }, unique: true, partialFilterExpression: { active: true } });
      expect(indexes['at_1']).to.deep.include({ key: { at: 1 }, expireAfterSeconds: 3600 });
      expect(indexes['at_1']).not.to.have.property('unique');
    });

    it('conflicting index definitions fail: same keys under another name (85), same name with other options (85) or keys (86)', async function () {
      const coll = m.fresh('idx_conflicts');
      await coll.createIndex({ a: 1 });
      const otherName = await expectServerError(coll.createIndex({ a: 1 }, { name: 'a_again' }), 85, 'same keys, other name');
      expect(otherName.codeName).to.equal('IndexOptionsConflict');
      const otherOptions = await expectServerError(coll.createIndex({ a: 1 }, { expireAfterSeconds: 60 }), 85, 'same name, other options');
      expect(otherOptions.codeName).to.equal('IndexOptionsConflict');
      const otherKeys = await expectServerError(coll.createIndex({ b: 1 }, { name: 'a_1' }), 86, 'same name, other keys');
      expect(otherKeys.codeName).to.equal('IndexKeySpecsConflict');
      expect(Object.keys(await byName(coll)).sort()).to.deep.equal(['_id_', 'a_1']);
    });

    it('dropIndexes drops one index by name, by key pattern, or all but _id_ with "*"', async function () {
      const coll = m.fresh('idx_drop');
      await coll.createIndexes([{ key: { a: 1 } }, { key: { b: 1 } }, { key: { c: 1 } }, { key: { d: 1 } }]);
      await coll.dropIndex('a_1');
      expect(Object.keys(await byName(coll)).sort()).to.deep.equal(['_id_', 'b_1', 'c_1', 'd_1']);
      await m.db.command({ dropIndexes: coll.collectionName, index: { b: 1 } });
      expect(Object.keys(await byName(coll)).sort()).to.deep.equal(['_id_', 'c_1', 'd_1']);
      await coll.dropIndexes();
      expect(Object.keys(await byName(coll))).to.deep.equal(['_id_']);
    });

    it('dropping a missing index fails with 27 IndexNotFound; the _id_ index cannot be dropped', async function () {
      const coll = m.fresh('idx_drop_missing');
      await coll.insertOne({ a: 1 });
      const missing = await expectServerError(m.db.command({ dropIndexes: coll.collectionName, index: 'nope_1' }), 27);
      expect(missing.codeName).to.equal('IndexNotFound');
      await expectServerError(m.db.command({ dropIndexes: coll.collectionName, index: '_id_' }));
      expect(Object.keys(await byName(coll))).to.deep.equal(['_id_']);
    });
  });

  describe('unique indexes', function () {
    it('a unique index rejects a duplicate with 11000, keyPattern and keyValue', async function () {
      const coll = m.fresh('uniq');
      await coll.createIndex({ email: 1 }, { unique: true });
      await coll.insertOne({ email: 'a@x.io' });
      const error = await expectServerError(coll.insertOne({ email: 'a@x.io' }), 11000);
      expect(error.keyPattern).to.deep.equal({ email: 1 });
      expect(error.keyValue).to.deep.equal({ email: 'a@x.io' });
      expect(error.message).to.match(/^E11000 duplicate key error/).and.include('email_1');
      expect(await coll.countDocuments()).to.equal(1);
    });

    it('a unique index treats missing fields as null: only one document may lack the field', async function () {
      const coll = m.fresh('uniq_missing');
      await coll.createIndex({ code: 1 }, { unique: true });
      await coll.insertOne({ other: 1 });
      const error = await expectServerError(coll.insertOne({ other: 2 }), 11000);
      expect(error.keyValue).to.deep.equal({ code: null });
    });

    it('a sparse unique index allows many documents without the field, but not duplicate values', async function () {
      const coll = m.fresh('uniq_sparse');
      await coll.createIndex({ handle: 1 }, { unique: true, sparse: true });
      await coll.insertMany([{ n: 1 }, { n: 2 }, { n: 3 }, { handle: 'h' }]);
      await expectServerError(coll.insertOne({ handle: 'h' }), 11000);
      expect(await coll.countDocuments()).to.equal(4);
    });

    it('a partialFilterExpression unique index only constrains documents matching the filter', async function () {
      const coll = m.fresh('uniq_partial');
      await coll.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { active: true } });
      await coll.insertMany([
        { email: 'a@x.io', active: false },
        { email: 'a@x.io', active: false },
        { email: 'a@x.io', active: true },
      ]);
      const error = await expectServerError(coll.insertOne({ email: 'a@x.io', active: true }), 11000);
      expect(error.keyValue).to.deep.equal({ email: 'a@x.io' });
      await coll.insertOne({ email: 'b@x.io', active: true });
      // Updating a document into the filter makes it subject to the constraint.
      await expectServerError(coll.updateOne({ email: 'a@x.io', active: false }, { $set: { active: true } }), 11000);
    });

    it('a compound unique index compares the whole key', async function () {
      const coll = m.fresh('uniq_compound');
      await coll.createIndex({ tenant: 1, slug: 1 }, { unique: true });
      await coll.insertMany([{ tenant: 't1', slug: 's' }, { tenant: 't2', slug: 's' }, { tenant: 't1', slug: 'r' }]);
      const error = await expectServerError(coll.insertOne({ tenant: 't1', slug: 's' }), 11000);
      expect(error.keyPattern).to.deep.equal({ tenant: 1, slug: 1 });
      expect(error.keyValue).to.deep.equal({ tenant: 't1', slug: 's' });
    });

    it('a unique index compares numbers by value: Int32 1, Long 1 and Double 1.0 collide', async function () {
      const coll = m.fresh('uniq_numeric');
      await coll.createIndex({ n: 1 }, { unique: true });
      await coll.insertOne({ n: new Int32(1) });
      await expectServerError(coll.insertOne({ n: new Double(1) }), 11000, 'Double(1.0) after Int32(1)');
      await expectServerError(coll.insertOne({ n: Long.fromNumber(1) }), 11000, 'Long(1) after Int32(1)');
      await coll.insertOne({ n: '1' });
      expect(await coll.countDocuments()).to.equal(2);
    });

    it('a unique multikey index rejects a document sharing any array element', async function () {
      const coll = m.fresh('uniq_multikey');
      await coll.createIndex({ tags: 1 }, { unique: true });
      await coll.insertOne({ tags: ['a', 'b'] });
      await expectServerError(coll.insertOne({ tags: ['c', 'b'] }), 11000);
      await coll.insertOne({ tags: ['c', 'd'] });
    });

    it('creating a unique index over existing duplicates fails with 11000 and creates nothing', async function () {
      const coll = m.fresh('uniq_existing_dups');
      await coll.insertMany([{ k: 1 }, { k: 1 }]);
      await expectServerError(coll.createIndex({ k: 1 }, { unique: true }), 11000);
      expect(Object.keys(await byName(coll))).to.deep.equal(['_id_']);
    });

    it('dropping a unique index lifts the constraint', async function () {
      const coll = m.fresh('uniq_dropped');
      await coll.createIndex({ k: 1 }, { unique: true });
      await coll.insertOne({ k: 1 });
      await coll.dropIndex('k_1');
      await coll.insertOne({ k: 1 });
      expect(await coll.countDocuments({ k: 1 })).to.equal(2);
    });

    it('the _id index is always unique', async function () {
      const coll = m.fresh('uniq_id');
      await coll.insertOne({ _id: 'same' } as Document);
      const error = await expectServerError(coll.insertOne({ _id: 'same' } as Document), 11000);
      expect(error.keyPattern).to.deep.equal({ _id: 1 });
      expect(error.keyValue).to.deep.equal({ _id: 'same' });
    });
  });

  describe('indexed lookups return the same documents as a scan', function () {
    let coll: Collection;
    const oid = new ObjectId();
    const otherOid = new ObjectId();
    const day = new Date('2024-03-01T00:00:00Z');

    before(async function () {
      coll = m.fresh('lookups');
      await coll.createIndexes([
        { key: { s: 1 } },
        { key: { n: 1 } },
        { key: { ref: 1 } },
        { key: { at: 1 } },
        { key: { 'meta.kind': 1 } },
        { key: { tags: 1 } },
        { key: { a: 1, b: -1 } },
      ]);
      await coll.insertMany([
        { _id: 'd1', s: 'alpha', n: new Double(1), ref: oid, at: day, meta: { kind: 'x' }, tags: ['a', 'b'], a: 1, b: 1 },
        { _id: 'd2', s: 'beta', n: new Int32(2), ref: otherOid, at: new Date(day.getTime() + 1), meta: { kind: 'y' }, tags: ['c'], a: 1, b: 2 },
        { _id: 'd3', s: 'alpha ', n: Long.fromNumber(3), meta: { kind: 'x', extra: true }, tags: [], a: 2, b: 1 },
        { _id: 'd4', s: 'Alpha', n: '1', tags: 'b', a: 2, b: 2 },
        { _id: 'd5', n: 2.5, meta: [{ kind: 'y' }, { kind: 'z' }] },
      ] as Document[]);
    });

    const ids = async (filter: Document): Promise<string[]> => (await coll.find(filter).toArray()).map((d) => d._id as unknown as string).sort();

    it('_id equality', async function () {
      expect(await ids({ _id: 'd3' })).to.deep.equal(['d3']);
      expect(await ids({ _id: { $in: ['d1', 'd5', 'nope'] } })).to.deep.equal(['d1', 'd5']);
    });

    it('strings match exactly (case and trailing spaces matter)', async function () {
      expect(await ids({ s: 'alpha' })).to.deep.equal(['d1']);
      expect(await ids({ s: { $in: ['beta', 'Alpha'] } })).to.deep.equal(['d2', 'd4']);
    });

    it('numbers match across BSON types: {n: 1} finds Double(1.0), Long 3 found by 3.0, never the string "1"', async function () {
      expect(await ids({ n: 1 })).to.deep.equal(['d1']);
      expect(await ids({ n: new Int32(1) })).to.deep.equal(['d1']);
      expect(await ids({ n: Long.fromNumber(2) })).to.deep.equal(['d2']);
      expect(await ids({ n: 3.0 })).to.deep.equal(['d3']);
      expect(await ids({ n: '1' })).to.deep.equal(['d4']);
      expect(await ids({ n: { $gte: 2, $lt: 3 } })).to.deep.equal(['d2', 'd5']);
    });

    it('ObjectIds and Dates match by value', async function () {
      expect(await ids({ ref: new ObjectId(oid.toHexString()) })).to.deep.equal(['d1']);
      expect(await ids({ at: new Date(day.getTime()) })).to.deep.equal(['d1']);
      expect(await ids({ at: { $gt: day } })).to.deep.equal(['d2']);
    });

    it('nested fields, including through arrays of sub-documents', async function () {
      expect(await ids({ 'meta.kind': 'x' })).to.deep.equal(['d1', 'd3']);
      expect(await ids({ 'meta.kind': 'z' })).to.deep.equal(['d5']);
    });

    it('multikey: a document with tags [a, b] is found by {tags: "b"}, as is a scalar "b"', async function () {
      expect(await ids({ tags: 'b' })).to.deep.equal(['d1', 'd4']);
      expect(await ids({ tags: { $in: ['c', 'z'] } })).to.deep.equal(['d2']);
      expect(await ids({ tags: ['a', 'b'] })).to.deep.equal(['d1']);
    });

    it('compound index: full key, prefix, and sort by the index order', async function () {
      expect(await ids({ a: 1, b: 2 })).to.deep.equal(['d2']);
      expect(await ids({ a: 2 })).to.deep.equal(['d3', 'd4']);
      const sorted = await coll.find({ a: { $exists: true } }, { sort: { a: 1, b: -1 } }).toArray();
      expect(sorted.map((d) => d._id)).to.deep.equal(['d2', 'd1', 'd4', 'd3']);
    });

    it('lookups see updates and deletes (the index is maintained)', async function () {
      const local = m.fresh('lookups_maintained');
      await local.createIndex({ k: 1 });
      await local.insertMany([{ _id: 1, k: 'old' }, { _id: 2, k: 'old' }] as Document[]);
      await local.updateOne({ _id: 1 } as Document, { $set: { k: 'new' } });
      await local.deleteOne({ _id: 2 } as Document);
      expect(await local.countDocuments({ k: 'old' })).to.equal(0);
      expect((await local.find({ k: 'new' }).toArray()).map((d) => d._id)).to.deep.equal([1]);
    });
  });
});
