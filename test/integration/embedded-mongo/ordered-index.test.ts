/**
 * Range scans and sorts answered in index order: the answers equal a collection scan's (the same data
 * in an unindexed twin collection), a sort with a limit stops early without losing ties, the documents
 * a window query examines do not grow with the documents outside it, and serverStatus counts the work.
 */
import { expect } from 'chai';
import { type ClientSession, type Collection, type Document, type FindCursor } from 'mongodb';
import { useMongo } from '../../support/mongo-target.js';

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);

/** Test documents have numeric ids. */
interface Numbered extends Document {
  _id: number;
}

/** A small deterministic PRNG (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: () => number, items: readonly T[]): T => items[Math.floor(r() * items.length)];
const STRINGS = ['apple', 'banana', 'cherry', 'date', 'elder'];
const GROUPS = ['a', 'b', 'c'];

/** Values of mixed BSON types with many ties: few days, small numbers, few strings, nulls, missing. */
function randomDoc(r: () => number, id: number): Numbered {
  const doc: Numbered = { _id: id, k: pick(r, GROUPS), n: id % 7 };
  switch (Math.floor(r() * 8)) {
    case 0:
    case 1:
      doc.v = new Date(START + Math.floor(r() * 12) * DAY);
      break;
    case 2:
      doc.v = Math.floor(r() * 20) - 5;
      break;
    case 3:
      doc.v = Math.round(r() * 200) / 10 - 5;
      break;
    case 4:
      doc.v = pick(r, STRINGS);
      break;
    case 5:
      doc.v = null;
      break;
    case 6:
      break;
    default:
      doc.v = r() < 0.5;
  }
  return doc;
}

function randomOperand(r: () => number, type = pick(r, ['date', 'number', 'string'] as const)): unknown {
  if (type === 'date') return new Date(START + Math.floor(r() * 14 - 1) * DAY);
  if (type === 'number') return Math.round(r() * 260) / 10 - 8;
  return pick(r, [...STRINGS, 'b', 'zz', '']);
}

/** One to three of $gt/$gte/$lt/$lte/$eq, usually on one type, sometimes mixing types. */
function randomRange(r: () => number): Document {
  const type = pick(r, ['date', 'number', 'string'] as const);
  const ops = ['$gt', '$gte', '$lt', '$lte', '$eq'].filter(() => r() < 0.4);
  if (ops.length === 0) ops.push(pick(r, ['$gt', '$gte', '$lt', '$lte']));
  return Object.fromEntries(ops.map((op) => [op, randomOperand(r, r() < 0.9 ? type : undefined)]));
}

function randomFilter(r: () => number): Document {
  const prefix = pick(r, [{ k: pick(r, GROUPS) }, { k: { $in: ['a', 'c'] } }, { k: { $eq: 'b' } }, {}]);
  return r() < 0.1 ? prefix : { ...prefix, v: randomRange(r) };
}

/** Every stage name in a winning plan. */
function stages(plan: Document | undefined): string[] {
  if (!plan) return [];
  const inner = [plan.inputStage, ...(plan.inputStages ?? [])].filter(Boolean) as Document[];
  return [String(plan.stage), ...inner.flatMap(stages)];
}

/** Null and missing sort as equals: compare sort keys with both as null. */
const sortValue = (doc: Document) => (doc.v === undefined ? null : doc.v);

