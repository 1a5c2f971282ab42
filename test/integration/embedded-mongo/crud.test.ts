import { expect } from 'chai';
import { MongoBulkWriteError, ObjectId, type Document } from 'mongodb';
import { expectServerError, useMongo } from '../../support/mongo-target.js';

describe('embedded mongo: CRUD commands', function () {
  const m = useMongo('crud');

  describe('insert', function () {
    it('insertOne assigns an ObjectId _id when none is given and returns it', async function () {
      const coll = m.fresh('insert_one');
      const result = await coll.insertOne({ name: 'ada' });
      expect(result.acknowledged).to.equal(true);
      expect(result.insertedId).to.be.instanceOf(ObjectId);
      const doc = await coll.findOne({ _id: result.insertedId });
      expect(doc).to.deep.equal({ _id: result.insertedId, name: 'ada' });
    });

    it('insertMany inserts every document in order and reports the count', async function () {
      const coll = m.fresh('insert_many');
      const result = await coll.insertMany([{ n: 1 }, { n: 2 }, { n: 3 }]);
      expect(result.insertedCount).to.equal(3);
      expect(Object.keys(result.insertedIds)).to.deep.equal(['0', '1', '2']);
      const docs = await coll.find({}, { projection: { _id: 0 } }).toArray();
      expect(docs).to.deep.equal([{ n: 1 }, { n: 2 }, { n: 3 }]);
    });

    it('stores documents as given: nested documents, arrays, null, booleans, dates, field order', async function () {
      const coll = m.fresh('insert_shapes');
      const when = new Date('2024-05-06T07:08:09.010Z');
      const doc = { _id: 'shape', z: 1, a: { c: [1, { d: null }], b: true }, when, list: [], empty: {} };
      await coll.insertOne(doc as Document);
      const back = await coll.findOne({ _id: 'shape' } as Document);
      expect(back).to.deep.equal(doc);
      expect(Object.keys(back!)).to.deep.equal(['_id', 'z', 'a', 'when', 'list', 'empty']);
      expect(Object.keys(back!.a as Document)).to.deep.equal(['c', 'b']);
    });

    it('ordered insert stops at a duplicate in the middle: writeErrors index and n', async function () {
      const coll = m.fresh('insert_ordered');
      const reply = await m.db.command({
        insert: coll.collectionName,
        documents: [{ _id: 1 }, { _id: 2 }, { _id: 1 }, { _id: 3 }, { _id: 4 }],
        ordered: true,
      });
      expect(reply.ok).to.equal(1);
      expect(reply.n, 'n').to.equal(2);
      expect(reply.writeErrors).to.have.length(1);
      expect(reply.writeErrors[0].index).to.equal(2);
      expect(reply.writeErrors[0].code).to.equal(11000);
      expect(await coll.countDocuments()).to.equal(2);
    });

    it('unordered insert continues past a duplicate in the middle: writeErrors index and n', async function () {
      const coll = m.fresh('insert_unordered');
      const reply = await m.db.command({
        insert: coll.collectionName,
        documents: [{ _id: 1 }, { _id: 2 }, { _id: 1 }, { _id: 3 }, { _id: 4 }],
        ordered: false,
      });
      expect(reply.ok).to.equal(1);
      expect(reply.n, 'n').to.equal(4);
      expect(reply.writeErrors).to.have.length(1);
      expect(reply.writeErrors[0].index).to.equal(2);
      expect(reply.writeErrors[0].code).to.equal(11000);
      expect((await coll.find().toArray()).map((d) => d._id)).to.have.members([1, 2, 3, 4]);
    });

    it('driver insertMany surfaces the duplicate as MongoBulkWriteError (ordered and unordered)', async function () {
      const ordered = m.fresh('insert_bulk_ordered');
      const docs = (): Document[] => [{ _id: 'a' }, { _id: 'b' }, { _id: 'a' }, { _id: 'c' }];
      const orderedError = await expectServerError(ordered.insertMany(docs()), 11000);
      expect(orderedError).to.be.instanceOf(MongoBulkWriteError);
      expect((orderedError as MongoBulkWriteError).insertedCount).to.equal(2);
      const orderedWriteErrors = [(orderedError as MongoBulkWriteError).writeErrors].flat();
      expect(orderedWriteErrors.map((e) => e.index)).to.deep.equal([2]);

      const unordered = m.fresh('insert_bulk_unordered');
      const unorderedError = await expectServerError(unordered.insertMany(docs(), { ordered: false }), 11000);
      expect((unorderedError as MongoBulkWriteError).insertedCount).to.equal(3);
      expect(await unordered.countDocuments()).to.equal(3);
    });
  });

  describe('find', function () {
    const people = [
      { _id: 1, name: 'ann', age: 31, city: 'oslo', address: { zip: '0150', street: 'a' }, tags: ['x'] },
      { _id: 2, name: 'bob', age: 25, city: 'rome', address: { zip: '00100', street: 'b' }, tags: ['y', 'x'] },
      { _id: 3, name: 'cid', age: 40, city: 'oslo', address: { zip: '0151', street: 'c' }, tags: [] },
      { _id: 4, name: 'dee', age: 25, city: 'lima', address: { zip: '15001', street: 'd' } },
      { _id: 5, name: 'eve', age: 35, city: 'rome', address: { zip: '00118', street: 'e' }, tags: ['z'] },
    ];
    let coll: ReturnType<typeof m.fresh>;
    before(async function () {
      coll = m.fresh('people');
      await coll.insertMany(people as Document[]);
    });

    it('filters with equality, comparison, $in, $or, $exists, nested paths and array elements', async function () {
      const ids = async (filter: Document): Promise<number[]> =>
        (await coll.find(filter, { sort: { _id: 1 } }).toArray()).map((d) => d._id as unknown as number);
      expect(await ids({ city: 'oslo' })).to.deep.equal([1, 3]);
      expect(await ids({ age: { $gt: 30 } })).to.deep.equal([1, 3, 5]);
      expect(await ids({ age: { $gte: 25, $lt: 35 } })).to.deep.equal([1, 2, 4]);
      expect(await ids({ city: { $in: ['lima', 'rome'] } })).to.deep.equal([2, 4, 5]);
      expect(await ids({ $or: [{ name: 'ann' }, { age: 40 }] })).to.deep.equal([1, 3]);
      expect(await ids({ tags: { $exists: false } })).to.deep.equal([4]);
      expect(await ids({ 'address.zip': '0151' })).to.deep.equal([3]);
      expect(await ids({ tags: 'x' })).to.deep.equal([1, 2]);
      expect(await ids({ tags: { $size: 0 } })).to.deep.equal([3]);
      expect(await ids({ name: /^[ab]/ })).to.deep.equal([1, 2]);
      expect(await ids({ city: { $ne: 'oslo' } })).to.deep.equal([2, 4, 5]);
      expect(await ids({ nothing: null })).to.deep.equal([1, 2, 3, 4, 5]);
    });

    it('sorts on one and several keys, ascending and descending', async function () {
      const byAgeThenName = await coll.find({}, { sort: { age: 1, name: -1 }, projection: { name: 1, _id: 0 } }).toArray();
      expect(byAgeThenName.map((d) => d.name)).to.deep.equal(['dee', 'bob', 'ann', 'eve', 'cid']);
      const byNestedDesc = await coll.find({}, { sort: { 'address.zip': -1 } }).toArray();
      expect(byNestedDesc.map((d) => d._id)).to.deep.equal([4, 3, 1, 5, 2]);
    });

    it('sorts missing and null alike, and numbers before strings (BSON type order)', async function () {
      const mixed = m.fresh('sort_mixed');
      await mixed.insertMany([{ _id: 1, v: 'b' }, { _id: 2 }, { _id: 3, v: null }, { _id: 4, v: 'a' }, { _id: 5, v: 3 }] as Document[]);
      const asc = await mixed.find({}, { sort: { v: 1, _id: 1 } }).toArray();
      expect(asc.map((d) => d._id)).to.deep.equal([2, 3, 5, 4, 1]);
      const desc = await mixed.find({}, { sort: { v: -1, _id: 1 } }).toArray();
      expect(desc.map((d) => d._id)).to.deep.equal([1, 4, 5, 2, 3]);
    });

    it('applies skip and limit after the sort', async function () {
      const page = await coll.find({}).sort({ age: -1, _id: 1 }).skip(1).limit(2).toArray();
      expect(page.map((d) => d._id)).to.deep.equal([5, 1]);
      const rawLimit = await m.db.command({ find: coll.collectionName, sort: { _id: 1 }, skip: 3, limit: 10 });
      expect(rawLimit.cursor.firstBatch.map((d: Document) => d._id)).to.deep.equal([4, 5]);
      expect(Number(rawLimit.cursor.id)).to.equal(0);
    });

    it('projects with inclusion, exclusion, _id suppression and nested paths', async function () {
      const inclusion = await coll.findOne({ _id: 1 } as Document, { projection: { name: 1, 'address.zip': 1 } });
      expect(inclusion).to.deep.equal({ _id: 1, name: 'ann', address: { zip: '0150' } });
      const noId = await coll.findOne({ _id: 1 } as Document, { projection: { name: 1, _id: 0 } });
      expect(noId).to.deep.equal({ name: 'ann' });
      const exclusion = await coll.findOne({ _id: 1 } as Document, { projection: { address: 0, tags: 0, age: 0 } });
      expect(exclusion).to.deep.equal({ _id: 1, name: 'ann', city: 'oslo' });
      const nestedExclusion = await coll.findOne({ _id: 2 } as Document, { projection: { 'address.street': 0, tags: 0 } });
      expect(nestedExclusion).to.deep.equal({ _id: 2, name: 'bob', age: 25, city: 'rome', address: { zip: '00100' } });
      // Top-level fields keep the document's own order; _id alone is an inclusion of _id only.
      expect(Object.keys((await coll.findOne({ _id: 1 } as Document, { projection: { city: 1, name: 1 } }))!)).to.deep.equal(['_id', 'name', 'city']);
      expect(await coll.findOne({ _id: 1 } as Document, { projection: { _id: 1 } })).to.deep.equal({ _id: 1 });
      expect(await coll.findOne({ _id: 1 } as Document, { projection: { _id: 0, name: true, missing: 1 } })).to.deep.equal({ name: 'ann' });
      expect(Object.keys((await coll.findOne({ _id: 1 } as Document, { projection: { _id: 0, address: 0 } }))!)).to.not.include.members(['_id', 'address']);
      let mixed: unknown;
      await coll.findOne({ _id: 1 } as Document, { projection: { name: 1, age: 0 } }).catch((error: unknown) => (mixed = error));
      expect(String(mixed)).to.match(/exclusion/i);
    });
  });

  describe('update', function () {
    it('updateOne changes only the first match; updateMany (multi) changes every match', async function () {
      const coll = m.fresh('update_multi');
      await coll.insertMany([{ _id: 1, g: 'a', v: 0 }, { _id: 2, g: 'a', v: 0 }, { _id: 3, g: 'b', v: 0 }] as Document[]);
      const one = await coll.updateOne({ g: 'a' }, { $inc: { v: 1 } });
      expect([one.matchedCount, one.modifiedCount]).to.deep.equal([1, 1]);
      const many = await coll.updateMany({ g: 'a' }, { $set: { w: true } });
      expect([many.matchedCount, many.modifiedCount]).to.deep.equal([2, 2]);
      const raw = await m.db.command({ update: coll.collectionName, updates: [{ q: {}, u: { $inc: { v: 10 } }, multi: true }] });
      expect([raw.n, raw.nModified]).to.deep.equal([3, 3]);
      const docs = await coll.find({}, { sort: { _id: 1 } }).toArray();
      expect(docs).to.deep.equal([
        { _id: 1, g: 'a', v: 11, w: true },
        { _id: 2, g: 'a', v: 10, w: true },
        { _id: 3, g: 'b', v: 10 },
      ]);
    });

    it('reports matched but not modified when the update changes nothing', async function () {
      const coll = m.fresh('update_noop');
      await coll.insertOne({ _id: 1, v: 5 } as Document);
      const result = await coll.updateOne({ _id: 1 } as Document, { $set: { v: 5 } });
      expect([result.matchedCount, result.modifiedCount]).to.deep.equal([1, 0]);
    });

    it('upsert inserts the query equality fields (incl. dotted and $and) plus $set and $setOnInsert', async function () {
      const coll = m.fresh('upsert_fields');
      const result = await coll.updateOne(
        { 'profile.email': 'a@x.io', kind: 'user', $and: [{ region: 'eu' }], age: { $gt: 18 } },
        { $set: { active: true }, $setOnInsert: { createdBy: 'upsert' } },
        { upsert: true },
      );
      expect(result.upsertedCount).to.equal(1);
      expect(result.matchedCount).to.equal(0);
      expect(result.upsertedId).to.be.instanceOf(ObjectId);
      const doc = await coll.findOne({ _id: result.upsertedId! });
      expect(doc).to.deep.equal({
        _id: result.upsertedId,
        profile: { email: 'a@x.io' },
        kind: 'user',
        region: 'eu',
        active: true,
        createdBy: 'upsert',
      });
    });

    it('upsert that matches an existing document does not apply $setOnInsert', async function () {
      const coll = m.fresh('upsert_existing');
      await coll.updateOne({ key: 'k' }, { $set: { n: 1 }, $setOnInsert: { first: true } }, { upsert: true });
      const again = await coll.updateOne({ key: 'k' }, { $set: { n: 2 }, $setOnInsert: { first: false } }, { upsert: true });
      expect([again.matchedCount, again.modifiedCount, again.upsertedCount]).to.deep.equal([1, 1, 0]);
      const docs = await coll.find({}, { projection: { _id: 0 } }).toArray();
      expect(docs).to.deep.equal([{ key: 'k', n: 2, first: true }]);
    });

    it('upsert with an _id equality in the query uses that _id', async function () {
      const coll = m.fresh('upsert_id');
      const result = await coll.updateOne({ _id: 'chosen' } as Document, { $set: { v: 1 } }, { upsert: true });
      expect(result.upsertedId).to.equal('chosen');
      const raw = await m.db.command({
        update: coll.collectionName,
        updates: [{ q: { _id: 42 }, u: { $inc: { v: 1 } }, upsert: true }],
      });
      expect(raw.n).to.equal(1);
      expect(raw.upserted).to.deep.equal([{ index: 0, _id: 42 }]);
      expect(await coll.find({}, { sort: { v: 1 } }).toArray()).to.have.deep.members([
        { _id: 'chosen', v: 1 },
        { _id: 42, v: 1 },
      ]);
    });

    it('replacement upsert inserts the replacement document with the query _id', async function () {
      const coll = m.fresh('upsert_replace');
      const result = await coll.replaceOne({ _id: 7 } as Document, { name: 'seven' }, { upsert: true });
      expect(result.upsertedId).to.equal(7);
      expect(await coll.findOne({ _id: 7 } as Document)).to.deep.equal({ _id: 7, name: 'seven' });
    });

    it('arrayFilters with $[elem] update only matching array elements', async function () {
      const coll = m.fresh('array_filters');
      await coll.insertOne({
        _id: 1,
        grades: [95, 102, 90, 150],
        items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 2 }, { sku: 'b', qty: 3 }],
      } as Document);
      await coll.updateOne({ _id: 1 } as Document, { $set: { 'grades.$[high]': 100 } }, { arrayFilters: [{ high: { $gte: 100 } }] });
      await coll.updateOne(
        { _id: 1 } as Document,
        { $inc: { 'items.$[it].qty': 10 } },
        { arrayFilters: [{ 'it.sku': 'b', 'it.qty': { $gt: 2 } }] },
      );
      expect(await coll.findOne({ _id: 1 } as Document)).to.deep.equal({
        _id: 1,
        grades: [95, 100, 90, 100],
        items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 2 }, { sku: 'b', qty: 13 }],
      });
    });

    it('the positional $ and all-positional $[] operators update array elements', async function () {
      const coll = m.fresh('positional');
      await coll.insertOne({ _id: 1, scores: [1, 2, 3], subs: [{ n: 'a', v: 0 }, { n: 'b', v: 0 }] } as Document);
      await coll.updateOne({ _id: 1, scores: 2 } as Document, { $set: { 'scores.$': 20 } });
      await coll.updateOne({ _id: 1, 'subs.n': 'b' } as Document, { $set: { 'subs.$.v': 5 } });
      await coll.updateOne({ _id: 1 } as Document, { $inc: { 'scores.$[]': 1 } });
      expect(await coll.findOne({ _id: 1 } as Document)).to.deep.equal({
        _id: 1,
        scores: [2, 21, 4],
        subs: [{ n: 'a', v: 0 }, { n: 'b', v: 5 }],
      });
    });

    it('pipeline updates ([{ $set: ... }]) compute from the document fields', async function () {
      const coll = m.fresh('pipeline_update');
      await coll.insertMany([{ _id: 1, a: 2, b: 3, tmp: 'x' }, { _id: 2, a: 10, b: 1, tmp: 'y' }] as Document[]);
      const result = await coll.updateMany({}, [
        { $set: { total: { $add: ['$a', '$b'] }, label: { $concat: ['n', { $toString: '$_id' }] } } },
        { $unset: 'tmp' },
      ]);
      expect(result.modifiedCount).to.equal(2);
      expect(await coll.find({}, { sort: { _id: 1 } }).toArray()).to.deep.equal([
        { _id: 1, a: 2, b: 3, total: 5, label: 'n1' },
        { _id: 2, a: 10, b: 1, total: 11, label: 'n2' },
      ]);
    });

    it('replaceOne replaces the whole document but keeps _id', async function () {
      const coll = m.fresh('replace');
      await coll.insertOne({ _id: 1, a: 1, b: 2 } as Document);
      const result = await coll.replaceOne({ _id: 1 } as Document, { c: 3 });
      expect([result.matchedCount, result.modifiedCount]).to.deep.equal([1, 1]);
      expect(await coll.findOne({ _id: 1 } as Document)).to.deep.equal({ _id: 1, c: 3 });
    });

    it('supports the common update operators ($unset, $push $each, $addToSet, $pull, $rename, $min, $max, $mul, $currentDate)', async function () {
      interface Ops {
        _id: number;
        gone?: number;
        list: number[];
        set: string[];
        old?: string;
        renamed?: string;
        lo: number;
        hi: number;
        m: number;
        touched?: Date;
      }
      const coll = m.fresh<Ops>('operators');
      await coll.insertOne({ _id: 1, gone: 1, list: [1], set: ['a'], old: 'r', lo: 5, hi: 5, m: 3 });
      await coll.updateOne({ _id: 1 }, {
        $unset: { gone: '' },
        $push: { list: { $each: [2, 3] } },
        $addToSet: { set: { $each: ['a', 'b'] } },
        $rename: { old: 'renamed' },
        $min: { lo: 2 },
        $max: { hi: 9 },
        $mul: { m: 4 },
        $currentDate: { touched: true },
      });
      await coll.updateOne({ _id: 1 }, { $pull: { list: { $gte: 3 } } });
      const doc = await coll.findOne({ _id: 1 });
      expect(doc!.touched).to.be.instanceOf(Date);
      delete doc!.touched;
      expect(doc).to.deep.equal({ _id: 1, list: [1, 2], set: ['a', 'b'], lo: 2, hi: 9, m: 12, renamed: 'r' });
    });
  });

  describe('delete', function () {
    it('deleteOne removes one match; deleteMany removes all matches', async function () {
      const coll = m.fresh('delete');
      await coll.insertMany([{ g: 1 }, { g: 1 }, { g: 1 }, { g: 2 }]);
      const one = await coll.deleteOne({ g: 1 });
      expect(one.deletedCount).to.equal(1);
      expect(await coll.countDocuments({ g: 1 })).to.equal(2);
      const many = await coll.deleteMany({ g: 1 });
      expect(many.deletedCount).to.equal(2);
      expect(await coll.find({}, { projection: { _id: 0 } }).toArray()).to.deep.equal([{ g: 2 }]);
      const none = await coll.deleteMany({ g: 99 });
      expect(none.deletedCount).to.equal(0);
      const raw = await m.db.command({ delete: coll.collectionName, deletes: [{ q: {}, limit: 0 }] });
      expect(raw.n).to.equal(1);
    });
  });

  describe('findAndModify', function () {
    it('returnDocument before/after return the old or the new document', async function () {
      const coll = m.fresh('fam_return');
      await coll.insertOne({ _id: 1, n: 1 } as Document);
      const before = await coll.findOneAndUpdate({ _id: 1 } as Document, { $inc: { n: 1 } }, { returnDocument: 'before' });
      expect(before).to.deep.equal({ _id: 1, n: 1 });
      const after = await coll.findOneAndUpdate({ _id: 1 } as Document, { $inc: { n: 1 } }, { returnDocument: 'after' });
      expect(after).to.deep.equal({ _id: 1, n: 3 });
      const missing = await coll.findOneAndUpdate({ _id: 2 } as Document, { $inc: { n: 1 } });
      expect(missing).to.equal(null);
    });

    it('upsert inserts; "after" returns the new document, "before" returns null', async function () {
      const coll = m.fresh('fam_upsert');
      const created = await coll.findOneAndUpdate(
        { key: 'a' },
        { $set: { v: 1 }, $setOnInsert: { born: true } },
        { upsert: true, returnDocument: 'after' },
      );
      expect(created).to.include({ key: 'a', v: 1, born: true });
      expect(created!._id).to.be.instanceOf(ObjectId);
      const nothingBefore = await coll.findOneAndUpdate({ key: 'b' }, { $set: { v: 2 } }, { upsert: true, returnDocument: 'before' });
      expect(nothingBefore).to.equal(null);
      expect(await coll.countDocuments()).to.equal(2);
    });

    it('raw findAndModify reports lastErrorObject for update, upsert and remove', async function () {
      const coll = m.fresh('fam_raw');
      const upserted = await m.db.command({
        findAndModify: coll.collectionName,
        query: { _id: 'x' },
        update: { $set: { v: 1 } },
        upsert: true,
        new: true,
      });
      expect(upserted.value).to.deep.equal({ _id: 'x', v: 1 });
      expect(upserted.lastErrorObject).to.deep.equal({ n: 1, updatedExisting: false, upserted: 'x' });
      const updated = await m.db.command({ findAndModify: coll.collectionName, query: { _id: 'x' }, update: { $set: { v: 2 } } });
      expect(updated.value).to.deep.equal({ _id: 'x', v: 1 });
      expect(updated.lastErrorObject).to.deep.equal({ n: 1, updatedExisting: true });
      const removed = await m.db.command({ findAndModify: coll.collectionName, query: { _id: 'x' }, remove: true });
      expect(removed.value).to.deep.equal({ _id: 'x', v: 2 });
      expect(removed.lastErrorObject).to.deep.equal({ n: 1 });
      const none = await m.db.command({ findAndModify: coll.collectionName, query: { _id: 'x' }, remove: true });
      expect(none.value).to.equal(null);
      expect(none.lastErrorObject).to.deep.equal({ n: 0 });
    });

    it('sort picks which document is modified, and projection shapes the result', async function () {
      const coll = m.fresh('fam_sort');
      await coll.insertMany([{ _id: 1, p: 5, s: 'a' }, { _id: 2, p: 9, s: 'a' }, { _id: 3, p: 1, s: 'a' }] as Document[]);
      const top = await coll.findOneAndUpdate(
        { s: 'a' },
        { $set: { taken: true } },
        { sort: { p: -1 }, projection: { p: 1, taken: 1, _id: 0 }, returnDocument: 'after' },
      );
      expect(top).to.deep.equal({ p: 9, taken: true });
      expect(await coll.countDocuments({ taken: true })).to.equal(1);
      expect((await coll.findOne({ taken: true }))!._id).to.equal(2);
    });

    it('findOneAndDelete (remove) deletes the first document in sort order and returns it', async function () {
      const coll = m.fresh('fam_remove');
      await coll.insertMany([{ _id: 1, q: 'jobs', pri: 2 }, { _id: 2, q: 'jobs', pri: 7 }, { _id: 3, q: 'jobs', pri: 4 }] as Document[]);
      const removed = await coll.findOneAndDelete({ q: 'jobs' }, { sort: { pri: -1 } });
      expect(removed).to.deep.equal({ _id: 2, q: 'jobs', pri: 7 });
      expect((await coll.find({}, { sort: { _id: 1 } }).toArray()).map((d) => d._id)).to.deep.equal([1, 3]);
    });

    it('findOneAndReplace replaces and can return the replacement', async function () {
      const coll = m.fresh('fam_replace');
      await coll.insertOne({ _id: 1, a: 1 } as Document);
      const after = await coll.findOneAndReplace({ _id: 1 } as Document, { b: 2 }, { returnDocument: 'after' });
      expect(after).to.deep.equal({ _id: 1, b: 2 });
    });

    it('includeResultMetadata exposes ok, value and lastErrorObject', async function () {
      const coll = m.fresh('fam_meta');
      await coll.insertOne({ _id: 1, a: 1 } as Document);
      const result = await coll.findOneAndUpdate({ _id: 1 } as Document, { $set: { a: 2 } }, { includeResultMetadata: true });
      expect(result.ok).to.equal(1);
      expect(result.value).to.deep.equal({ _id: 1, a: 1 });
      expect(result.lastErrorObject).to.deep.include({ n: 1, updatedExisting: true });
    });
  });
});
