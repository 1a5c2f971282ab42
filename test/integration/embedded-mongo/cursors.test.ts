import { expect } from 'chai';
import { Long, type CommandStartedEvent, type Document, type MongoClient } from 'mongodb';
import { expectServerError, useMongo } from '../../support/mongo-target.js';

describe('embedded mongo: cursors', function () {
  const m = useMongo('cursors');
  let monitored: MongoClient;
  const started: CommandStartedEvent[] = [];

  before(async function () {
    monitored = await m.connect(undefined, { monitorCommands: true }, (client) => {
      client.on('commandStarted', (event) => started.push(event));
    });
  });
  beforeEach(function () {
    started.length = 0;
  });
  const commandsNamed = (name: string): CommandStartedEvent[] => started.filter((e) => e.commandName === name);

  /** A cursor id as the server must accept it back (BSON int64). */
  const asLong = (id: unknown): Long => (Long.isLong(id) ? id : Long.fromNumber(id as number));

  it('find with batchSize returns every document over several getMore batches', async function () {
    const name = m.fresh('batches').collectionName;
    await m.db.collection(name).insertMany(Array.from({ length: 11 }, (_, i) => ({ i })));
    const coll = monitored.db(m.dbName).collection(name);
    const docs = await coll.find({}, { sort: { i: 1 }, batchSize: 3 }).toArray();
    expect(docs.map((d) => d.i)).to.deep.equal([...Array(11).keys()]);
    expect(commandsNamed('find')).to.have.length(1);
    expect(commandsNamed('getMore').length, 'getMore count').to.equal(3); // 3 + 3 + 3 + 2
  });

  it('getMore continues a raw find cursor and ends with cursor id 0', async function () {
    const coll = m.fresh('raw_getmore');
    await coll.insertMany(Array.from({ length: 5 }, (_, i) => ({ _id: i })) as Document[]);
    const first = await m.db.command({ find: coll.collectionName, sort: { _id: 1 }, batchSize: 2 });
    expect(first.cursor.firstBatch).to.deep.equal([{ _id: 0 }, { _id: 1 }]);
    expect(first.cursor.ns).to.equal(`${m.dbName}.${coll.collectionName}`);
    const id = asLong(first.cursor.id);
    expect(id.isZero(), 'cursor stays open').to.equal(false);
    const second = await m.db.command({ getMore: id, collection: coll.collectionName, batchSize: 2 });
    expect(second.cursor.nextBatch).to.deep.equal([{ _id: 2 }, { _id: 3 }]);
    expect(asLong(second.cursor.id).equals(id), 'same cursor id').to.equal(true);
    const third = await m.db.command({ getMore: id, collection: coll.collectionName, batchSize: 2 });
    expect(third.cursor.nextBatch).to.deep.equal([{ _id: 4 }]);
    expect(asLong(third.cursor.id).isZero(), 'exhausted').to.equal(true);
  });

  it('limit caps the total across batches', async function () {
    const name = m.fresh('limit_batches').collectionName;
    await m.db.collection(name).insertMany(Array.from({ length: 20 }, (_, i) => ({ i })));
    const docs = await monitored.db(m.dbName).collection(name).find({}, { sort: { i: 1 }, limit: 7, batchSize: 2 }).toArray();
    expect(docs.map((d) => d.i)).to.deep.equal([0, 1, 2, 3, 4, 5, 6]);
  });

  it('killCursors kills an open cursor: reported in cursorsKilled, then getMore fails with 43 CursorNotFound', async function () {
    const coll = m.fresh('kill');
    await coll.insertMany(Array.from({ length: 6 }, (_, i) => ({ i })));
    const first = await m.db.command({ find: coll.collectionName, batchSize: 2 });
    const id = asLong(first.cursor.id);
    const killed = await m.db.command({ killCursors: coll.collectionName, cursors: [id] });
    expect(killed.ok).to.equal(1);
    expect((killed.cursorsKilled as unknown[]).map((c) => asLong(c).toString())).to.deep.equal([id.toString()]);
    const error = await expectServerError(m.db.command({ getMore: id, collection: coll.collectionName }), 43);
    expect(error.codeName).to.equal('CursorNotFound');
  });

  it('killCursors reports an unknown cursor id as cursorsNotFound', async function () {
    const coll = m.fresh('kill_unknown');
    await coll.insertOne({ a: 1 });
    const bogus = Long.fromString('1234567890123');
    const reply = await m.db.command({ killCursors: coll.collectionName, cursors: [bogus] });
    expect(reply.ok).to.equal(1);
    expect((reply.cursorsNotFound as unknown[]).map((c) => asLong(c).toString())).to.deep.equal([bogus.toString()]);
  });

  it('closing a driver cursor early sends killCursors', async function () {
    const name = m.fresh('close_early').collectionName;
    await m.db.collection(name).insertMany(Array.from({ length: 10 }, (_, i) => ({ i })));
    const cursor = monitored.db(m.dbName).collection(name).find({}, { batchSize: 2 });
    expect(await cursor.next()).to.include({ i: 0 });
    await cursor.close();
    expect(commandsNamed('killCursors')).to.have.length(1);
  });

  it('reads back a result larger than 16 MiB (40 documents of ~1 MiB) in byte-limited batches', async function () {
    this.timeout(60_000);
    const name = m.fresh('large').collectionName;
    const payload = 'x'.repeat(1024 * 1024 - 64);
    const writer = m.db.collection(name);
    for (let start = 0; start < 40; start += 10) {
      await writer.insertMany(Array.from({ length: 10 }, (_, k) => ({ _id: start + k, payload })) as Document[]);
    }
    const cursor = monitored.db(m.dbName).collection(name).find({}, { sort: { _id: 1 } });
    let count = 0;
    for await (const doc of cursor) {
      expect(doc._id).to.equal(count);
      expect((doc.payload as string).length).to.equal(payload.length);
      count += 1;
    }
    expect(count).to.equal(40);
    expect(commandsNamed('getMore').length, 'getMore count (no single reply may exceed 16 MiB of documents)').to.be.at.least(2);
  });

  it('a single OP_MSG reply never carries more than 16 MiB of documents (raw find)', async function () {
    this.timeout(60_000);
    const coll = m.fresh('large_raw');
    const payload = 'y'.repeat(1024 * 1024 - 64);
    for (let start = 0; start < 20; start += 10) {
      await coll.insertMany(Array.from({ length: 10 }, (_, k) => ({ _id: start + k, payload })) as Document[]);
    }
    const first = await m.db.command({ find: coll.collectionName, sort: { _id: 1 } });
    const batch = first.cursor.firstBatch as Document[];
    expect(batch.length).to.be.greaterThan(0).and.lessThan(20);
    expect(asLong(first.cursor.id).isZero(), 'cursor left open for the rest').to.equal(false);
    let seen = batch.length;
    let id = asLong(first.cursor.id);
    while (!id.isZero()) {
      const more = await m.db.command({ getMore: id, collection: coll.collectionName });
      seen += (more.cursor.nextBatch as Document[]).length;
      id = asLong(more.cursor.id);
    }
    expect(seen).to.equal(20);
  });

  it('aggregate returns a cursor that honours batchSize', async function () {
    const name = m.fresh('agg_cursor').collectionName;
    await m.db.collection(name).insertMany(Array.from({ length: 9 }, (_, i) => ({ i })));
    const docs = await monitored
      .db(m.dbName)
      .collection(name)
      .aggregate([{ $match: { i: { $gte: 2 } } }, { $sort: { i: -1 } }], { batchSize: 2 })
      .toArray();
    expect(docs.map((d) => d.i)).to.deep.equal([8, 7, 6, 5, 4, 3, 2]);
    expect(commandsNamed('aggregate')).to.have.length(1);
    expect(commandsNamed('aggregate')[0]!.command.cursor).to.deep.equal({ batchSize: 2 });
    expect(commandsNamed('getMore').length, 'getMore count').to.equal(3); // 2 + 2 + 2 + 1
  });
});
