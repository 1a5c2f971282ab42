import { expect } from 'chai';
import { MongoClient, type Document } from 'mongodb';
import { pollUntil } from '../../support/async.js';
import { expectServerError, skipUnlessEmbedded, uniqueDbName } from '../../support/mongo-target.js';
import { TroupeMongoProcesses, tempDir, type TroupeMongoProcess } from '../../support/troupe-mongo-process.js';

describe('embedded mongo: durability of `troupe mongo --dbpath`', function () {
  this.timeout(90_000);
  const processes = new TroupeMongoProcesses();
  const clients: MongoClient[] = [];
  const dirs: Array<{ remove(): Promise<void> }> = [];
  const dbName = uniqueDbName('durability');

  before(function () {
    skipUnlessEmbedded(this, 'restarting and killing the server process needs the embedded server');
  });
  afterEach(async function () {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    await processes.stopAll();
    for (const dir of dirs.splice(0)) await dir.remove();
  });

  async function newDbpath(): Promise<string> {
    const dir = await tempDir('troupe-mongo-durability');
    dirs.push(dir);
    return dir.dir;
  }
  async function connect(server: TroupeMongoProcess): Promise<MongoClient> {
    const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 5_000 });
    clients.push(client);
    await client.connect();
    return client;
  }
  async function disconnect(client: MongoClient): Promise<void> {
    clients.splice(clients.indexOf(client), 1);
    await client.close();
  }

  it('after SIGTERM and a restart on the same dbpath: documents, collections and indexes are there, unique still enforced', async function () {
    const dbpath = await newDbpath();
    const first = await processes.start({ dbpath });
    const logged = await pollUntil(() => first.loggedUri, { timeoutMs: 5_000, what: 'a JSON log line with "uri"' });
    expect(logged).to.match(new RegExp(`^mongodb://127\\.0\\.0\\.1:${first.port}/`));
    let client = await connect(first);
    let db = client.db(dbName);
    const users = db.collection('users');
    await users.createIndex({ email: 1 }, { unique: true });
    await users.createIndex({ team: 1, joined: -1 }, { name: 'team_joined' });
    await users.createIndex({ temporary: 1 });
    await users.dropIndex('temporary_1');
    await users.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, email: `u${i}@x.io`, team: i % 3, joined: new Date(2024, 0, 1 + i) })) as Document[]);
    await users.updateMany({ team: 0 }, { $set: { lead: true } });
    await users.deleteMany({ _id: { $gte: 45 } } as Document);
    await db.createCollection('empty_but_created');
    await db.collection('dropped_later').insertOne({ x: 1 });
    await db.collection('dropped_later').drop();
    const expected = await users.find({}, { sort: { _id: 1 } }).toArray();
    await disconnect(client);

    const status = await first.stop();
    expect(status.code, `exit code after SIGTERM; output:\n${first.output()}`).to.equal(0);

    const second = await processes.start({ dbpath });
    client = await connect(second);
    db = client.db(dbName);
    expect(await db.collection('users').find({}, { sort: { _id: 1 } }).toArray()).to.deep.equal(expected);
    const collections = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
    expect(collections).to.deep.equal(['empty_but_created', 'users']);
    const indexes = Object.fromEntries((await db.collection('users').listIndexes().toArray()).map((i) => [i.name as string, i]));
    expect(Object.keys(indexes).sort()).to.deep.equal(['_id_', 'email_1', 'team_joined']);
    expect(indexes['email_1']).to.deep.include({ key: { email: 1 }, unique: true });
    expect(indexes['team_joined']).to.deep.include({ key: { team: 1, joined: -1 } });
    const error = await expectServerError(db.collection('users').insertOne({ email: 'u1@x.io' }), 11000);
    expect(error.keyValue).to.deep.equal({ email: 'u1@x.io' });
    await db.collection('users').insertOne({ _id: 1000, email: 'new@x.io' } as Document);
  });

  it('writes made after a restart survive a later kill -9 (the journal keeps appending across restarts)', async function () {
    const dbpath = await newDbpath();
    const first = await processes.start({ dbpath });
    let client = await connect(first);
    await client.db(dbName).collection('log').insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i, gen: 1 })) as Document[]);
    await disconnect(client);
    await first.stop();

    const second = await processes.start({ dbpath });
    client = await connect(second);
    const log = client.db(dbName).collection('log');
    await log.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: 20 + i, gen: 2 })) as Document[]);
    await log.updateMany({ gen: 1 }, { $set: { seenBy: 2 } });
    await log.deleteOne({ _id: 0 } as Document);
    await disconnect(client);
    await second.kill9();

    const third = await processes.start({ dbpath });
    client = await connect(third);
    const docs = await client.db(dbName).collection('log').find({}, { sort: { _id: 1 } }).toArray();
    expect(docs.map((d) => d._id)).to.deep.equal(Array.from({ length: 39 }, (_, i) => i + 1));
    expect(docs.filter((d) => d.gen === 1).every((d) => d.seenBy === 2)).to.equal(true);
    expect(docs.filter((d) => d.gen === 2)).to.have.length(20);
  });

  it('after kill -9 right after acknowledged writes: every acknowledged write is present on restart', async function () {
    const dbpath = await newDbpath();
    const first = await processes.start({ dbpath });
    const client = await connect(first);
    const db = client.db(dbName);
    const items = db.collection('items');
    await items.createIndex({ sku: 1 }, { unique: true });
    // 100 acknowledged single inserts, 50 more in bulk, 100 acknowledged updates, 10 deletes.
    for (let i = 0; i < 100; i += 1) await items.insertOne({ _id: i, sku: `sku-${i}`, n: 0 } as Document);
    await items.insertMany(Array.from({ length: 50 }, (_, k) => ({ _id: 100 + k, sku: `sku-${100 + k}`, n: 0 })) as Document[]);
    for (let i = 0; i < 100; i += 1) await items.updateOne({ _id: i } as Document, { $inc: { n: i + 1 }, $set: { touched: true } });
    for (let i = 140; i < 150; i += 1) await items.deleteOne({ _id: i } as Document);
    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await db.collection('ledger').insertOne({ _id: 'committed' } as Document, { session });
        await items.updateOne({ _id: 0 } as Document, { $set: { inTransaction: true } }, { session });
      });
      session.startTransaction();
      await db.collection('ledger').insertOne({ _id: 'aborted' } as Document, { session });
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }
    const lastAcknowledged = await items.findOneAndUpdate({ _id: 99 } as Document, { $set: { last: true } }, { returnDocument: 'after' });
    expect(lastAcknowledged?.last).to.equal(true);

    const killed = await first.kill9();
    expect(killed.signal).to.equal('SIGKILL');

    const second = await processes.start({ dbpath });
    const after = await connect(second);
    const restored = after.db(dbName);
    const docs = await restored.collection('items').find({}, { sort: { _id: 1 } }).toArray();
    expect(docs.map((d) => d._id)).to.deep.equal(Array.from({ length: 140 }, (_, i) => i));
    for (const doc of docs) {
      const id = doc._id as unknown as number;
      expect(doc.sku, `sku of ${id}`).to.equal(`sku-${id}`);
      expect(doc.n, `n of ${id}`).to.equal(id < 100 ? id + 1 : 0);
      if (id < 100) expect(doc.touched, `touched of ${id}`).to.equal(true);
    }
    expect(docs[0]!.inTransaction).to.equal(true);
    expect(docs[99]!.last).to.equal(true);
    expect(await restored.collection('ledger').find().toArray()).to.deep.equal([{ _id: 'committed' }]);
    await expectServerError(restored.collection('items').insertOne({ sku: 'sku-5' }), 11000);
  });
});
