/**
 * The dbpath layout (models/embedded/store/journal.ts): a catalog, one file per collection loaded on its
 * first use, a journal replayed on top, checkpoints that rewrite only what changed. A crash is simulated
 * by copying the dbpath of a running server after its writes were acknowledged (what a kill -9 leaves:
 * acknowledged writes are fsynced) and starting a second server on the copy.
 */
import { appendFileSync, cpSync, existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Binary, BSON, BSONRegExp, Decimal128, Double, Int32, Long, MaxKey, MinKey, MongoClient, ObjectId, Timestamp, UUID, type Document } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongo, type EmbeddedMongoOptions } from '../../../models/embedded/index.js';
import { pollUntil } from '../../support/async.js';
import { skipUnlessEmbedded } from '../../support/mongo-target.js';
import { tempDir } from '../../support/troupe-mongo-process.js';

interface LogLine {
  level: string;
  msg: string;
  obj: Record<string, unknown>;
}

function capturingLogger(lines: LogLine[]) {
  const at = (level: string) => (obj: object, msg?: string) => lines.push({ level, msg: msg ?? '', obj: obj as Record<string, unknown> });
  return { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') };
}

/** Namespaces read from their files, in order. */
const loadedNamespaces = (lines: LogLine[]) => lines.filter((l) => l.msg === 'embedded mongo: collection loaded').map((l) => l.obj.ns as string);

function catalogOf(dbpath: string): { journal: number; collections: Array<{ db: string; name: string; file: string | null; count: number }> } {
  return BSON.deserialize(readFileSync(path.join(dbpath, 'catalog.bson'))) as never;
}

const fileOf = (dbpath: string, name: string) => catalogOf(dbpath).collections.find((c) => c.name === name)?.file;

/** Every document, as EJSON with exact types, in _id order. */
async function exactly(client: MongoClient, db: string, coll: string): Promise<string[]> {
  const docs = await client.db(db).collection(coll).find({}, { sort: { _id: 1 }, promoteValues: false, promoteLongs: false, promoteBuffers: false }).toArray();
  return docs.map((d) => BSON.EJSON.stringify(d, { relaxed: false }));
}

describe('embedded mongo: dbpath storage (catalog, collection files loaded on first use, journal, checkpoints)', function () {
  this.timeout(120_000);
  const servers: EmbeddedMongo[] = [];
  const clients: MongoClient[] = [];
  const dirs: Array<{ remove(): Promise<void> }> = [];
  const DB = 'storage_test';

  before(function () {
    skipUnlessEmbedded(this, 'the embedded server\'s own files are under test');
  });
  afterEach(async function () {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    for (const server of servers.splice(0)) await server.stop().catch(() => undefined);
    for (const dir of dirs.splice(0)) await dir.remove();
  });

  async function newDir(): Promise<string> {
    const dir = await tempDir('troupe-storage');
    dirs.push(dir);
    return dir.dir;
  }

  async function start(dbpath: string, lines: LogLine[] = [], options: EmbeddedMongoOptions = {}): Promise<{ server: EmbeddedMongo; client: MongoClient }> {
    const server = await startEmbeddedMongo({ port: 0, dbpath, logger: capturingLogger(lines), ...options });
    servers.push(server);
    const client = new MongoClient(`${server.uri}&directConnection=true`, { serverSelectionTimeoutMS: 5_000 });
    clients.push(client);
    await client.connect();
    return { server, client };
  }

  async function stop(server: EmbeddedMongo, client: MongoClient) {
    await client.close();
    clients.splice(clients.indexOf(client), 1);
    await server.stop();
    servers.splice(servers.indexOf(server), 1);
  }

  /** What a kill -9 of the server running on `dbpath` would leave, as a new directory. */
  async function crashImage(dbpath: string): Promise<string> {
    const image = await newDir();
    cpSync(dbpath, image, { recursive: true });
    return image;
  }

  it('a restart reads no collection file; counts, index listings and existing indexes do not load one; the first query does', async function () {
    const dbpath = await newDir();
    const first = await start(dbpath);
    let { client } = first;
    const big = client.db(DB).collection('big');
    await big.createIndex({ k: 1 });
    await big.insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: i, k: i % 50, text: `doc ${i}` })) as Document[]);
    await client.db(DB).collection('small').insertMany([{ _id: 'a' }, { _id: 'b' }] as Document[]);
    await stop(first.server, client);

    const lines: LogLine[] = [];
    ({ client } = await start(dbpath, lines));
    const db = client.db(DB);
    expect((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort()).to.deep.equal(['big', 'small']);
    expect(await db.collection('big').estimatedDocumentCount()).to.equal(500);
    expect((await db.collection('big').listIndexes().toArray()).map((i) => i.name)).to.deep.equal(['_id_', 'k_1']);
    expect(await db.collection('big').createIndex({ k: 1 })).to.equal('k_1');
    expect((await db.stats()).objects).to.equal(502);
    expect(loadedNamespaces(lines)).to.deep.equal([]);

    expect(await db.collection('big').find({ k: 7 }).sort({ _id: 1 }).limit(3).toArray()).to.deep.equal([
      { _id: 7, k: 7, text: 'doc 7' },
      { _id: 57, k: 7, text: 'doc 57' },
      { _id: 107, k: 7, text: 'doc 107' },
    ]);
    expect(loadedNamespaces(lines)).to.deep.equal([`${DB}.big`]);
    expect(await db.collection('big').countDocuments({ k: 7 })).to.equal(10);
    // The index came back: an equality on k is answered from it.
    const explain = await db.collection('big').find({ k: 7 }).explain();
    expect(JSON.stringify(explain.queryPlanner.winningPlan)).to.include('IXSCAN');
  });

  it('a checkpoint rewrites only the collections that changed; an unchanged one keeps its file and is never read', async function () {
    const dbpath = await newDir();
    let { server, client } = await start(dbpath);
    await client.db(DB).collection('changing').insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i, n: 0 })) as Document[]);
    await client.db(DB).collection('steady').insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i })) as Document[]);
    await stop(server, client);
    const before = { changing: fileOf(dbpath, 'changing'), steady: fileOf(dbpath, 'steady') };
    expect(before.changing).to.be.a('string');
    expect(before.steady).to.be.a('string');

    const lines: LogLine[] = [];
    ({ server, client } = await start(dbpath, lines));
    await client.db(DB).collection('changing').updateOne({ _id: 3 } as Document, { $set: { n: 1 } });
    await stop(server, client);
    expect(loadedNamespaces(lines)).to.deep.equal([`${DB}.changing`]);
    expect(fileOf(dbpath, 'steady')).to.equal(before.steady);
    expect(fileOf(dbpath, 'changing')).to.not.equal(before.changing);
    expect(existsSync(path.join(dbpath, before.changing!)), 'the replaced file is deleted').to.equal(false);

    ({ client } = await start(dbpath));
    expect(await client.db(DB).collection('changing').findOne({ _id: 3 } as Document)).to.deep.equal({ _id: 3, n: 1 });
    expect(await client.db(DB).collection('steady').countDocuments({ _id: { $gte: 0 } } as Document)).to.equal(20);
  });

  it('every BSON type and number type comes back exactly from a collection file, and queries and updates still see numbers by value', async function () {
    const dbpath = await newDir();
    const first = await start(dbpath);
    let { client } = first;
    const docs: Document[] = [
      { _id: 1, int: new Int32(7), integralDouble: new Double(2), double: 1.5, long: Long.fromString('9007199254740993'), smallLong: Long.fromNumber(42), decimal: Decimal128.fromString('1.10'), negativeZero: new Double(-0), nan: NaN, inf: -Infinity, big: 3e10 },
      { _id: 2, date: new Date('2026-05-17T00:00:00Z'), oid: new ObjectId('65a1b2c3d4e5f60718293a4b'), uuid: new UUID('0f8fad5b-d9cb-469f-a165-70867728950e'), bin: new Binary(Buffer.from('bytes'), 0x80), ts: new Timestamp({ t: 1, i: 2 }), regex: new BSONRegExp('^a.c$', 'i'), min: new MinKey(), max: new MaxKey(), nul: null },
      { _id: 3, nested: { list: [1, new Double(3), [new Long(4), { at: new Date(0) }]], empty: {}, none: [] }, text: 'Lórien Æther 😀 "quoted" \\ \n', 'dotted.key': true },
      { _id: 'plain', mainboard: [{ card: 'Lightning Bolt', count: 4 }], date: new Date(1_700_000_000_000), wins: 4 },
    ];
    await client.db(DB).collection('types').insertMany(docs);
    const expected = await exactly(client, DB, 'types');
    await stop(first.server, client);

    const lines: LogLine[] = [];
    ({ client } = await start(dbpath, lines));
    expect(await exactly(client, DB, 'types')).to.deep.equal(expected);
    expect(loadedNamespaces(lines)).to.deep.equal([`${DB}.types`]);
    const types = client.db(DB).collection('types');
    expect((await types.find({ integralDouble: 2 }).toArray()).map((d) => d._id)).to.deep.equal([1]);
    expect((await types.find({ 'nested.list': 3 }).toArray()).map((d) => d._id)).to.deep.equal([3]);
    await types.updateOne({ _id: 1 } as Document, { $inc: { smallLong: 1, integralDouble: 1 } });
    const raw = await types.findOne({ _id: 1 } as Document, { promoteValues: false, promoteLongs: false });
    expect(raw?.smallLong).to.be.instanceOf(Long);
    expect(String(raw?.smallLong)).to.equal('43');
    expect(raw?.integralDouble).to.be.instanceOf(Double);
    expect((raw?.integralDouble as Double).value).to.equal(3);
  });

  it('writes to a collection that was never loaded survive a crash: the restart replays them onto its file', async function () {
    const dbpath = await newDir();
    const first = await start(dbpath);
    let { client } = first;
    await client.db(DB).collection('lazy').createIndex({ email: 1 }, { unique: true });
    await client.db(DB).collection('lazy').insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: i, email: `u${i}@x.io`, n: 0 })) as Document[]);
    await client.db(DB).collection('untouched').insertOne({ _id: 'x' } as Document);
    await stop(first.server, client);

    ({ client } = await start(dbpath));
    const lazy = client.db(DB).collection('lazy');
    await lazy.updateOne({ _id: 5 } as Document, { $inc: { n: 5 } });
    await lazy.deleteOne({ _id: 6 } as Document);
    await lazy.insertOne({ _id: 200, email: 'new@x.io', n: 1 } as Document);
    const image = await crashImage(dbpath);

    const lines: LogLine[] = [];
    const after = await start(image, lines);
    const restored = after.client.db(DB).collection('lazy');
    expect(await restored.countDocuments({})).to.equal(200);
    expect(await restored.findOne({ _id: 5 } as Document)).to.deep.equal({ _id: 5, email: 'u5@x.io', n: 5 });
    expect(await restored.findOne({ _id: 6 } as Document)).to.equal(null);
    expect(await restored.findOne({ _id: 200 } as Document)).to.deep.equal({ _id: 200, email: 'new@x.io', n: 1 });
    const duplicate = await restored.insertOne({ _id: 201, email: 'u7@x.io' } as Document).catch((e: unknown) => e);
    expect((duplicate as { code?: number }).code, 'the unique index holds after the replay').to.equal(11000);
    // The journal named only `lazy`: the other collection stays on disk until used.
    expect(loadedNamespaces(lines)).to.deep.equal([`${DB}.lazy`]);
  });

  it('a torn last journal record (a crash mid-write) is dropped with a warning; writes after the restart are kept', async function () {
    const dbpath = await newDir();
    const { client } = await start(dbpath);
    const coll = client.db(DB).collection('torn');
    for (let i = 0; i < 10; i++) await coll.insertOne({ _id: i, payload: 'x'.repeat(100) } as Document);
    const image = await crashImage(dbpath);
    const journal = readdirSync(image).find((name) => /^journal-\d+\.bson$/.test(name))!;
    const record = BSON.serialize({ op: 'put', db: DB, coll: 'torn', doc: { _id: 10, payload: 'never acknowledged' } });
    appendFileSync(path.join(image, journal), record.subarray(0, record.length - 7));

    const lines: LogLine[] = [];
    let restarted = await start(image, lines);
    expect((await restarted.client.db(DB).collection('torn').find().toArray()).map((d) => d._id)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const warning = lines.find((l) => l.level === 'warn' && /incomplete last record/.test(l.msg));
    expect(warning?.obj.droppedBytes).to.equal(record.length - 7);
    await restarted.client.db(DB).collection('torn').insertMany([{ _id: 10 }, { _id: 11 }] as Document[]);
    const second = await crashImage(image);
    await stop(restarted.server, restarted.client);

    for (const dir of [image, second]) {
      restarted = await start(dir);
      expect((await restarted.client.db(DB).collection('torn').find().toArray()).map((d) => d._id)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      await stop(restarted.server, restarted.client);
    }
  });

  it('a crash in the middle of a checkpoint (new journal written, catalog not yet renamed) loses no acknowledged write', async function () {
    const dbpath = await newDir();
    const { server, client } = await start(dbpath);
    const coll = client.db(DB).collection('mid');
    await coll.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, gen: 1 })) as Document[]);
    const beforeCheckpoint = await crashImage(dbpath);
    const oldGen = catalogOrNull(beforeCheckpoint)?.journal ?? 1;

    await server.checkpoint();
    await coll.updateMany({}, { $set: { gen: 2 } });
    await coll.insertOne({ _id: 50, gen: 2 } as Document);
    const newGen = catalogOf(dbpath).journal;
    expect(newGen).to.be.greaterThan(oldGen);

    // The state a crash leaves after the switch to the new journal and before the catalog's rename:
    // the old catalog and journal, the new journal, a collection file cut short.
    const image = await crashImage(beforeCheckpoint);
    cpSync(path.join(dbpath, `journal-${newGen}.bson`), path.join(image, `journal-${newGen}.bson`));
    const newFile = catalogOf(dbpath).collections.find((c) => c.name === 'mid')!.file!;
    cpSync(path.join(dbpath, newFile), path.join(image, newFile));
    truncateSync(path.join(image, newFile), Math.floor(statSync(path.join(image, newFile)).size / 2));

    const restarted = await start(image);
    const docs = await restarted.client.db(DB).collection('mid').find({}, { sort: { _id: 1 } }).toArray();
    expect(docs).to.have.length(51);
    expect(docs.every((d) => d.gen === 2)).to.equal(true);
    await stop(restarted.server, restarted.client);
    expect(existsSync(path.join(image, newFile)), 'the cut file is not in the new catalog and is deleted').to.equal(false);
    expect(readdirSync(image).filter((name) => /^journal-/.test(name))).to.have.length(1);
    const again = await start(image);
    expect(await again.client.db(DB).collection('mid').countDocuments({ gen: 2 })).to.equal(51);
  });

  it('a checkpoint running while writes go on keeps every write (they land in the next journal)', async function () {
    const dbpath = await newDir();
    const { server, client } = await start(dbpath);
    const coll = client.db(DB).collection('busy');
    await coll.insertMany(Array.from({ length: 2_000 }, (_, i) => ({ _id: i, n: 0, pad: 'p'.repeat(200) })) as Document[]);
    const writes = (async () => {
      for (let i = 0; i < 100; i++) await coll.updateOne({ _id: i } as Document, { $inc: { n: 1 } });
      await coll.insertMany(Array.from({ length: 100 }, (_, i) => ({ _id: 2_000 + i, n: 1 })) as Document[]);
    })();
    await Promise.all([server.checkpoint(), writes, server.checkpoint()]);
    await coll.deleteOne({ _id: 1_999 } as Document);
    // Writes queued for the journal but not yet written when a checkpoint switches journals.
    const batch = (from: number) => Array.from({ length: 10 }, (_, i) => ({ _id: from + i, n: 2 }));
    const insert = (from: number) => server.insertMany(DB, 'busy', batch(from));
    await Promise.all([insert(3_000), insert(3_010), server.checkpoint(), insert(3_020), insert(3_030), server.checkpoint(), insert(3_040)]);
    const image = await crashImage(dbpath);

    const restarted = await start(image);
    const busy = restarted.client.db(DB).collection('busy');
    expect(await busy.countDocuments({})).to.equal(2_149);
    expect(await busy.countDocuments({ n: 1 })).to.equal(200);
    expect(await busy.countDocuments({ n: 2 })).to.equal(50);
  });

  it('a checkpoint starts by itself once the journal passes checkpointJournalBytes', async function () {
    const dbpath = await newDir();
    // Past 16 times the threshold a checkpoint starts at once, without waiting for writes to pause.
    const { client } = await start(dbpath, [], { checkpointJournalBytes: 1_024 });
    const coll = client.db(DB).collection('auto');
    await coll.insertMany(Array.from({ length: 300 }, (_, i) => ({ _id: i, pad: 'q'.repeat(100) })) as Document[]);
    const catalog = await pollUntil(() => (existsSync(path.join(dbpath, 'catalog.bson')) ? catalogOf(dbpath) : undefined), { timeoutMs: 30_000, what: 'a checkpoint' });
    expect(catalog.collections.find((c) => c.name === 'auto')?.count).to.be.greaterThan(0);
    await coll.insertOne({ _id: 'after' } as Document);
    const restarted = await start(await crashImage(dbpath));
    expect(await restarted.client.db(DB).collection('auto').countDocuments({})).to.equal(301);
  });

  it('a dbpath in the older layout (snapshot.bson + journal.bson) is read and converted', async function () {
    const dbpath = await newDir();
    const records = (list: Document[]) => Buffer.concat(list.map((r) => BSON.serialize(r)));
    writeFileSync(
      path.join(dbpath, 'snapshot.bson'),
      records([
        { op: 'create', db: DB, coll: 'old', options: {} },
        { op: 'createIndex', db: DB, coll: 'old', spec: { v: 2, key: { sku: 1 }, name: 'sku_1', unique: true } },
        ...Array.from({ length: 5 }, (_, i) => ({ op: 'put', db: DB, coll: 'old', doc: { _id: i, sku: `s${i}`, price: new Double(10) } })),
      ]),
    );
    const torn = BSON.serialize({ op: 'put', db: DB, coll: 'old', doc: { _id: 99, sku: 'torn' } });
    writeFileSync(
      path.join(dbpath, 'journal.bson'),
      Buffer.concat([records([{ op: 'delete', db: DB, coll: 'old', id: 0 }, { op: 'put', db: DB, coll: 'old', doc: { _id: 5, sku: 's5', price: 1.5 } }]), torn.subarray(0, 10)]),
    );

    const first = await start(dbpath);
    let { client } = first;
    const expected = await exactly(client, DB, 'old');
    expect(expected).to.have.length(5);
    expect(expected[0]).to.equal('{"_id":{"$numberInt":"1"},"sku":"s1","price":{"$numberDouble":"10.0"}}');
    await stop(first.server, client);
    expect(existsSync(path.join(dbpath, 'snapshot.bson'))).to.equal(false);
    expect(existsSync(path.join(dbpath, 'journal.bson'))).to.equal(false);
    expect(catalogOf(dbpath).collections.map((c) => c.name)).to.deep.equal(['old']);

    ({ client } = await start(dbpath));
    expect(await exactly(client, DB, 'old')).to.deep.equal(expected);
    const duplicate = await client.db(DB).collection('old').insertOne({ sku: 's1' }).catch((e: unknown) => e);
    expect((duplicate as { code?: number }).code).to.equal(11000);
  });

  it('insertMany from this process stores exactly what the same documents sent over the wire store', async function () {
    const dbpath = await newDir();
    const { server, client } = await start(dbpath);
    const sample = (): Document[] => [
      { _id: 1, int: 5, double: 1.5, big: 2 ** 40, negativeZero: -0, nan: NaN, date: new Date(86_400_000), nested: { list: [1, 'two', { three: 3 }], nothing: null } },
      { _id: 2, long: Long.fromNumber(7), integralDouble: new Double(8), oid: new ObjectId('65a1b2c3d4e5f60718293a4b'), skipped: undefined, text: 'é 😀' },
    ];
    await client.db(DB).collection('wire').insertMany(sample());
    const reply = await server.insertMany(DB, 'local', sample());
    expect(reply).to.deep.equal({ n: 2 });
    expect(await exactly(client, DB, 'local')).to.deep.equal(await exactly(client, DB, 'wire'));

    // The caller keeps its objects: changing them afterwards changes nothing stored.
    const mine: Document[] = [{ _id: 3, tags: ['a'] }];
    await server.insertMany(DB, 'local', mine);
    (mine[0].tags as string[]).push('b');
    expect(await client.db(DB).collection('local').findOne({ _id: 3 } as Document)).to.deep.equal({ _id: 3, tags: ['a'] });

    const duplicate = await server.insertMany(DB, 'local', [{ _id: 3 }, { _id: 4 }]);
    expect(duplicate.n).to.equal(1);
    expect(duplicate.writeErrors?.[0]).to.include({ index: 0, code: 11000 });

    // Durable when it resolves.
    const restarted = await start(await crashImage(dbpath));
    expect((await restarted.client.db(DB).collection('local').find({}, { sort: { _id: 1 } }).toArray()).map((d) => d._id)).to.deep.equal([1, 2, 3, 4]);
  });
});

function catalogOrNull(dbpath: string) {
  return existsSync(path.join(dbpath, 'catalog.bson')) ? (BSON.deserialize(readFileSync(path.join(dbpath, 'catalog.bson'))) as { journal: number }) : null;
}
