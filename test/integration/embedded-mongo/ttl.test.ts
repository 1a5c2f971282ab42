import { expect } from 'chai';
import mongoose, { Schema } from 'mongoose';
import type { Document } from 'mongodb';
import { pollUntil } from '../../support/async.js';
import { skipUnlessEmbedded, useMongo } from '../../support/mongo-target.js';

const HOUR = 3_600_000;

describe('embedded mongo: TTL indexes remove expired documents', function () {
  before(function () {
    skipUnlessEmbedded(this, "a real mongod's TTL monitor runs every 60 s and its period cannot be set per test");
  });
  // The embedded server for this file sweeps every 200 ms.
  const m = useMongo('ttl', { ttlMonitorIntervalMs: 200 });

  it('removes documents whose date is older than expireAfterSeconds and keeps the rest', async function () {
    const coll = m.fresh('ttl_sessions');
    await coll.createIndex({ lastSeen: 1 }, { expireAfterSeconds: 60 });
    const now = Date.now();
    await coll.insertMany([
      { _id: 'expired', lastSeen: new Date(now - HOUR) },
      { _id: 'expired-array', lastSeen: [new Date(now + HOUR), new Date(now - HOUR)] },
      { _id: 'fresh', lastSeen: new Date(now) },
      { _id: 'future', lastSeen: new Date(now + HOUR) },
      { _id: 'not-a-date', lastSeen: 'yesterday' },
      { _id: 'no-field' },
    ] as Document[]);
    const remaining = await pollUntil(
      async () => {
        const ids = (await coll.find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id as unknown as string).sort();
        return ids.includes('expired') || ids.includes('expired-array') ? undefined : ids;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'the TTL monitor to remove expired documents' },
    );
    expect(remaining).to.deep.equal(['fresh', 'future', 'no-field', 'not-a-date']);
  });

  it('expireAfterSeconds: 0 expires documents at the date they carry', async function () {
    const coll = m.fresh('ttl_at');
    await coll.createIndex({ expireAt: 1 }, { expireAfterSeconds: 0 });
    await coll.insertMany([
      { _id: 'past', expireAt: new Date(Date.now() - 1_000) },
      { _id: 'later', expireAt: new Date(Date.now() + HOUR) },
    ] as Document[]);
    await pollUntil(async () => (await coll.countDocuments({ _id: 'past' } as Document)) === 0, {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the document with a past expireAt to be removed',
    });
    expect(await coll.countDocuments({ _id: 'later' } as Document)).to.equal(1);
  });

  it('a mongoose Schema date with expires is swept once expired', async function () {
    const conn = mongoose.createConnection(m.target.uri, { dbName: m.dbName });
    try {
      await conn.asPromise();
      const Tokens = conn.model('TtlToken', new Schema({ value: String, createdAt: { type: Date, expires: 1 } }));
      await Tokens.init();
      await Tokens.create([
        { value: 'old', createdAt: new Date(Date.now() - HOUR) },
        { value: 'new', createdAt: new Date(Date.now() + HOUR) },
      ]);
      await pollUntil(async () => (await Tokens.countDocuments({ value: 'old' })) === 0, {
        timeoutMs: 10_000,
        intervalMs: 100,
        what: 'the expired mongoose document to be removed',
      });
      expect(await Tokens.countDocuments({ value: 'new' })).to.equal(1);
    } finally {
      await conn.close();
    }
  });
});
