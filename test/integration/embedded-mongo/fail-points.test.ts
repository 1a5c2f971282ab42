/**
 * MongoDB's test-only fault injection: `configureFailPoint` with the `failCommand` fail point and
 * `waitForFailPoint`, as mongod has them with `--setParameter enableTestCommands=1` (and as drivers'
 * spec tests use them). The embedded server is started with `enableTestCommands: true`; with
 * MONGODB_URI set, the suite runs against that server if it accepts configureFailPoint, and skips
 * otherwise.
 */
import { expect } from 'chai';
import {
  MongoClient,
  MongoNetworkError,
  MongoServerError,
  type CommandFailedEvent,
  type Db,
  type Document,
  type MongoClientOptions,
} from 'mongodb';
import { startEmbeddedMongo } from '../../../models/embedded/index.js';
import { pollUntil } from '../../support/async.js';
import {
  expectFailure,
  expectServerError,
  externalMongoUri,
  firstSeed,
  skipUnlessEmbedded,
  uniqueDbName,
  uriHasCredentials,
} from '../../support/mongo-target.js';
import { WireConnection, encodeOpMsg, newRequestId } from '../../support/mongo-wire.js';

/** Test documents carry their own `_id`. */
interface Keyed {
  _id: string | number;
}

const FAILPOINT_MESSAGE = "Failing command via 'failCommand' failpoint";

