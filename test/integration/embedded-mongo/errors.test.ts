import { expect } from 'chai';
import { Decimal128, type Document } from 'mongodb';
import { expectFailure, expectServerError, useMongo } from '../../support/mongo-target.js';

describe('embedded mongo: errors as MongoDB reports them', function () {
  const m = useMongo('errors');

  describe('duplicate key (11000) with keyPattern and keyValue', function () {
    it('insert: writeErrors of an ordered insert carry code, index, errmsg, keyPattern and keyValue', async function () {
      const coll = m.fresh('dup_insert_ordered');
      await coll.createIndex({ sku: 1 }, { unique: true });
      await coll.insertOne({ sku: 'A' });
      const reply = await m.db.command({
        insert: coll.collectionName,
        documents: [{ sku: 'B' }, { sku: 'A' }, { sku: 'C' }],
        ordered: true,
      });
      expect(reply.n).to.equal(1);
      expect(reply.writeErrors).to.have.length(1);
      const [writeError] = reply.writeErrors as Document[];
      expect(writeError).to.deep.include({ index: 1, code: 11000, keyPattern: { sku: 1 }, keyValue: { sku: 'A' } });
      expect(writeError!.errmsg).to.match(/^E11000 duplicate key error collection: /).and.include('index: sku_1 dup key:');
      expect(writeError!.errmsg).to.include(`${m.dbName}.${coll.collectionName}`);
    });

    it('insert: an unordered insert reports every duplicate with its index', async function () {
      const coll = m.fresh('dup_insert_unordered');
      await coll.createIndex({ sku: 1 }, { unique: true });
      const reply = await m.db.command({
        insert: coll.collectionName,
        documents: [{ sku: 'A' }, { sku: 'A' }, { sku: 'B' }, { sku: 'B' }, { sku: 'C' }],
        ordered: false,
      });
      expect(reply.n).to.equal(3);
      const writeErrors = reply.writeErrors as Document[];
      expect(writeErrors.map((e) => e.index)).to.deep.equal([1, 3]);
      expect(writeErrors.map((e) => e.code)).to.deep.equal([11000, 11000]);
      expect(writeErrors.map((e) => e.keyValue)).to.deep.equal([{ sku: 'A' }, { sku: 'B' }]);
      expect(writeErrors.every((e) => JSON.stringify(e.keyPattern) === JSON.stringify({ sku: 1 }))).to.equal(true);
    });

    it('insert through the driver: insertOne throws MongoServerError 11000 with keyPattern/keyValue', async function () {
      const coll = m.fresh('dup_insert_driver');
      await coll.createIndex({ a: 1, b: 1 }, { unique: true });
      await coll.insertOne({ a: 1, b: 'x' });
      const error = await expectServerError(coll.insertOne({ a: 1, b: 'x' }), 11000);
      expect(error.keyPattern).to.deep.equal({ a: 1, b: 1 });
      expect(error.keyValue).to.deep.equal({ a: 1, b: 'x' });
    });

    it('update: a duplicate produced by an update is a writeError with keyPattern/keyValue', async function () {
      const coll = m.fresh('dup_update');
      await coll.createIndex({ name: 1 }, { unique: true });
      await coll.insertMany([{ _id: 1, name: 'a' }, { _id: 2, name: 'b' }] as Document[]);
      const reply = await m.db.command({
        update: coll.collectionName,
        updates: [{ q: { _id: 2 }, u: { $set: { name: 'a' } } }],
      });
      expect(reply.ok).to.equal(1);
      expect(reply.n).to.equal(0);
      expect(reply.nModified).to.equal(0);
      expect(reply.writeErrors).to.have.length(1);
      expect(reply.writeErrors[0]).to.deep.include({ index: 0, code: 11000, keyPattern: { name: 1 }, keyValue: { name: 'a' } });
      const driverError = await expectServerError(coll.updateOne({ _id: 2 } as Document, { $set: { name: 'a' } }), 11000);
      expect(driverError.keyValue).to.deep.equal({ name: 'a' });
      expect(await coll.findOne({ _id: 2 } as Document)).to.deep.equal({ _id: 2, name: 'b' });
    });

    it('update: an upsert that would insert a duplicate fails with 11000', async function () {
      const coll = m.fresh('dup_upsert');
      await coll.createIndex({ email: 1 }, { unique: true });
      await coll.insertOne({ email: 'e', group: 1 });
      await expectServerError(coll.updateOne({ group: 2 }, { $set: { email: 'e' } }, { upsert: true }), 11000);
      expect(await coll.countDocuments()).to.equal(1);
    });

    it('findOneAndUpdate: the duplicate is a top-level error with keyPattern/keyValue', async function () {
      const coll = m.fresh('dup_fam');
      await coll.createIndex({ slug: 1 }, { unique: true });
      await coll.insertMany([{ _id: 1, slug: 'x' }, { _id: 2, slug: 'y' }] as Document[]);
      const error = await expectServerError(coll.findOneAndUpdate({ _id: 2 } as Document, { $set: { slug: 'x' } }), 11000);
      expect(error.codeName).to.equal('DuplicateKey');
      expect(error.keyPattern).to.deep.equal({ slug: 1 });
      expect(error.keyValue).to.deep.equal({ slug: 'x' });
      const upsertError = await expectServerError(
        coll.findOneAndUpdate({ _id: 3 } as Document, { $set: { slug: 'y' } }, { upsert: true }),
        11000,
      );
      expect(upsertError.keyValue).to.deep.equal({ slug: 'y' });
    });
  });

  describe('commands and operators', function () {
    it('an unknown command fails with 59 CommandNotFound', async function () {
      const error = await expectServerError(m.db.command({ noSuchCommand: 1 }), 59);
      expect(error.codeName).to.equal('CommandNotFound');
      expect(error.message).to.include('noSuchCommand');
    });

    it('an unknown query operator fails with 2 BadValue naming it', async function () {
      const coll = m.fresh('bad_op');
      await coll.insertOne({ a: 1 });
      const error = await expectServerError(coll.find({ a: { $noSuchOp: 1 } }).toArray(), 2);
      expect(error.codeName).to.equal('BadValue');
      expect(error.message).to.include('$noSuchOp');
    });

    it('an unknown update operator fails (no silent no-op)', async function () {
      const coll = m.fresh('bad_update_op');
      await coll.insertOne({ _id: 1, a: 1 } as Document);
      await expectServerError(coll.updateOne({ _id: 1 } as Document, { $noSuchUpdate: { a: 2 } } as Document));
      expect(await coll.findOne({ _id: 1 } as Document)).to.deep.equal({ _id: 1, a: 1 });
    });

    it('an update touching one path with two operators fails with 40 ConflictingUpdateOperators', async function () {
      const coll = m.fresh('conflicting_ops');
      await coll.insertOne({ _id: 1, a: 1 } as Document);
      const error = await expectServerError(coll.updateOne({ _id: 1 } as Document, { $set: { a: 5 }, $inc: { a: 1 } }), 40);
      expect(error.codeName).to.equal('ConflictingUpdateOperators');
      await expectServerError(coll.updateOne({ _id: 1 } as Document, { $set: { 'a.b': 1, a: 2 } }), 40, 'parent and child path');
      expect(await coll.findOne({ _id: 1 } as Document)).to.deep.equal({ _id: 1, a: 1 });
    });

    it('an unknown aggregation stage fails (no silent no-op)', async function () {
      const coll = m.fresh('bad_stage');
      await coll.insertOne({ a: 1 });
      await expectServerError(coll.aggregate([{ $noSuchStage: {} }]).toArray());
    });

    it('$near, unsupported by the embedded server, fails with 2 BadValue naming the operator', async function () {
      if (!m.target.embedded) {
        this.test!.title += ' [real MongoDB answers with index errors instead: not asserted]';
        this.skip();
      }
      const coll = m.fresh('unsupported_ops');
      await coll.insertOne({ body: 'hello world', loc: [0, 0] });
      const near = await expectServerError(coll.find({ loc: { $near: [0, 0] } }).toArray(), 2, '$near');
      expect(near.message).to.include('$near');
    });

    it('an update that changes _id fails with 66 ImmutableField ($set, replacement, findAndModify)', async function () {
      const coll = m.fresh('immutable');
      await coll.insertOne({ _id: 1, a: 1 } as Document);
      const viaSet = await expectServerError(coll.updateOne({ _id: 1 } as Document, { $set: { _id: 2 } }), 66, '$set _id');
      expect(viaSet.codeName).to.equal('ImmutableField');
      expect(viaSet.message).to.include('_id');
      await expectServerError(coll.replaceOne({ _id: 1 } as Document, { _id: 3, a: 2 } as Document), 66, 'replacement with another _id');
      await expectServerError(coll.findOneAndUpdate({ _id: 1 } as Document, { $set: { _id: 4 } }), 66, 'findAndModify');
      const raw = await m.db.command({ update: coll.collectionName, updates: [{ q: { _id: 1 }, u: { $set: { _id: 5 } } }] });
      expect(raw.writeErrors[0].code).to.equal(66);
      expect(await coll.find().toArray()).to.deep.equal([{ _id: 1, a: 1 }]);
      // Setting _id to its current value is not a change.
      const same = await coll.updateOne({ _id: 1 } as Document, { $set: { _id: 1, a: 9 } });
      expect(same.modifiedCount).to.equal(1);
    });
  });

  describe('what the embedded server cannot do exactly fails loudly', function () {
    it('a filter comparing against a Decimal128 value is an error (embedded only)', async function () {
      if (!m.target.embedded) {
        this.test!.title += ' [real MongoDB supports Decimal128 comparison]';
        this.skip();
      }
      const coll = m.fresh('decimal_filter');
      await coll.insertOne({ price: Decimal128.fromString('1.10') });
      await expectServerError(coll.find({ price: Decimal128.fromString('1.1') }).toArray(), undefined, 'equality');
      await expectServerError(coll.find({ price: { $gt: Decimal128.fromString('1') } }).toArray(), undefined, '$gt');
      await expectServerError(coll.updateMany({ price: Decimal128.fromString('1.10') }, { $set: { seen: true } }), undefined, 'update');
      expect(await coll.countDocuments({ seen: true })).to.equal(0);
    });

    it('a collation option is an error (embedded only)', async function () {
      if (!m.target.embedded) {
        this.test!.title += ' [real MongoDB supports collation]';
        this.skip();
      }
      const coll = m.fresh('collation');
      await coll.insertMany([{ name: 'a' }, { name: 'A' }]);
      const collation = { locale: 'en', strength: 2 };
      await expectServerError(coll.find({ name: 'a' }, { collation }).toArray(), undefined, 'find with collation');
      await expectServerError(coll.countDocuments({ name: 'a' }, { collation }), undefined, 'count with collation');
      await expectServerError(coll.updateMany({ name: 'a' }, { $set: { x: 1 } }, { collation }), undefined, 'update with collation');
      await expectServerError(coll.createIndex({ name: 1 }, { collation }), undefined, 'index with collation');
      expect(await coll.countDocuments({ x: 1 })).to.equal(0);
    });

    it('errors are MongoServerErrors (never a dropped connection)', async function () {
      // After a failing command, the same client keeps working.
      await expectFailure(m.db.command({ noSuchCommand: 1 }));
      expect((await m.db.command({ ping: 1 })).ok).to.equal(1);
    });
  });
});
