import { expect } from 'chai';
import mongoose, { Schema, Types, type Connection, type HydratedDocument } from 'mongoose';
import { MongoServerError } from 'mongodb';
import { deferred, withDeadline } from '../../support/async.js';
import { expectServerError, useMongo } from '../../support/mongo-target.js';

interface User {
  email: string;
  name: string;
  age?: number;
  tags: string[];
}
interface Author {
  name: string;
}
interface Book {
  title: string;
  author: Types.ObjectId;
  year: number;
}
interface Counter {
  _id: string;
  n: number;
}

describe('embedded mongo: mongoose 9 model paths', function () {
  const m = useMongo('mongoose');
  let conn: Connection;
  let modelCounter = 0;
  /** Each test builds its models under fresh names, so indexes and data never leak between tests. */
  const uniqueName = (base: string): string => `${base}${++modelCounter}`;

  before(async function () {
    conn = mongoose.createConnection(m.target.uri, { dbName: m.dbName, serverSelectionTimeoutMS: 10_000 });
    await conn.asPromise();
  });
  after(async function () {
    await conn?.close();
  });

  const userSchema = (): Schema<User> =>
    new Schema<User>({
      email: { type: String, required: true, unique: true },
      name: { type: String, required: true },
      age: Number,
      tags: { type: [String], default: [] },
    });

  describe('models and queries', function () {
    it('Model.create, findById, findOne and lean() return what was stored', async function () {
      const Users = conn.model<User>(uniqueName('User'), userSchema());
      await Users.init();
      const created = await Users.create({ email: 'ann@x.io', name: 'Ann', age: 31, tags: ['a'] });
      expect(created._id).to.be.instanceOf(Types.ObjectId);
      const byId = await Users.findById(created._id.toHexString());
      expect(byId?.name).to.equal('Ann');
      expect([...(byId?.tags ?? [])]).to.deep.equal(['a']);
      const byEmail = await Users.findOne({ email: 'ann@x.io' });
      expect(byEmail?._id.equals(created._id)).to.equal(true);
      const lean = await Users.findOne({ email: 'ann@x.io' }).lean();
      expect(lean).not.to.be.instanceOf(mongoose.Document);
      expect(lean).to.deep.include({ email: 'ann@x.io', name: 'Ann', age: 31, tags: ['a'], __v: 0 });
      expect(lean?._id).to.be.instanceOf(Types.ObjectId);
      expect(await Users.findById(new Types.ObjectId())).to.equal(null);
    });

    it('find().sort().skip().limit().select() pages through results', async function () {
      const Users = conn.model<User>(uniqueName('User'), userSchema());
      await Users.init();
      await Users.insertMany(
        ['e', 'b', 'd', 'a', 'c'].map((name, i) => ({ email: `${name}@x.io`, name, age: 20 + i })),
      );
      const page = await Users.find({ age: { $gte: 20 } }).sort({ name: 1 }).skip(1).limit(3).select('name -_id').lean();
      expect(page).to.deep.equal([{ name: 'b' }, { name: 'c' }, { name: 'd' }]);
      const byAgeDesc = await Users.find().sort('-age').limit(2).lean();
      expect(byAgeDesc.map((u) => u.name)).to.deep.equal(['c', 'a']);
    });

    it('updateOne, countDocuments, exists and deleteMany', async function () {
      const Users = conn.model<User>(uniqueName('User'), userSchema());
      await Users.init();
      await Users.insertMany([
        { email: '1@x.io', name: 'one', age: 10 },
        { email: '2@x.io', name: 'two', age: 20 },
        { email: '3@x.io', name: 'three', age: 30 },
      ]);
      const updated = await Users.updateOne({ email: '2@x.io' }, { $set: { age: 21 }, $push: { tags: 'edited' } });
      expect(updated.matchedCount).to.equal(1);
      expect(updated.modifiedCount).to.equal(1);
      expect((await Users.findOne({ email: '2@x.io' }).lean())?.tags).to.deep.equal(['edited']);
      expect(await Users.countDocuments({ age: { $gt: 15 } })).to.equal(2);
      expect(await Users.exists({ name: 'three' })).to.have.property('_id');
      expect(await Users.exists({ name: 'four' })).to.equal(null);
      const deleted = await Users.deleteMany({ age: { $lt: 25 } });
      expect(deleted.deletedCount).to.equal(2);
      expect(await Users.countDocuments()).to.equal(1);
    });

    it('doc.save() on a loaded document sends its changes (incl. array push with versioning)', async function () {
      const Users = conn.model<User>(uniqueName('User'), userSchema());
      await Users.init();
      const doc = await Users.create({ email: 's@x.io', name: 'Sam', tags: ['x'] });
      const loaded = (await Users.findById(doc._id)) as HydratedDocument<User>;
      loaded.name = 'Samuel';
      loaded.tags.push('y');
      await loaded.save();
      const back = await Users.findById(doc._id).lean();
      expect(back).to.deep.include({ name: 'Samuel', tags: ['x', 'y'] });
      expect(back?.__v).to.equal(1);
      await loaded.deleteOne();
      expect(await Users.countDocuments()).to.equal(0);
    });

    it("findOneAndUpdate with { upsert: true, returnDocument: 'after' } creates then updates, with timestamps", async function () {
      const schema = new Schema({ key: { type: String, unique: true }, hits: Number }, { timestamps: true });
      const Stats = conn.model(uniqueName('Stat'), schema);
      await Stats.init();
      const created = await Stats.findOneAndUpdate({ key: 'home' }, { $inc: { hits: 1 } }, { upsert: true, returnDocument: 'after' });
      expect(created?.hits).to.equal(1);
      expect(created?.key).to.equal('home');
      expect(created?.get('createdAt')).to.be.instanceOf(Date);
      const updated = await Stats.findOneAndUpdate({ key: 'home' }, { $inc: { hits: 1 } }, { upsert: true, returnDocument: 'after' });
      expect(updated?.hits).to.equal(2);
      expect(updated?.get('createdAt').getTime()).to.equal(created?.get('createdAt').getTime());
      expect(await Stats.countDocuments()).to.equal(1);
      const before = await Stats.findOneAndUpdate({ key: 'home' }, { $inc: { hits: 1 } }, { returnDocument: 'before' });
      expect(before?.hits).to.equal(2);
    });

    it('populate resolves references', async function () {
      const Authors = conn.model<Author>(uniqueName('Author'), new Schema<Author>({ name: String }));
      const booksName = uniqueName('Book');
      const Books = conn.model<Book>(
        booksName,
        new Schema<Book>({ title: String, author: { type: Schema.Types.ObjectId, ref: Authors.modelName }, year: Number }),
      );
      const [le, lem] = await Authors.create([{ name: 'Le Guin' }, { name: 'Lem' }]);
      await Books.create([
        { title: 'The Dispossessed', author: le!._id, year: 1974 },
        { title: 'Solaris', author: lem!._id, year: 1961 },
        { title: 'Earthsea', author: le!._id, year: 1968 },
      ]);
      const book = await Books.findOne({ title: 'Solaris' }).populate<{ author: Author }>('author');
      expect(book?.author.name).to.equal('Lem');
      const leGuin = await Books.find({ author: le!._id }).sort({ year: 1 }).populate<{ author: Author }>('author').lean();
      expect(leGuin.map((b) => [b.title, b.author.name])).to.deep.equal([
        ['Earthsea', 'Le Guin'],
        ['The Dispossessed', 'Le Guin'],
      ]);
    });

    it('insertMany and bulkWrite report their counts', async function () {
      const Users = conn.model<User>(uniqueName('User'), userSchema());
      await Users.init();
      const inserted = await Users.insertMany([
        { email: 'a@b.io', name: 'a' },
        { email: 'b@b.io', name: 'b' },
      ]);
      expect(inserted).to.have.length(2);
      const result = await Users.bulkWrite([
        { insertOne: { document: { email: 'c@b.io', name: 'c', tags: [] } } },
        { updateOne: { filter: { email: 'a@b.io' }, update: { $set: { age: 5 } } } },
        { updateOne: { filter: { email: 'z@b.io' }, update: { $set: { name: 'z' } }, upsert: true } },
        { deleteOne: { filter: { email: 'b@b.io' } } },
        { replaceOne: { filter: { email: 'c@b.io' }, replacement: { email: 'c@b.io', name: 'C', tags: [] } } },
      ]);
      expect(result.insertedCount).to.equal(1);
      expect(result.matchedCount).to.equal(2);
      expect(result.modifiedCount).to.equal(2);
      expect(result.upsertedCount).to.equal(1);
      expect(result.deletedCount).to.equal(1);
      expect((await Users.find().sort({ email: 1 }).lean()).map((u) => u.name)).to.deep.equal(['a', 'C', 'z']);
    });

    it('distinct and aggregate through the model', async function () {
      const Users = conn.model<User>(uniqueName('User'), userSchema());
      await Users.init();
      await Users.insertMany([
        { email: '1@d.io', name: 'x', age: 1, tags: ['p', 'q'] },
        { email: '2@d.io', name: 'y', age: 2, tags: ['q'] },
      ]);
      expect((await Users.distinct('tags')).sort()).to.deep.equal(['p', 'q']);
      const [sum] = await Users.aggregate<{ total: number }>([{ $group: { _id: null, total: { $sum: '$age' } } }]);
      expect(sum?.total).to.equal(3);
    });
  });

  describe('indexes declared in schemas', function () {
    it('unique: true rejects duplicates with E11000 (code 11000, keyValue) after Model.init()', async function () {
      const Users = conn.model<User>(uniqueName('User'), userSchema());
      await Users.init();
      await Users.create({ email: 'dup@x.io', name: 'first' });
      const error = await expectServerError(Users.create({ email: 'dup@x.io', name: 'second' }), 11000);
      expect(error.message).to.match(/E11000 duplicate key error/);
      expect(error.keyValue).to.deep.equal({ email: 'dup@x.io' });
      expect(await Users.countDocuments()).to.equal(1);
    });

    it('duplicates surface as 11000 through insertMany and findOneAndUpdate too', async function () {
      const Users = conn.model<User>(uniqueName('User'), userSchema());
      await Users.init();
      await Users.create({ email: 'one@x.io', name: 'one' });
      await Users.create({ email: 'two@x.io', name: 'two' });
      await expectServerError(Users.insertMany([{ email: 'three@x.io', name: '3' }, { email: 'one@x.io', name: 'again' }]), 11000);
      await expectServerError(Users.insertMany([{ email: 'one@x.io', name: 'again' }, { email: 'four@x.io', name: '4' }], { ordered: false }), 11000);
      expect(await Users.countDocuments({ email: { $in: ['three@x.io', 'four@x.io'] } })).to.equal(2);
      const error = await expectServerError(Users.findOneAndUpdate({ email: 'two@x.io' }, { $set: { email: 'one@x.io' } }), 11000);
      expect(error.keyValue).to.deep.equal({ email: 'one@x.io' });
    });

    it('syncIndexes creates schema indexes (compound, TTL via expires) and drops the others', async function () {
      const schema = new Schema({
        a: String,
        b: Number,
        createdAt: { type: Date, expires: 3600 },
        seenAt: { type: Date, expires: '2h' },
      });
      schema.index({ a: 1, b: -1 }, { unique: true });
      const Things = conn.model(uniqueName('Thing'), schema);
      await Things.init();
      await Things.collection.createIndex({ stray: 1 });
      const dropped = await Things.syncIndexes();
      expect(dropped).to.deep.equal(['stray_1']);
      const indexes = Object.fromEntries((await Things.listIndexes()).map((i) => [i.name as string, i]));
      expect(Object.keys(indexes).sort()).to.deep.equal(['_id_', 'a_1_b_-1', 'createdAt_1', 'seenAt_1']);
      expect(indexes['a_1_b_-1']).to.deep.include({ key: { a: 1, b: -1 }, unique: true });
      expect(indexes['createdAt_1']).to.deep.include({ expireAfterSeconds: 3600 });
      expect(indexes['seenAt_1']).to.deep.include({ expireAfterSeconds: 7200 });
      await Things.create({ a: 'x', b: 1 });
      await expectServerError(Things.create({ a: 'x', b: 1 }), 11000);
      await Things.create({ a: 'x', b: 2 });
    });
  });

  describe('transactions', function () {
    it('connection.transaction() commits; writes are invisible outside until commit', async function () {
      const Users = conn.model<User>(uniqueName('User'), userSchema());
      await Users.init();
      let seenOutside = -1;
      await conn.transaction(async (session) => {
        await Users.create([{ email: 't@x.io', name: 'in tx' }], { session });
        expect(await Users.countDocuments({}).session(session)).to.equal(1);
        seenOutside = await Users.countDocuments({});
      });
      expect(seenOutside).to.equal(0);
      expect(await Users.countDocuments()).to.equal(1);
    });

    it('connection.transaction() rolls back when the callback throws', async function () {
      const Users = conn.model<User>(uniqueName('User'), userSchema());
      await Users.init();
      await Users.create({ email: 'keep@x.io', name: 'keep' });
      const boom = new Error('abort please');
      let caught: unknown;
      try {
        await conn.transaction(async (session) => {
          await Users.create([{ email: 'gone@x.io', name: 'gone' }], { session });
          await Users.updateOne({ email: 'keep@x.io' }, { $set: { name: 'changed' } }, { session });
          throw boom;
        });
      } catch (error) {
        caught = error;
      }
      expect(caught).to.equal(boom);
      expect((await Users.find().lean()).map((u) => [u.email, u.name])).to.deep.equal([['keep@x.io', 'keep']]);
    });

    it('session.withTransaction with a mongoose session, and explicit abort', async function () {
      const Users = conn.model<User>(uniqueName('User'), userSchema());
      await Users.init();
      const session = await conn.startSession();
      try {
        await session.withTransaction(async () => {
          await Users.create([{ email: 'w@x.io', name: 'w' }], { session });
        });
        expect(await Users.countDocuments()).to.equal(1);
        session.startTransaction();
        await Users.deleteMany({}, { session });
        await session.abortTransaction();
        expect(await Users.countDocuments()).to.equal(1);
      } finally {
        await session.endSession();
      }
    });

    it('two concurrent connection.transaction() $inc on one document both apply (+2) after a retried WriteConflict', async function () {
      const Counters = conn.model<Counter>(uniqueName('Counter'), new Schema<Counter>({ _id: String, n: Number }));
      await Counters.create({ _id: 'c', n: 0 });
      const bothAttempted = deferred();
      let firstAttempts = 0;
      let conflicts = 0;
      const bump = (): Promise<unknown> => {
        let firstAttempt = true;
        return conn.transaction(async (session) => {
          const mine = firstAttempt;
          firstAttempt = false;
          try {
            await withDeadline(Counters.updateOne({ _id: 'c' }, { $inc: { n: 1 } }, { session }).exec(), 5_000, 'a conflicting write');
          } catch (error) {
            if (error instanceof MongoServerError && error.code === 112) conflicts += 1;
            throw error;
          } finally {
            if (mine && ++firstAttempts === 2) bothAttempted.resolve();
          }
          if (mine) await withDeadline(bothAttempted.promise, 5_000, 'the other transaction to attempt its write');
        });
      };
      await Promise.all([bump(), bump()]);
      expect((await Counters.findById('c').lean())?.n).to.equal(2);
      expect(conflicts, 'WriteConflicts seen in the callbacks').to.be.at.least(1);
    });
  });
});