describe('embedded mongo: fail points (configureFailPoint / failCommand / waitForFailPoint)', function () {
  const dbName = uniqueDbName('failpoints');
  const clients: MongoClient[] = [];
  let uri: string;
  let stopServer: () => Promise<void> = async () => {};
  let main: MongoClient;
  let admin: Db;
  let db: Db;
  let collections = 0;

  async function connect(options: MongoClientOptions = {}, beforeConnect?: (client: MongoClient) => void): Promise<MongoClient> {
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 10_000, ...options });
    clients.push(client);
    beforeConnect?.(client);
    await client.connect();
    return client;
  }

  /** configureFailPoint failCommand; returns `count` (times entered before this change). */
  async function failCommand(mode: Document | string, data: Document = {}): Promise<number> {
    const reply = await admin.command({ configureFailPoint: 'failCommand', mode, data });
    expect(reply.ok).to.equal(1);
    expect(reply.count, 'count').to.be.a('number');
    return reply.count as number;
  }

  const waitForFailPoint = (timesEntered: number, maxTimeMS = 10_000) =>
    admin.command({ waitForFailPoint: 'failCommand', timesEntered, maxTimeMS });

  const fresh = (base: string) => `${base}_${(collections += 1)}`;

  before(async function () {
    this.timeout(30_000);
    const external = externalMongoUri();
    if (external) {
      uri = external;
    } else {
      const server = await startEmbeddedMongo({ port: 0, host: '127.0.0.1', enableTestCommands: true });
      uri = server.uri;
      stopServer = () => server.stop();
    }
    main = await connect();
    admin = main.db('admin');
    db = main.db(dbName);
    if (external) {
      try {
        await admin.command({ configureFailPoint: 'failCommand', mode: 'off' });
      } catch {
        // A real server started without enableTestCommands: nothing here can run.
        for (const test of this.test?.parent?.tests ?? []) test.title += ' [skipped: MONGODB_URI server has no test commands]';
        this.skip();
      }
    }
  });

  afterEach(async function () {
    await admin?.command({ configureFailPoint: 'failCommand', mode: 'off' }).catch(() => undefined);
  });

  after(async function () {
    this.timeout(30_000);
    await db?.dropDatabase().catch(() => undefined);
    for (const client of clients.splice(0)) await client.close(true).catch(() => undefined);
    await stopServer();
  });

  describe('without test commands', function () {
    it('configureFailPoint and waitForFailPoint fail with 59 CommandNotFound, as on mongod without enableTestCommands', async function () {
      skipUnlessEmbedded(this, 'starts its own server without test commands');
      const server = await startEmbeddedMongo({ port: 0, host: '127.0.0.1' });
      const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 10_000 });
      try {
        const plainAdmin = client.db('admin');
        const configure = await expectServerError(
          plainAdmin.command({ configureFailPoint: 'failCommand', mode: 'alwaysOn', data: { failCommands: ['find'], errorCode: 2 } }),
          59,
          'configureFailPoint',
        );
        expect(configure.codeName).to.equal('CommandNotFound');
        const wait = await expectServerError(plainAdmin.command({ waitForFailPoint: 'failCommand', timesEntered: 1, maxTimeMS: 10 }), 59, 'waitForFailPoint');
        expect(wait.codeName).to.equal('CommandNotFound');
        // Nothing was configured: find works.
        expect(await client.db(dbName).collection<Keyed>('untouched').find({}).toArray()).to.deep.equal([]);
      } finally {
        await client.close();
        await server.stop();
      }
    });
  });

  describe('configureFailPoint', function () {
    it('runs only against the admin database (13 Unauthorized elsewhere)', async function () {
      await expectServerError(db.command({ configureFailPoint: 'failCommand', mode: 'off' }), 13, 'configureFailPoint on a user database');
      await expectServerError(db.command({ waitForFailPoint: 'failCommand', timesEntered: 0, maxTimeMS: 10 }), 13, 'waitForFailPoint on a user database');
    });

    it('rejects a missing or unknown mode and an unknown fail point', async function () {
      await expectServerError(admin.command({ configureFailPoint: 'failCommand' }), 20, 'no mode');
      await expectServerError(admin.command({ configureFailPoint: 'failCommand', mode: 'sometimes' }), 2, 'unknown mode');
      await expectServerError(admin.command({ configureFailPoint: 'failCommand', mode: { times: -1 } }), 2, 'negative times');
      await expectServerError(admin.command({ configureFailPoint: 'noSuchFailPointAnywhere', mode: 'off' }), 266, 'unknown fail point');
    });

    it('returns as count the times the fail point was entered before the change, never reset', async function () {
      const coll = db.collection<Keyed>(fresh('counted'));
      const start = await failCommand('alwaysOn', { failCommands: ['distinct'], errorCode: 2 });
      await expectServerError(coll.distinct('a'), 2);
      await expectServerError(coll.distinct('a'), 2);
      const afterTwo = await failCommand('off');
      expect(afterTwo).to.equal(start + 2);
      // Turning it off entered nothing; a new configuration starts from the same total.
      expect(await failCommand('alwaysOn', { failCommands: ['distinct'], errorCode: 2 })).to.equal(start + 2);
    });
  });

  describe('failCommand with errorCode', function () {
    it('fails only the named command, and with { times: n } only n times', async function () {
      const coll = db.collection<Keyed>(fresh('times'));
      await coll.insertOne({ _id: 1 });
      await failCommand({ times: 2 }, { failCommands: ['find'], errorCode: 2 });

      const first = await expectServerError(coll.find({}).toArray(), 2, 'first find');
      expect(first.message).to.include(FAILPOINT_MESSAGE);
      // Other commands are untouched while the fail point is on.
      await coll.insertOne({ _id: 2 });
      expect(await coll.countDocuments({})).to.equal(2);
      expect(await coll.distinct('_id')).to.deep.equal([1, 2]);
      await expectServerError(coll.find({}).toArray(), 2, 'second find');

      expect(await coll.find({}).sort({ _id: 1 }).toArray()).to.deep.equal([{ _id: 1 }, { _id: 2 }]);
      expect(await coll.find({}).toArray()).to.have.length(2);
    });

    it('{ skip: n } lets n matching commands through, then fails every one', async function () {
      const coll = db.collection<Keyed>(fresh('skip'));
      await failCommand({ skip: 1 }, { failCommands: ['find'], errorCode: 2 });
      expect(await coll.find({}).toArray()).to.deep.equal([]);
      await expectServerError(coll.find({}).toArray(), 2, 'second find');
      await expectServerError(coll.find({}).toArray(), 2, 'third find');
    });

    it('mode off stops failing', async function () {
      const coll = db.collection<Keyed>(fresh('off'));
      await failCommand('alwaysOn', { failCommands: ['find'], errorCode: 2 });
      await expectServerError(coll.find({}).toArray(), 2);
      await failCommand('off');
      expect(await coll.find({}).toArray()).to.deep.equal([]);
    });

    it('with appName fails only the connections whose handshake named that application', async function () {
      const target = await connect({ appName: 'troupe-fp-target' });
      const other = await connect({ appName: 'troupe-fp-other' });
      const name = fresh('app');
      await failCommand('alwaysOn', { failCommands: ['find'], errorCode: 2, appName: 'troupe-fp-target' });
      await expectServerError(target.db(dbName).collection<Keyed>(name).find({}).toArray(), 2, 'find from the named application');
      expect(await other.db(dbName).collection<Keyed>(name).find({}).toArray()).to.deep.equal([]);
      expect(await db.collection<Keyed>(name).find({}).toArray()).to.deep.equal([]);
    });

    it('labels a retryable write RetryableWriteError, so the driver retries it once', async function () {
      const failures: CommandFailedEvent[] = [];
      const client = await connect({ appName: 'troupe-fp-retry', monitorCommands: true }, (c) => {
        c.on('commandFailed', (event) => failures.push(event));
      });
      const coll = client.db(dbName).collection<Keyed>(fresh('retried'));
      const start = await failCommand({ times: 1 }, { failCommands: ['insert'], errorCode: 6, appName: 'troupe-fp-retry' });
      await coll.insertOne({ _id: 'once' });
      expect(await coll.find({}).toArray()).to.deep.equal([{ _id: 'once' }]);
      const insertFailures = failures.filter((f) => f.commandName === 'insert');
      expect(insertFailures).to.have.length(1);
      expect((insertFailures[0]!.failure as MongoServerError).errorLabels).to.include('RetryableWriteError');
      // Entered exactly once: already reached, so this returns at once.
      await waitForFailPoint(start + 1, 1);
    });

    it('labels an error inside a transaction TransientTransactionError (withTransaction retries), unless errorLabels replace it', async function () {
      const coll = db.collection<Keyed>(fresh('txn'));
      await coll.insertOne({ _id: 'seed' });
      await failCommand({ times: 1 }, { failCommands: ['insert'], errorCode: 112 });
      let attempts = 0;
      const session = main.startSession();
      try {
        await session.withTransaction(async () => {
          attempts += 1;
          await coll.insertOne({ _id: 'in-txn' }, { session });
        });
      } finally {
        await session.endSession();
      }
      expect(attempts).to.equal(2);
      expect(await coll.countDocuments({ _id: 'in-txn' })).to.equal(1);

      await failCommand({ times: 1 }, { failCommands: ['insert'], errorCode: 112, errorLabels: [] });
      const second = main.startSession();
      try {
        const error = await expectServerError(
          second.withTransaction(async () => {
            await coll.insertOne({ _id: 'never' }, { session: second });
          }),
          112,
        );
        expect(error.errorLabels).to.deep.equal([]);
      } finally {
        await second.endSession();
      }
      expect(await coll.countDocuments({ _id: 'never' })).to.equal(0);
    });

    it('writeConcernError is added to the reply of a write that is applied', async function () {
      const coll = db.collection<Keyed>(fresh('wce'));
      await failCommand({ times: 1 }, { failCommands: ['insert'], writeConcernError: { code: 100, errmsg: 'injected write concern error' } });
      const error = await expectFailure(coll.insertOne({ _id: 'applied' }), 'insert with an injected writeConcernError');
      expect((error as MongoServerError).code, error.message).to.equal(100);
      expect(await coll.find({}).toArray()).to.deep.equal([{ _id: 'applied' }]);
    });
  });

  describe('failCommand with closeConnection', function () {
    it('closes the connection instead of answering; the server goes on serving', async function () {
      const client = await connect({ appName: 'troupe-fp-closed', retryReads: false });
      const coll = client.db(dbName).collection<Keyed>(fresh('closed'));
      const start = await failCommand({ times: 1 }, { failCommands: ['find'], closeConnection: true, appName: 'troupe-fp-closed' });
      const error = await expectFailure(coll.find({}).toArray(), 'find on a connection the server closes');
      expect(error).to.be.instanceOf(MongoNetworkError);
      await waitForFailPoint(start + 1, 1);
      expect(await coll.find({}).toArray()).to.deep.equal([]);
    });
  });

  describe('failCommand with blockConnection', function () {
    it('delays the matching command while other connections are served at once, then runs it', async function () {
      const blocked = await connect({ appName: 'troupe-fp-blocked' });
      const name = fresh('blocked');
      const start = await failCommand({ times: 1 }, { failCommands: ['insert'], blockConnection: true, blockTimeMS: 1500, appName: 'troupe-fp-blocked' });

      const events: string[] = [];
      const insert = blocked
        .db(dbName)
        .collection<Keyed>(name)
        .insertOne({ _id: 'slow' })
        .then(() => events.push('blocked insert done'));
      // The insert is inside the server, held by the fail point.
      await waitForFailPoint(start + 1);
      events.push('fail point entered');

      expect(await db.collection<Keyed>(name).find({}).toArray(), 'the blocked insert has not run yet').to.deep.equal([]);
      await db.collection<Keyed>(`${name}_other`).insertOne({ _id: 'quick' });
      events.push('other connection done');

      await insert;
      expect(events).to.deep.equal(['fail point entered', 'other connection done', 'blocked insert done']);
      expect(await db.collection<Keyed>(name).find({}).toArray()).to.deep.equal([{ _id: 'slow' }]);
      // { times: 1 }: only one activation, so the next insert is not blocked.
      const after = await failCommand('off');
      await blocked.db(dbName).collection<Keyed>(name).insertOne({ _id: 'next' });
      expect(after).to.equal(start + 1);
    });

    it('a connection that closes while its command is blocked does not disturb the server; the write still lands, as on mongod', async function () {
      if (uriHasCredentials(uri)) {
        this.test!.title += ' [MONGODB_URI has credentials: raw writes would need authentication]';
        this.skip();
      }
      const name = fresh('doomed');
      const start = await failCommand({ times: 1 }, { failCommands: ['insert'], blockConnection: true, blockTimeMS: 300, appName: 'troupe-fp-doomed' });
      const seed = firstSeed(uri);
      const socket = await WireConnection.connect(seed.host, seed.port);
      try {
        const hello = await socket.command({ hello: 1, client: { application: { name: 'troupe-fp-doomed' }, driver: { name: 'raw', version: '0' }, os: { type: 'test' } }, $db: 'admin' });
        expect(hello.ok).to.equal(1);
        socket.send(encodeOpMsg(newRequestId(), { insert: name, documents: [{ _id: 'orphan' }], $db: dbName }));
        await waitForFailPoint(start + 1);
      } finally {
        await socket.close();
      }
      expect((await admin.command({ ping: 1 })).ok).to.equal(1);
      const landed = await pollUntil(async () => (await db.collection<Keyed>(name).countDocuments({ _id: 'orphan' })) === 1, {
        timeoutMs: 10_000,
        what: 'the insert of the closed connection to be applied after its block',
      });
      expect(landed).to.equal(true);
    });
  });

  describe('waitForFailPoint', function () {
    it('returns once the fail point has been entered the given number of times', async function () {
      const coll = db.collection<Keyed>(fresh('waited'));
      const start = await failCommand({ times: 2 }, { failCommands: ['distinct'], errorCode: 2 });
      const waiting = waitForFailPoint(start + 2);
      let settled = false;
      void waiting.then(
        () => (settled = true),
        () => (settled = true),
      );
      await expectServerError(coll.distinct('a'), 2);
      expect(settled, 'waitForFailPoint answered after one of two entries').to.equal(false);
      await expectServerError(coll.distinct('a'), 2);
      expect((await waiting).ok).to.equal(1);
      // Already reached: answers at once.
      expect((await waitForFailPoint(start + 2, 1)).ok).to.equal(1);
    });

    it('fails with 50 MaxTimeMSExpired when the fail point is not entered in time, and requires maxTimeMS', async function () {
      const start = await failCommand('alwaysOn', { failCommands: ['distinct'], errorCode: 2 });
      const error = await expectServerError(waitForFailPoint(start + 1, 50), 50, 'waitForFailPoint');
      expect(error.codeName).to.equal('MaxTimeMSExpired');
      await expectServerError(admin.command({ waitForFailPoint: 'failCommand', timesEntered: start + 1 }), 9, 'waitForFailPoint without maxTimeMS');
    });
  });
});
