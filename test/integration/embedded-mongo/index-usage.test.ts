import { expect } from 'chai';
import { type Document } from 'mongodb';
import { useMongo } from '../../support/mongo-target.js';

/** Every stage name in a winning plan (MongoDB nests them as inputStage/inputStages). */
function stages(plan: Document | undefined): string[] {
  if (!plan) return [];
  const inner = [plan.inputStage, ...(plan.inputStages ?? [])].filter(Boolean) as Document[];
  return [String(plan.stage), ...inner.flatMap(stages)];
}

describe('embedded mongo: equality lookups use the index (explain)', function () {
  const m = useMongo('index_usage');

  const winning = async (collName: string, filter: Document) => {
    const explained = await m.db.collection(collName).find(filter).explain('queryPlanner');
    return explained.queryPlanner.winningPlan as Document;
  };

  before(async function () {
    const coll = m.db.collection('people');
    await coll.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, email: `p${i}@x`, team: i % 5, tags: [`t${i % 3}`] })) as Document[]);
    await coll.createIndex({ email: 1 }, { unique: true });
    await coll.createIndex({ tags: 1 });
    await coll.createIndex({ team: 1, email: 1 });
  });

  it('a lookup by _id does not scan the collection', async function () {
    const plan = stages(await winning('people', { _id: 7 }));
    expect(plan).to.not.include('COLLSCAN');
    expect(plan.some((s) => s === 'IDHACK' || s === 'EXPRESS_IXSCAN' || s === 'IXSCAN')).to.equal(true);
  });

  it('a lookup by a unique indexed field uses that index', async function () {
    const plan = await winning('people', { email: 'p7@x' });
    expect(stages(plan)).to.not.include('COLLSCAN');
    expect(JSON.stringify(plan)).to.contain('email_1');
  });

  it('a lookup on a multikey index and on a full compound key use the index', async function () {
    expect(stages(await winning('people', { tags: 't1' }))).to.include('IXSCAN');
    expect(stages(await winning('people', { team: 2, email: 'p7@x' }))).to.not.include('COLLSCAN');
  });

  it('a filter on an unindexed field scans, and the answers agree with the indexed ones', async function () {
    expect(stages(await winning('people', { missing: 1 }))).to.include('COLLSCAN');
    const coll = m.db.collection('people');
    expect(await coll.countDocuments({ tags: 't1' })).to.equal(17);
    expect((await coll.findOne({ email: 'p42@x' }))?._id).to.equal(42);
  });

  it('a filter pinning a compound index\'s first field uses that prefix, and a date range on the rest is still applied', async function () {
    const events = m.db.collection('events');
    await events.createIndex({ kind: 1, at: 1 });
    await events.insertMany(
      Array.from({ length: 30 }, (_, i) => ({ _id: i, kind: i % 2 ? 'odd' : 'even', at: new Date(Date.UTC(2026, 0, 1 + i)) })) as Document[],
    );
    // An array of dates matches when each bound is met by some element, as in MongoDB.
    await events.insertOne({ _id: 100, kind: 'odd', at: [new Date(Date.UTC(2025, 0, 1)), new Date(Date.UTC(2027, 0, 1))] } as Document);
    const filter = { kind: 'odd', at: { $gte: new Date(Date.UTC(2026, 0, 10)), $lt: new Date(Date.UTC(2026, 0, 20)) } };
    const plan = await events.find(filter).explain('queryPlanner');
    expect(stages(plan.queryPlanner.winningPlan as Document)).to.include('IXSCAN');
    const ids = (await events.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
    expect(ids).to.deep.equal([9, 11, 13, 15, 17, 100]);
    expect(await events.countDocuments({ kind: 'odd', at: { $gt: new Date(Date.UTC(2026, 0, 29)) } })).to.equal(2);
    // A range with a non-date operand compares only values of that type.
    expect(await events.countDocuments({ kind: 'odd', at: { $gte: 5 } })).to.equal(0);
  });
});
