import { expect } from 'chai';
import type { Collection, Document } from 'mongodb';
import { useMongo } from '../../support/mongo-target.js';

describe('embedded mongo: aggregation', function () {
  const m = useMongo('aggregation');
  let orders: Collection;
  let customers: Collection;

  before(async function () {
    orders = m.db.collection('orders');
    customers = m.db.collection('customers');
    await customers.insertMany([
      { _id: 'c1', name: 'Ann', tier: 'gold' },
      { _id: 'c2', name: 'Bob', tier: 'silver' },
      { _id: 'c3', name: 'Cid', tier: 'gold' },
    ] as Document[]);
    await orders.insertMany([
      { _id: 1, customer: 'c1', status: 'paid', total: 30, items: [{ sku: 'a', qty: 1 }, { sku: 'b', qty: 2 }] },
      { _id: 2, customer: 'c2', status: 'paid', total: 10, items: [{ sku: 'a', qty: 3 }] },
      { _id: 3, customer: 'c1', status: 'open', total: 25, items: [] },
      { _id: 4, customer: 'c3', status: 'paid', total: 50, items: [{ sku: 'c', qty: 1 }] },
      { _id: 5, customer: 'c2', status: 'void', total: 5, items: [{ sku: 'b', qty: 1 }] },
    ] as Document[]);
  });

  it('$match + $group ($sum, $avg, $max, $push, $addToSet, count) + $sort', async function () {
    const result = await orders
      .aggregate([
        { $match: { status: { $ne: 'void' } } },
        {
          $group: {
            _id: '$customer',
            revenue: { $sum: '$total' },
            average: { $avg: '$total' },
            biggest: { $max: '$total' },
            ids: { $push: '$_id' },
            statuses: { $addToSet: '$status' },
            orders: { $sum: 1 },
          },
        },
        { $sort: { revenue: -1 } },
      ])
      .toArray();
    expect(result.map((r) => ({ ...r, statuses: [...(r.statuses as string[])].sort() }))).to.deep.equal([
      { _id: 'c1', revenue: 55, average: 27.5, biggest: 30, ids: [1, 3], statuses: ['open', 'paid'], orders: 2 },
      { _id: 'c3', revenue: 50, average: 50, biggest: 50, ids: [4], statuses: ['paid'], orders: 1 },
      { _id: 'c2', revenue: 10, average: 10, biggest: 10, ids: [2], statuses: ['paid'], orders: 1 },
    ]);
  });

  it('$group with _id null aggregates the whole collection', async function () {
    const [all] = await orders.aggregate([{ $group: { _id: null, total: { $sum: '$total' }, n: { $sum: 1 } } }]).toArray();
    expect(all).to.deep.equal({ _id: null, total: 120, n: 5 });
  });

  it('$project computes fields and excludes others; $addFields adds to them', async function () {
    const result = await orders
      .aggregate([
        { $match: { _id: { $in: [1, 2] } } },
        { $sort: { _id: 1 } },
        { $project: { _id: 0, customer: 1, doubled: { $multiply: ['$total', 2] }, itemCount: { $size: '$items' } } },
        { $addFields: { big: { $gte: ['$doubled', 50] } } },
      ])
      .toArray();
    expect(result).to.deep.equal([
      { customer: 'c1', doubled: 60, itemCount: 2, big: true },
      { customer: 'c2', doubled: 20, itemCount: 1, big: false },
    ]);
  });

  it('$unwind an array (empty arrays dropped unless preserveNullAndEmptyArrays)', async function () {
    const unwound = await orders
      .aggregate([{ $unwind: '$items' }, { $group: { _id: '$items.sku', qty: { $sum: '$items.qty' } } }, { $sort: { _id: 1 } }])
      .toArray();
    expect(unwound).to.deep.equal([
      { _id: 'a', qty: 4 },
      { _id: 'b', qty: 3 },
      { _id: 'c', qty: 1 },
    ]);
    const preserved = await orders
      .aggregate([{ $match: { _id: 3 } }, { $unwind: { path: '$items', preserveNullAndEmptyArrays: true } }])
      .toArray();
    expect(preserved).to.have.length(1);
    expect(preserved[0]!).not.to.have.property('items');
  });

  it('$lookup joins with localField/foreignField and with a let/pipeline sub-query', async function () {
    const joined = await orders
      .aggregate([
        { $match: { _id: { $in: [1, 4] } } },
        { $sort: { _id: 1 } },
        { $lookup: { from: 'customers', localField: 'customer', foreignField: '_id', as: 'who' } },
        { $project: { _id: 1, who: 1 } },
      ])
      .toArray();
    expect(joined).to.deep.equal([
      { _id: 1, who: [{ _id: 'c1', name: 'Ann', tier: 'gold' }] },
      { _id: 4, who: [{ _id: 'c3', name: 'Cid', tier: 'gold' }] },
    ]);

    const perCustomer = await customers
      .aggregate([
        { $sort: { _id: 1 } },
        {
          $lookup: {
            from: 'orders',
            let: { cid: '$_id' },
            pipeline: [{ $match: { $expr: { $eq: ['$customer', '$$cid'] }, status: 'paid' } }, { $project: { _id: 1 } }],
            as: 'paid',
          },
        },
        { $project: { paid: '$paid._id' } },
      ])
      .toArray();
    expect(perCustomer).to.deep.equal([
      { _id: 'c1', paid: [1] },
      { _id: 'c2', paid: [2] },
      { _id: 'c3', paid: [4] },
    ]);
  });

  it('$facet runs several sub-pipelines over the same input', async function () {
    const [facets] = await orders
      .aggregate([
        {
          $facet: {
            byStatus: [{ $group: { _id: '$status', n: { $sum: 1 } } }, { $sort: { _id: 1 } }],
            top: [{ $sort: { total: -1 } }, { $limit: 2 }, { $project: { _id: 1 } }],
            count: [{ $count: 'n' }],
          },
        },
      ])
      .toArray();
    expect(facets).to.deep.equal({
      byStatus: [
        { _id: 'open', n: 1 },
        { _id: 'paid', n: 3 },
        { _id: 'void', n: 1 },
      ],
      top: [{ _id: 4 }, { _id: 1 }],
      count: [{ n: 5 }],
    });
  });

  it('$count, $skip and $limit', async function () {
    expect(await orders.aggregate([{ $match: { status: 'paid' } }, { $count: 'paid' }]).toArray()).to.deep.equal([{ paid: 3 }]);
    expect(await orders.aggregate([{ $match: { status: 'nope' } }, { $count: 'n' }]).toArray()).to.deep.equal([]);
    const page = await orders.aggregate([{ $sort: { _id: 1 } }, { $skip: 1 }, { $limit: 2 }, { $project: { _id: 1 } }]).toArray();
    expect(page).to.deep.equal([{ _id: 2 }, { _id: 3 }]);
  });

  it('the raw aggregate command answers with a cursor document', async function () {
    const reply = await m.db.command({ aggregate: 'orders', pipeline: [{ $match: { _id: 2 } }, { $project: { total: 1 } }], cursor: {} });
    expect(reply.ok).to.equal(1);
    expect(reply.cursor.ns).to.equal(`${m.dbName}.orders`);
    expect(reply.cursor.firstBatch).to.deep.equal([{ _id: 2, total: 10 }]);
    expect(Number(reply.cursor.id)).to.equal(0);
  });

  it('aggregate on a missing collection returns no documents', async function () {
    expect(await m.db.collection('no_such_collection').aggregate([{ $match: {} }]).toArray()).to.deep.equal([]);
  });

  it('counting $group on field paths: compound keys, null versus missing fields, arrays, constants', async function () {
    const votes = m.db.collection('votes');
    await votes.insertMany([
      { _id: 1, a: 'x', b: 'p', day: new Date('2026-01-01T00:00:00Z') },
      { _id: 2, a: 'x', b: 'p', day: new Date('2026-01-01T00:00:00Z') },
      { _id: 3, a: 'x', b: null },
      { _id: 4, a: 'x' },
      { _id: 5, a: 'y', b: 'q', nested: { c: 1 } },
      { _id: 6, a: ['x', 'y'], b: 'q', nested: { c: 1 } },
    ] as Document[]);
    const byPair = await votes.aggregate([{ $group: { _id: { a: '$a', b: '$b' }, n: { $sum: 1 }, points: { $sum: 2 } } }, { $sort: { n: -1, '_id.b': 1 } }]).toArray();
    expect(byPair).to.have.deep.members([
      { _id: { a: 'x', b: 'p' }, n: 2, points: 4 },
      { _id: { a: 'x', b: null }, n: 1, points: 2 },
      { _id: { a: 'x' }, n: 1, points: 2 },
      { _id: { a: 'y', b: 'q' }, n: 1, points: 2 },
      { _id: { a: ['x', 'y'], b: 'q' }, n: 1, points: 2 },
    ]);
    const byDay = await votes.aggregate([{ $match: { a: 'x' } }, { $group: { _id: '$day', n: { $sum: 1 } } }]).toArray();
    expect(byDay).to.have.deep.members([
      { _id: new Date('2026-01-01T00:00:00Z'), n: 2 },
      { _id: null, n: 3 },
    ]);
    expect(await votes.aggregate([{ $group: { _id: '$nested.c', n: { $sum: 1 } } }, { $sort: { _id: 1 } }]).toArray()).to.deep.equal([
      { _id: null, n: 4 },
      { _id: 1, n: 2 },
    ]);
    expect(await votes.aggregate([{ $group: { _id: null, n: { $sum: 1 } } }]).toArray()).to.deep.equal([{ _id: null, n: 6 }]);
  });
});
