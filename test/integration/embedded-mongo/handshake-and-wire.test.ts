import { expect } from 'chai';
import { Long, type Document, type MongoClient } from 'mongodb';
import { pollUntil } from '../../support/async.js';
import {
  directConnectionUri,
  replicaSetOf,
  uriHasCredentials,
  useMongo,
  withUriOption,
} from '../../support/mongo-target.js';
import {
  MSG_MORE_TO_COME,
  OP_MSG,
  OP_REPLY,
  WireConnection,
  decodeOpMsg,
  decodeOpReply,
  encodeOpMsg,
  encodeOpQuery,
  newRequestId,
} from '../../support/mongo-wire.js';

describe('embedded mongo: handshake and wire protocol', function () {
  const m = useMongo('wire');

  /** Connects a new client, recording the topology type the driver settles on. */
  async function connectAndWatchTopology(uri: string): Promise<{ client: MongoClient; topologyType: () => string | undefined }> {
    let topologyType: string | undefined;
    const client = await m.connect(uri, {}, (c) => {
      c.on('topologyDescriptionChanged', (event) => {
        topologyType = event.newDescription.type;
      });
    });
    await client.db('admin').command({ ping: 1 });
    return { client, topologyType: () => topologyType };
  }

  describe('hello / isMaster', function () {
    it('hello reports a writable replica-set primary of MongoDB 7.0 (maxWireVersion >= 21)', async function () {
      const hello = await m.client.db('admin').command({ hello: 1 });
      expect(hello.ok).to.equal(1);
      expect(hello.isWritablePrimary, 'isWritablePrimary').to.equal(true);
      expect(hello.secondary, 'secondary').to.equal(false);
      expect(hello.maxWireVersion, 'maxWireVersion').to.be.a('number').that.is.at.least(21);
      expect(hello.minWireVersion, 'minWireVersion').to.be.a('number').that.is.at.most(hello.maxWireVersion as number);
      expect(hello.logicalSessionTimeoutMinutes, 'logicalSessionTimeoutMinutes').to.be.a('number').that.is.above(0);
      expect(hello.localTime, 'localTime').to.be.instanceOf(Date);
      expect(hello.maxBsonObjectSize, 'maxBsonObjectSize').to.equal(16 * 1024 * 1024);
      expect(hello.maxMessageSizeBytes, 'maxMessageSizeBytes').to.equal(48_000_000);
      expect(hello.maxWriteBatchSize, 'maxWriteBatchSize').to.equal(100_000);
    });

    it('hello names the replica set and lists this server among its hosts', async function () {
      const hello = await m.client.db('admin').command({ hello: 1 });
      expect(hello.setName, 'setName').to.be.a('string').that.is.not.empty;
      const expectedSet = m.target.embedded ? 'rs0' : replicaSetOf(m.target.uri);
      if (expectedSet) expect(hello.setName, 'setName').to.equal(expectedSet);
      expect(hello.hosts, 'hosts').to.be.an('array').that.is.not.empty;
      expect(hello.primary, 'primary').to.be.a('string');
      expect(hello.hosts as string[], 'hosts contains primary').to.include(hello.primary as string);
      if (m.target.embedded) {
        expect(hello.hosts as string[], 'hosts').to.include(`${m.target.host}:${m.target.port}`);
      }
    });

    it('the legacy isMaster command answers ismaster: true with the same limits', async function () {
      const reply = await m.client.db('admin').command({ isMaster: 1 });
      expect(reply.ok).to.equal(1);
      expect(reply.ismaster, 'ismaster').to.equal(true);
      expect(reply.maxWireVersion).to.be.at.least(21);
      expect(reply.setName).to.be.a('string').that.is.not.empty;
      expect(reply.maxBsonObjectSize).to.equal(16 * 1024 * 1024);
    });

    it('advertises no compression (hello without compression offered has none)', async function () {
      const hello = await m.client.db('admin').command({ hello: 1 });
      if ('compression' in hello) expect(hello.compression).to.deep.equal([]);
    });

    it('agrees on no compressor when the client offers zstd, snappy and zlib (embedded server)', async function () {
      if (!m.target.embedded) {
        // A real mongod agrees on the compressors it was built with; nothing to assert there.
        this.test!.title += ' [real MongoDB negotiates compression: not asserted]';
        this.skip();
      }
      const hello = await m.client.db('admin').command({ hello: 1, compression: ['zstd', 'snappy', 'zlib'] });
      if ('compression' in hello) expect(hello.compression).to.deep.equal([]);
    });

    it('a client configured with compressors=zlib still works (falls back to no compression)', async function () {
      const client = await m.connect(withUriOption(m.target.uri, 'compressors', 'zlib'));
      const coll = client.db(m.dbName).collection<{ _id: number; text: string }>('compressors');
      await coll.insertOne({ _id: 1, text: 'x'.repeat(10_000) });
      const doc = await coll.findOne({ _id: 1 });
      expect(doc?.text).to.have.length(10_000);
    });
  });

  describe('connection strings', function () {
    it('connects with ?replicaSet=rs0 (replica-set discovery finds the primary) and writes', async function () {
      const { client, topologyType } = await connectAndWatchTopology(m.target.uri);
      if (replicaSetOf(m.target.uri)) expect(topologyType()).to.equal('ReplicaSetWithPrimary');
      const coll = client.db(m.dbName).collection('via_replica_set');
      await coll.insertOne({ via: 'replicaSet' });
      expect(await coll.countDocuments({ via: 'replicaSet' })).to.equal(1);
    });

    it('connects with ?directConnection=true built from host and port, and writes', async function () {
      const uri = directConnectionUri(m.target);
      if (!uri) {
        this.test!.title += ' [MONGODB_URI is mongodb+srv: no direct connection]';
        this.skip();
      }
      const { client, topologyType } = await connectAndWatchTopology(uri);
      expect(topologyType()).to.equal('Single');
      const coll = client.db(m.dbName).collection('via_direct');
      await coll.insertOne({ via: 'direct' });
      expect(await coll.countDocuments({ via: 'direct' })).to.equal(1);
    });
  });

  describe('raw wire protocol over a net.Socket', function () {
    const sockets: WireConnection[] = [];
    async function rawConnect(): Promise<WireConnection> {
      const socket = await WireConnection.connect(m.target.host, m.target.port);
      sockets.push(socket);
      return socket;
    }
    function requireUnauthenticatedWrites(ctx: Mocha.Context): void {
      if (uriHasCredentials(m.target.uri)) {
        ctx.test!.title += ' [MONGODB_URI has credentials: raw writes would need authentication]';
        ctx.skip();
      }
    }
    afterEach(async function () {
      for (const socket of sockets.splice(0)) await socket.close();
    });

    it('answers a legacy OP_QUERY isMaster on admin.$cmd with an OP_REPLY', async function () {
      const socket = await rawConnect();
      const requestID = newRequestId();
      socket.send(encodeOpQuery(requestID, 'admin.$cmd', { isMaster: 1 }));
      const reply = await socket.next();
      expect(reply.opCode, 'opCode').to.equal(OP_REPLY);
      expect(reply.responseTo, 'responseTo').to.equal(requestID);
      const decoded = decodeOpReply(reply.body);
      expect(decoded.numberReturned, 'numberReturned').to.equal(1);
      expect(decoded.cursorID, 'cursorID').to.equal(0n);
      expect(decoded.responseFlags & 1, 'CursorNotFound flag').to.equal(0);
      expect(decoded.responseFlags & 2, 'QueryFailure flag').to.equal(0);
      const [doc] = decoded.documents;
      expect(doc!.ok).to.equal(1);
      expect(doc!.ismaster).to.equal(true);
      expect(doc!.maxWireVersion).to.be.at.least(21);
      expect(doc!.setName).to.be.a('string').that.is.not.empty;
    });

    it('answers OP_MSG hello on the same socket after an OP_QUERY handshake', async function () {
      const socket = await rawConnect();
      const first = newRequestId();
      socket.send(encodeOpQuery(first, 'admin.$cmd', { isMaster: 1, helloOk: true }));
      expect((await socket.next()).responseTo).to.equal(first);
      const hello = await socket.command({ hello: 1, $db: 'admin' });
      expect(hello.ok).to.equal(1);
      expect(hello.isWritablePrimary).to.equal(true);
    });

    it('OP_MSG insert with the documents in a kind-1 document sequence inserts them all', async function () {
      requireUnauthenticatedWrites(this);
      const socket = await rawConnect();
      const reply = await socket.command(
        { insert: 'raw_sequence', ordered: true, $db: m.dbName },
        [{ identifier: 'documents', documents: [{ _id: 1, via: 'seq' }, { _id: 2, via: 'seq' }, { _id: 3, via: 'seq' }] }],
      );
      expect(reply.ok, JSON.stringify(reply)).to.equal(1);
      expect(reply.n).to.equal(3);
      const docs = await m.db.collection('raw_sequence').find({}, { sort: { _id: 1 } }).toArray();
      expect(docs).to.deep.equal([{ _id: 1, via: 'seq' }, { _id: 2, via: 'seq' }, { _id: 3, via: 'seq' }]);
    });

    it('OP_MSG update with a kind-1 "updates" sequence applies each statement', async function () {
      requireUnauthenticatedWrites(this);
      await m.db.collection('raw_update').insertMany([{ _id: 1, n: 0 }, { _id: 2, n: 0 }] as Document[]);
      const socket = await rawConnect();
      const reply = await socket.command({ update: 'raw_update', $db: m.dbName }, [
        {
          identifier: 'updates',
          documents: [
            { q: { _id: 1 }, u: { $inc: { n: 5 } } },
            { q: { _id: 2 }, u: { $set: { n: 7 } } },
          ],
        },
      ]);
      expect(reply.ok, JSON.stringify(reply)).to.equal(1);
      expect(reply.n).to.equal(2);
      expect(reply.nModified).to.equal(2);
      const docs = await m.db.collection('raw_update').find({}, { sort: { _id: 1 } }).toArray();
      expect(docs).to.deep.equal([{ _id: 1, n: 5 }, { _id: 2, n: 7 }]);
    });

    it('OP_MSG with moreToCome (fire-and-forget insert) is applied and gets no reply', async function () {
      requireUnauthenticatedWrites(this);
      const socket = await rawConnect();
      const silent = newRequestId();
      socket.send(
        encodeOpMsg(
          silent,
          { insert: 'raw_more_to_come', writeConcern: { w: 0 }, $db: m.dbName },
          [{ identifier: 'documents', documents: [{ _id: 'fire-and-forget' }] }],
          MSG_MORE_TO_COME,
        ),
      );
      // The next reply on this socket must answer the ping, not the moreToCome insert.
      const ping = newRequestId();
      socket.send(encodeOpMsg(ping, { ping: 1, $db: 'admin' }));
      const reply = await socket.next();
      expect(reply.opCode).to.equal(OP_MSG);
      expect(reply.responseTo, 'the first reply answers the ping (no reply to moreToCome)').to.equal(ping);
      expect(decodeOpMsg(reply.body).body.ok).to.equal(1);
      const found = await pollUntil(() => m.db.collection<{ _id: string }>('raw_more_to_come').findOne({ _id: 'fire-and-forget' }), {
        timeoutMs: 5_000,
        what: 'the fire-and-forget insert to become visible',
      });
      expect(found).to.deep.equal({ _id: 'fire-and-forget' });
    });

    it('OP_MSG find and getMore return cursor batches as documents with an int64 cursor id', async function () {
      requireUnauthenticatedWrites(this);
      await m.db.collection('raw_cursor').insertMany(Array.from({ length: 5 }, (_, i) => ({ _id: i })) as Document[]);
      const socket = await rawConnect();
      const first = await socket.command({ find: 'raw_cursor', sort: { _id: 1 }, batchSize: 2, $db: m.dbName });
      expect(first.ok).to.equal(1);
      expect(first.cursor.ns).to.equal(`${m.dbName}.raw_cursor`);
      expect(first.cursor.firstBatch).to.deep.equal([{ _id: 0 }, { _id: 1 }]);
      const id = first.cursor.id as unknown;
      expect(Long.isLong(id), 'cursor id is BSON int64').to.equal(true);
      const more = await socket.command({ getMore: id, collection: 'raw_cursor', batchSize: 10, $db: m.dbName });
      expect(more.ok).to.equal(1);
      expect(more.cursor.nextBatch).to.deep.equal([{ _id: 2 }, { _id: 3 }, { _id: 4 }]);
      expect(Long.isLong(more.cursor.id) && (more.cursor.id as Long).isZero(), 'exhausted cursor id is int64 0').to.equal(true);
    });
  });
});