describe('embedded mongo: ordered index scans', function () {
  const m = useMongo('ordered_index');

  describe('answers equal a collection scan', function () {
    let twin: Collection<Numbered>;
    let byKeyAndValue: Collection<Numbered>;
    let byValue: Collection<Numbered>;
    let all: Collection<Numbered>[];

    before(async function () {
      twin = m.db.collection<Numbered>('twin');
      byKeyAndValue = m.db.collection<Numbered>('by_k_v');
      byValue = m.db.collection<Numbered>('by_v');
      all = [twin, byKeyAndValue, byValue];
      await byKeyAndValue.createIndex({ k: 1, v: 1 });
      await byValue.createIndex({ v: -1 });
      const r = random(7);
      const docs = Array.from({ length: 400 }, (_, i) => randomDoc(r, i));
      for (const coll of all) await coll.insertMany(docs.map((d) => ({ ...d })));
    });

    async function expectSameAnswers(seed: number, queries: number, session?: ClientSession) {
      const r = random(seed);
      for (let q = 0; q < queries; q++) {
        const filter = randomFilter(r);
        const answers: Document[][] = [];
        for (const coll of all) answers.push(await coll.find(filter, { session, projection: { _id: 1 }, sort: { _id: 1 } }).toArray());
        const [expected, ...actual] = answers;
        for (const answer of actual) expect(answer, JSON.stringify(filter)).to.deep.equal(expected);
      }
    }

    async function expectSameSortedPages(seed: number, queries: number) {
      const r = random(seed);
      for (let q = 0; q < queries; q++) {
        const filter = randomFilter(r);
        const dir = pick(r, [1, -1] as const);
        const limit = 1 + Math.floor(r() * 25);
        const skip = r() < 0.3 ? Math.floor(r() * 10) : 0;
        const what = `${JSON.stringify(filter)} dir ${dir} skip ${skip} limit ${limit}`;
        // A total order (ties broken by _id): the very same documents.
        const total = { v: dir, _id: pick(r, [1, -1] as const) };
        const [expected, ...actual] = await Promise.all(all.map((coll) => coll.find(filter).sort(total).skip(skip).limit(limit).toArray()));
        for (const answer of actual) expect(answer, what).to.deep.equal(expected);
        // The sort field alone: which of several tied documents come is unspecified, their values are not.
        const [expectedValues, ...actualValues] = await Promise.all(
          all.map(async (coll) => (await coll.find(filter).sort({ v: dir }).skip(skip).limit(limit).toArray()).map(sortValue)),
        );
        for (const values of actualValues) expect(values, what).to.deep.equal(expectedValues);
      }
    }

    it('range conditions over mixed types, nulls and missing values, with equality and $in prefixes', async function () {
      await expectSameAnswers(11, 150);
    });

    it('the indexes are used for ranges', async function () {
      const filter = { k: 'a', v: { $gte: new Date(START + 2 * DAY), $lt: new Date(START + 5 * DAY) } };
      const compound = await byKeyAndValue.find(filter).explain('executionStats');
      expect(stages(compound.queryPlanner.winningPlan)).to.include('IXSCAN');
      expect(stages(compound.queryPlanner.winningPlan)).to.not.include('COLLSCAN');
      const single = await byValue.find({ v: { $gt: 3, $lte: 9 } }).explain('executionStats');
      expect(stages(single.queryPlanner.winningPlan)).to.include('IXSCAN');
      expect(single.executionStats.totalDocsExamined).to.equal(single.executionStats.nReturned);
    });

    it('sorts with a limit (and skip) give the in-memory sort\'s answers, ties included', async function () {
      await expectSameSortedPages(12, 80);
      const [expected, ...actual] = await Promise.all(all.map((coll) => coll.findOne({ k: 'c' }, { sort: { v: -1, _id: 1 } })));
      for (const answer of actual) expect(answer).to.deep.equal(expected);
      const modified = await Promise.all(
        all.map((coll) => coll.findOneAndUpdate({ k: 'a', v: { $lt: 'cherry' } }, { $set: { touched: true } }, { sort: { v: -1, _id: -1 } })),
      );
      expect(modified[0]).to.have.property('v', 'banana');
      for (const answer of modified.slice(1)) expect(answer).to.deep.equal(modified[0]);
    });

    it('stay equal after updates and deletes that change the indexed values, and after more inserts', async function () {
      const r = random(21);
      const later = Array.from({ length: 150 }, (_, i) => randomDoc(r, 1000 + i));
      for (const coll of all) {
        await coll.updateMany({ n: 3 }, { $set: { v: new Date(START + 4 * DAY) } });
        await coll.updateMany({ k: 'a', n: 1 }, { $unset: { v: '' } });
        await coll.updateMany({ n: 2 }, { $set: { k: 'c' } });
        await coll.updateMany({ n: 4, v: { $type: 'number' } }, { $inc: { v: 7 } });
        await coll.deleteMany({ n: 5 });
        await coll.deleteMany({ k: 'b', v: { $type: 'string' } });
        await coll.insertMany(later.map((d) => ({ ...d })));
      }
      await expectSameAnswers(22, 150);
      await expectSameSortedPages(23, 60);
    });

    it('stay equal inside a transaction that changes indexed values', async function () {
      const session = m.client.startSession();
      try {
        session.startTransaction();
        for (const coll of all) {
          await coll.updateMany({ n: 6 }, { $set: { v: 'banana' } }, { session });
          await coll.deleteMany({ n: 0, k: 'a' }, { session });
          await coll.insertOne({ _id: 5000, k: 'a', n: 9, v: new Date(START + 3 * DAY) }, { session });
        }
        await expectSameAnswers(31, 60, session);
        const pages: Document[][] = [];
        for (const coll of all) pages.push(await coll.find({ k: 'a', v: { $gte: new Date(START) } }, { session }).sort({ v: -1, _id: -1 }).limit(7).toArray());
        const [expected, ...actual] = pages;
        for (const answer of actual) expect(answer).to.deep.equal(expected);
        await session.commitTransaction();
      } finally {
        if (session.inTransaction()) await session.abortTransaction();
        await session.endSession();
      }
      await expectSameAnswers(32, 60);
    });

    it('a multikey index still answers ranges as MongoDB bounds them', async function () {
      const plain = m.db.collection<Numbered>('multikey_twin');
      const indexed = m.db.collection<Numbered>('multikey');
      await indexed.createIndex({ k: 1, v: 1 });
      const docs = [
        { _id: 1, k: 'a', v: [new Date(START - 10 * DAY), new Date(START + 10 * DAY)] },
        { _id: 2, k: 'a', v: new Date(START + DAY) },
        { _id: 3, k: 'a', v: [3, 'x'] },
        { _id: 4, k: 'a', v: 5 },
        { _id: 5, k: 'a', v: [] },
      ];
      for (const coll of [plain, indexed]) await coll.insertMany(docs.map((d) => ({ ...d })));
      for (const filter of [
        { k: 'a', v: { $gte: new Date(START), $lt: new Date(START + 5 * DAY) } },
        { k: 'a', v: { $gt: 2, $lt: 6 } },
        { k: 'a', v: { $gte: 'a' } },
      ]) {
        const [expected, actual] = await Promise.all([plain, indexed].map((coll) => coll.find(filter).sort({ _id: 1 }).toArray()));
        expect(actual, JSON.stringify(filter)).to.deep.equal(expected);
      }
    });
  });

  describe('what a window query examines', function () {
    const inWindow = 40;
    let decks: Collection<Numbered>;
    let latest: Collection<Numbered>;

    before(async function () {
      decks = m.db.collection<Numbered>('decks');
      latest = m.db.collection<Numbered>('latest');
      await decks.createIndex({ format: 1, date: 1 });
      await latest.createIndex({ date: 1 });
      // The window: January 2026, one list every 12 hours (distinct dates).
      const window = Array.from({ length: inWindow }, (_, i) => ({ _id: i, format: 'M', date: new Date(START + i * (DAY / 2)) }));
      await decks.insertMany(window);
      await latest.insertMany(window.map((d) => ({ ...d })));
    });

    const windowFilter = { format: 'M', date: { $gte: new Date(START), $lt: new Date(START + 31 * DAY) } };

    async function examined(coll: Collection<Numbered>, filter: Document, shape: (c: FindCursor<Numbered>) => FindCursor<Numbered> = (c) => c) {
      const explained = await shape(coll.find(filter)).explain('executionStats');
      return {
        docs: explained.executionStats.totalDocsExamined as number,
        returned: explained.executionStats.nReturned as number,
        stages: stages(explained.queryPlanner.winningPlan),
      };
    }

    async function measureAll() {
      return {
        range: await examined(decks, windowFilter),
        inGroups: await examined(decks, { ...windowFilter, format: { $in: ['M', 'X'] } }),
        newest: await examined(decks, windowFilter, (c) => c.sort({ date: -1 }).limit(5)),
        newestById: await examined(decks, windowFilter, (c) => c.sort({ date: -1, _id: -1 }).limit(5)),
        newestUnlike: await examined(latest, { format: { $not: /^L/ } }, (c) => c.sort({ date: -1 }).limit(1)),
      };
    }

    it('stays the same when ten times more documents are added outside the window', async function () {
      const before = await measureAll();
      expect(before.range).to.include({ docs: inWindow, returned: inWindow });
      expect(before.inGroups).to.include({ docs: inWindow, returned: inWindow });
      expect(before.range.stages).to.include('IXSCAN');
      expect(before.newest.returned).to.equal(5);
      expect(before.newest.docs).to.be.at.most(6);
      expect(before.newest.stages).to.include('IXSCAN');
      expect(before.newest.stages).to.not.include('SORT');
      expect(before.newestById.docs).to.be.at.most(inWindow);
      expect(before.newestUnlike).to.include({ returned: 1 });
      expect(before.newestUnlike.docs).to.be.at.most(2);

      const outside: Numbered[] = [];
      for (let i = 0; i < 10 * inWindow; i++) {
        const date = new Date(i % 2 ? START - (1 + i) * DAY : START + 40 * DAY + i * DAY);
        outside.push({ _id: 1000 + i, format: i % 3 === 0 ? 'L' : 'M', date });
      }
      // Lists of another format inside the window too.
      for (let i = 0; i < inWindow; i++) outside.push({ _id: 5000 + i, format: 'L', date: new Date(START + i * DAY) });
      await decks.insertMany(outside);
      await latest.insertMany(outside.filter((d) => d.date.getTime() < START).map((d) => ({ ...d })));

      expect(await measureAll()).to.deep.equal(before);
    });

    it('explain shows the in-memory sort when no index gives the order', async function () {
      const explained = await decks.find(windowFilter).sort({ seat: 1 }).limit(3).explain('executionStats');
      expect(stages(explained.queryPlanner.winningPlan)).to.include('SORT');
      expect(explained.executionStats.nReturned).to.equal(3);
    });
  });

  describe('serverStatus', function () {
    const status = async () => m.db.admin().command({ serverStatus: 1 });
    const delta = (after: Document, before: Document, path: string) => {
      const at = (doc: Document) => Number(path.split('.').reduce<unknown>((v, k) => (v as Document)[k], doc));
      return at(after) - at(before);
    };
    const embedded = () => m.target.embedded;
    /** Exactly on the embedded server (it serves this file alone); at least, on a shared MongoDB. */
    const expectCount = (actual: number, expected: number, what: string) => {
      if (embedded()) expect(actual, what).to.equal(expected);
      else expect(actual, what).to.be.at.least(expected);
    };

    it('counts operations per command as MongoDB does', async function () {
      const coll = m.db.collection<Numbered>('counted');
      const before = await status();
      await coll.insertMany([1, 2, 3, 4, 5].map((i) => ({ _id: i, x: i })));
      await coll.find({ x: { $gte: 2 } }).toArray();
      await coll.find({}, { batchSize: 2 }).toArray();
      await coll.updateOne({ _id: 1 }, { $set: { y: 1 } });
      await coll.bulkWrite([{ updateOne: { filter: { _id: 2 }, update: { $set: { y: 2 } } } }, { updateMany: { filter: { x: { $gt: 3 } }, update: { $set: { y: 3 } } } }]);
      await coll.deleteOne({ _id: 5 });
      await m.db.command({ count: 'counted', query: { x: { $gt: 1 } } });
      await coll.distinct('x');
      await coll.aggregate([{ $match: { x: 1 } }]).toArray();
      await coll.findOneAndUpdate({ _id: 3 }, { $set: { z: 1 } });
      const after = await status();
      expectCount(delta(after, before, 'opcounters.insert'), 5, 'insert');
      expectCount(delta(after, before, 'opcounters.query'), 2, 'query');
      expectCount(delta(after, before, 'opcounters.getmore'), 2, 'getmore');
      expectCount(delta(after, before, 'opcounters.update'), 3, 'update');
      expectCount(delta(after, before, 'opcounters.delete'), 1, 'delete');
      // count, distinct, aggregate, findAndModify and the second serverStatus at least (the driver's monitoring may add more).
      expect(delta(after, before, 'opcounters.command')).to.be.at.least(5);
    });

    it('counts documents examined and returned by queries', async function () {
      const coll = m.db.collection<Numbered>('scanned');
      await coll.createIndex({ at: 1 });
      await coll.insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: i, at: new Date(START + i * DAY), tag: i % 3 })));
      let before = await status();
      const ranged = await coll.find({ at: { $gte: new Date(START + 10 * DAY), $lt: new Date(START + 14 * DAY) } }).toArray();
      let after = await status();
      expect(ranged).to.have.length(4);
      expectCount(delta(after, before, 'metrics.queryExecutor.scannedObjects'), 4, 'scannedObjects of a range scan');
      expect(delta(after, before, 'metrics.queryExecutor.scanned')).to.be.at.least(4);
      expectCount(delta(after, before, 'metrics.document.returned'), 4, 'returned');

      before = await status();
      const scanned = await coll.find({ tag: 1 }).toArray();
      after = await status();
      expect(scanned).to.have.length(10);
      expectCount(delta(after, before, 'metrics.queryExecutor.scannedObjects'), 30, 'scannedObjects of a collection scan');
      expectCount(delta(after, before, 'metrics.document.returned'), 10, 'returned');

      before = await status();
      await coll.updateMany({ at: { $lt: new Date(START + 3 * DAY) } }, { $set: { early: true } });
      await coll.deleteMany({ at: { $gte: new Date(START + 28 * DAY) } });
      after = await status();
      expectCount(delta(after, before, 'metrics.queryExecutor.scannedObjects'), 5, 'scannedObjects of an update and a delete');
    });
  });
});
