import { expect } from 'chai';
import { MongoClient, MongoServerError, UUID, type ClientSession, type Document } from 'mongodb';
import { deferred, pollUntil, withDeadline } from '../../support/async.js';
import { expectServerError, mongoTarget, skipUnlessEmbedded, uniqueDbName, useMongo, type MongoTarget } from '../../support/mongo-target.js';

/** A server that blocks the second writer instead of answering WriteConflict would hang: bound it. */
const CONFLICT_DEADLINE_MS = 5_000;

describe('embedded mongo: sessions and transactions (driver)', function () {
  const m = useMongo('transactions');
  const sessions: ClientSession[] = [];
  function session(client: MongoClient = m.client): ClientSession {
    const s = client.startSession();
    sessions.push(s);
    return s;
  }
  afterEach(async function () {
    for (const s of sessions.splice(0)) {
      if (s.inTransaction()) await s.abortTransaction().catch(() => undefined);
      await s.endSession().catch(() => undefined);
    }
  });

  it('withTransaction commits; a read outside the transaction does not see its writes until commit', async function () {
    const coll = m.fresh('tx_isolation');
    await coll.insertOne({ _id: 'existing', v: 1 } as Document);
    const s = session();
    const seenOutside: Document[] = [];
    await s.withTransaction(async () => {
      await coll.insertOne({ _id: 'new', v: 1 } as Document, { session: s });
      await coll.updateOne({ _id: 'existing' } as Document, { $set: { v: 2 } }, { session: s });
      // Read your own writes inside the transaction...
      expect(await coll.countDocuments({}, { session: s })).to.equal(2);
      expect((await coll.findOne({ _id: 'existing' } as Document, { session: s }))!.v).to.equal(2);
      // ...but not outside it.
      seenOutside.push(...(await coll.find({}).toArray()));
    });
    expect(seenOutside).to.deep.equal([{ _id: 'existing', v: 1 }]);
    expect(await coll.find({}, { sort: { _id: 1 } }).toArray()).to.deep.equal([
      { _id: 'existing', v: 2 },
      { _id: 'new', v: 1 },
    ]);
  });

  it('explicit startTransaction / commitTransaction', async function () {
    const coll = m.fresh('tx_explicit_commit');
    const s = session();
    s.startTransaction();
    await coll.insertMany([{ n: 1 }, { n: 2 }], { session: s });
    expect(await coll.countDocuments()).to.equal(0);
    await s.commitTransaction();
    expect(await coll.countDocuments()).to.equal(2);
  });

  it('abortTransaction rolls back inserts, updates and deletes', async function () {
    const coll = m.fresh('tx_abort');
    await coll.insertMany([{ _id: 1, v: 'keep' }, { _id: 2, v: 'keep' }] as Document[]);
    const s = session();
    s.startTransaction();
    await coll.insertOne({ _id: 3, v: 'new' } as Document, { session: s });
    await coll.updateOne({ _id: 1 } as Document, { $set: { v: 'changed' } }, { session: s });
    await coll.deleteOne({ _id: 2 } as Document, { session: s });
    expect(await coll.countDocuments({}, { session: s })).to.equal(2);
    await s.abortTransaction();
    expect(await coll.find({}, { sort: { _id: 1 } }).toArray()).to.deep.equal([
      { _id: 1, v: 'keep' },
      { _id: 2, v: 'keep' },
    ]);
  });

  it('withTransaction rolls back when the callback throws, and rethrows the error', async function () {
    const coll = m.fresh('tx_throw');
    const s = session();
    const boom = new Error('callback failed');
    let caught: unknown;
    try {
      await s.withTransaction(async () => {
        await coll.insertOne({ doomed: true }, { session: s });
        throw boom;
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).to.equal(boom);
    expect(await coll.countDocuments()).to.equal(0);
  });

  it('a transaction spanning two collections commits atomically', async function () {
    const accounts = m.fresh('tx_accounts');
    const ledger = m.fresh('tx_ledger');
    await accounts.insertMany([{ _id: 'a', balance: 100 }, { _id: 'b', balance: 0 }] as Document[]);
    await accounts.createIndex({ balance: 1 });
    const s = session();
    await s.withTransaction(async () => {
      await accounts.updateOne({ _id: 'a' } as Document, { $inc: { balance: -30 } }, { session: s });
      await accounts.updateOne({ _id: 'b' } as Document, { $inc: { balance: 30 } }, { session: s });
      await ledger.insertOne({ from: 'a', to: 'b', amount: 30 }, { session: s });
    });
    expect(await accounts.find({}, { sort: { _id: 1 } }).toArray()).to.deep.equal([
      { _id: 'a', balance: 70 },
      { _id: 'b', balance: 30 },
    ]);
    expect(await ledger.countDocuments()).to.equal(1);
  });

  it('a unique-index violation inside a transaction leaves nothing behind after abort', async function () {
    const coll = m.fresh('tx_unique');
    await coll.createIndex({ k: 1 }, { unique: true });
    await coll.insertOne({ k: 'taken' });
    const s = session();
    s.startTransaction();
    await coll.insertOne({ k: 'fresh' }, { session: s });
    await expectServerError(coll.insertOne({ k: 'taken' }, { session: s }), 11000);
    await s.abortTransaction();
    expect((await coll.find({}, { projection: { _id: 0 } }).toArray())).to.deep.equal([{ k: 'taken' }]);
  });

  it('two concurrent transactions writing one document: the second gets WriteConflict 112 (TransientTransactionError)', async function () {
    const coll = m.fresh('tx_conflict');
    await coll.insertOne({ _id: 'doc', n: 0 } as Document);
    const first = session();
    const second = session();
    first.startTransaction();
    second.startTransaction();
    await coll.updateOne({ _id: 'doc' } as Document, { $inc: { n: 1 } }, { session: first });
    const conflict = await expectServerError(
      withDeadline(
        coll.updateOne({ _id: 'doc' } as Document, { $inc: { n: 1 } }, { session: second }),
        CONFLICT_DEADLINE_MS,
        'the second transaction write (a server that blocks it instead of answering WriteConflict)',
      ),
      112,
    );
    expect(conflict.codeName).to.equal('WriteConflict');
    expect(conflict.hasErrorLabel('TransientTransactionError'), 'TransientTransactionError label').to.equal(true);
    await first.commitTransaction();
    // The losing transaction was aborted by the server: committing it reports NoSuchTransaction.
    const commitError = await expectServerError(second.commitTransaction(), 251);
    expect(commitError.hasErrorLabel('TransientTransactionError')).to.equal(true);
    expect((await coll.findOne({ _id: 'doc' } as Document))!.n).to.equal(1);
  });

  it('two transactions inserting the same _id: the second gets WriteConflict 112, not a duplicate key error', async function () {
    const coll = m.fresh('tx_insert_conflict');
    await coll.insertOne({ _id: 'seed' } as Document);
    const first = session();
    const second = session();
    first.startTransaction();
    second.startTransaction();
    await coll.insertOne({ _id: 1, by: 'first' } as Document, { session: first });
    const conflict = await expectServerError(
      withDeadline(coll.insertOne({ _id: 1, by: 'second' } as Document, { session: second }), CONFLICT_DEADLINE_MS, 'the second insert'),
      112,
    );
    expect(conflict.hasErrorLabel('TransientTransactionError')).to.equal(true);
    await first.commitTransaction();
    await second.abortTransaction();
    expect(await coll.findOne({ _id: 1 } as Document)).to.deep.equal({ _id: 1, by: 'first' });
  });

  it('a write outside any transaction to a document a transaction has written waits for the commit, then applies (no lost update)', async function () {
    const coll = m.fresh('tx_outside_waits');
    await coll.insertOne({ _id: 'doc', n: 0 } as Document);
    const s = session();
    s.startTransaction();
    await coll.updateOne({ _id: 'doc' } as Document, { $inc: { n: 1 } }, { session: s });
    const outside = coll.updateOne({ _id: 'doc' } as Document, { $inc: { n: 10 } });
    // Whatever the outcome of the outside write, observe it only after the commit.
    const settled = outside.then(
      (result) => ({ result, error: undefined }),
      (error: unknown) => ({ result: undefined, error }),
    );
    await s.commitTransaction();
    const { result, error } = await withDeadline(settled, CONFLICT_DEADLINE_MS, 'the outside write after the commit');
    expect(error, `outside write failed: ${String(error)}`).to.equal(undefined);
    expect(result!.modifiedCount).to.equal(1);
    expect((await coll.findOne({ _id: 'doc' } as Document))!.n).to.equal(11);
  });

  it('concurrent withTransaction calls that conflict are retried until both apply ($inc twice gives +2)', async function () {
    let conflicts = 0;
    const client = await m.connect(undefined, { monitorCommands: true }, (c) => {
      c.on('commandFailed', (event) => {
        if ((event.failure as { code?: unknown }).code === 112) conflicts += 1;
      });
    });
    const coll = client.db(m.dbName).collection(m.fresh('tx_retry').collectionName);
    await coll.insertOne({ _id: 'counter', n: 0 } as Document);
    const bothAttempted = deferred();
    let firstAttempts = 0;
    const run = async (s: ClientSession): Promise<void> => {
      let firstAttempt = true;
      await s.withTransaction(async () => {
        const mine = firstAttempt;
        firstAttempt = false;
        try {
          await withDeadline(
            coll.updateOne({ _id: 'counter' } as Document, { $inc: { n: 1 } }, { session: s }),
            CONFLICT_DEADLINE_MS,
            'a conflicting transactional write',
          );
        } finally {
          if (mine) {
            firstAttempts += 1;
            if (firstAttempts === 2) bothAttempted.resolve();
          }
        }
        // Keep a first attempt open until the other transaction has tried its write, so they overlap.
        if (mine) await withDeadline(bothAttempted.promise, CONFLICT_DEADLINE_MS, 'the other transaction to attempt its write');
      });
    };
    await Promise.all([run(session(client)), run(session(client))]);
    expect(conflicts, 'WriteConflict (112) answers seen and retried').to.be.at.least(1);
    expect((await coll.findOne({ _id: 'counter' } as Document))!.n).to.equal(2);
  });

  it('a write outside a transaction to a document the transaction read makes the transaction\'s write fail with WriteConflict 112', async function () {
    const coll = m.fresh('tx_outside_write');
    await coll.insertOne({ _id: 'doc', v: 'original' } as Document);
    const s = session();
    s.startTransaction();
    expect((await coll.findOne({ _id: 'doc' } as Document, { session: s }))!.v).to.equal('original');
    await withDeadline(
      coll.updateOne({ _id: 'doc' } as Document, { $set: { v: 'outside' } }),
      CONFLICT_DEADLINE_MS,
      'the non-transactional write',
    );
    const conflict = await expectServerError(
      withDeadline(
        coll.updateOne({ _id: 'doc' } as Document, { $set: { v: 'inside' } }, { session: s }),
        CONFLICT_DEADLINE_MS,
        'the transactional write after an outside write',
      ),
      112,
    );
    expect(conflict.hasErrorLabel('TransientTransactionError')).to.equal(true);
    await s.abortTransaction();
    expect((await coll.findOne({ _id: 'doc' } as Document))!.v).to.equal('outside');
  });

  it('a transaction reads from its snapshot: a concurrent committed insert stays invisible to it', async function () {
    const coll = m.fresh('tx_snapshot');
    await coll.insertOne({ n: 1 });
    const s = session();
    s.startTransaction();
    expect(await coll.countDocuments({}, { session: s })).to.equal(1);
    await coll.insertOne({ n: 2 });
    expect(await coll.countDocuments({}, { session: s })).to.equal(1);
    await s.commitTransaction();
    expect(await coll.countDocuments()).to.equal(2);
  });

  it('endSessions is accepted for used and unused session ids', async function () {
    // A separate client: its pooled server sessions are not reused by other tests after being ended.
    const client = await m.connect();
    const s = client.startSession();
    await client.db(m.dbName).collection('tx_end_sessions').insertOne({ a: 1 }, { session: s });
    const id = s.id;
    expect(id, 'session id').to.exist;
    const reply = await client.db('admin').command({ endSessions: [id, { id: new UUID() }] });
    expect(reply.ok).to.equal(1);
    await s.endSession();
  });

  it('a session carries causally consistent reads of its own writes', async function () {
    const coll = m.fresh('tx_causal');
    const s = m.client.startSession({ causalConsistency: true });
    sessions.push(s);
    await coll.insertOne({ _id: 'c', v: 1 } as Document, { session: s });
    expect(await coll.findOne({ _id: 'c' } as Document, { session: s })).to.deep.equal({ _id: 'c', v: 1 });
  });
});

describe('embedded mongo: transaction lifetime limit', function () {
  let target: MongoTarget | undefined;
  let client: MongoClient | undefined;
  const dbName = uniqueDbName('tx_lifetime');

  before(async function () {
    skipUnlessEmbedded(this, 'needs a server started with transactionLifetimeLimitSeconds: 1');
    target = await mongoTarget({ transactionLifetimeLimitSeconds: 1 });
    client = new MongoClient(target.uri);
    await client.connect();
  });
  after(async function () {
    await client?.db(dbName).dropDatabase().catch(() => undefined);
    await client?.close();
    await target?.stop();
  });

  it('a transaction older than transactionLifetimeLimitSeconds is aborted: commit fails with 251 NoSuchTransaction', async function () {
    const coll = client!.db(dbName).collection('expiring');
    await coll.insertOne({ seed: true });
    const s = client!.startSession();
    try {
      s.startTransaction();
      await coll.insertOne({ inTransaction: true }, { session: s });
      const startedAt = Date.now();
      // Poll inside the transaction until the server reports it aborted, or until well past the limit.
      let abortedError: unknown;
      await pollUntil(
        async () => {
          try {
            await coll.findOne({}, { session: s });
          } catch (error) {
            abortedError = error;
            return true;
          }
          return Date.now() - startedAt > 3_000;
        },
        { timeoutMs: 10_000, intervalMs: 100, what: 'the transaction lifetime limit to pass' },
      );
      if (abortedError !== undefined) {
        expect(abortedError).to.be.instanceOf(MongoServerError);
        expect((abortedError as MongoServerError).code, 'in-transaction operation after the limit').to.equal(251);
      }
      const error = await expectServerError(s.commitTransaction(), 251, 'commit after the lifetime limit');
      expect(error.codeName).to.equal('NoSuchTransaction');
      expect(await coll.countDocuments({ inTransaction: true })).to.equal(0);
    } finally {
      if (s.inTransaction()) await s.abortTransaction().catch(() => undefined);
      await s.endSession();
    }
  });
});
