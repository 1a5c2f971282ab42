/**
 * A MongoDB that a test can take away and bring back, for outage tests.
 *
 * - By default, `troupe mongo --dbpath DIR` of the test's own: `interrupt()` is kill -9, `resume()`
 *   starts it again on the same port and dbpath (its journal must hold every acknowledged write).
 * - With MONGODB_URI set (a real MongoDB, on a loopback address): a test can only kill a server it
 *   started, so the outage is the network instead. Every troupe process connects through a TCP relay
 *   on loopback; `interrupt()` closes the relay and every connection through it, `resume()` listens
 *   again on the same port. The server itself keeps running, so this checks the retry and reconnect
 *   paths, not the server's durability. The URI must name one server (the primary); the relayed URI
 *   uses directConnection so the driver does not go around the relay to the hosts the server advertises.
 */
import { MongoClient } from 'mongodb';
import { startTcpRelay } from './tcp-relay.js';
import { tempDir, TroupeMongoProcesses } from './troupe-mongo-process.js';

export interface RestartableMongo {
  /** What the processes under test get as MONGODB_URI. */
  uri: string;
  /** `embedded` (kill -9 of troupe mongo) or `relayed` (a real MongoDB behind a relay that is cut). */
  mode: 'embedded' | 'relayed';
  interrupt(): Promise<void>;
  resume(): Promise<void>;
  /** Stops what the helper started and removes its data (the dbpath, or `dbName` on a real server). */
  remove(dbName: string): Promise<void>;
}

export async function startRestartableMongo(realUri: string | undefined = process.env.MONGODB_URI): Promise<RestartableMongo> {
  return realUri ? relayedMongo(realUri) : embeddedMongo();
}

async function embeddedMongo(): Promise<RestartableMongo> {
  const processes = new TroupeMongoProcesses();
  const dbpath = await tempDir('troupe-test-mongo-restart');
  const first = await processes.start({ dbpath: dbpath.dir });
  const port = first.port;
  let current = first;
  return {
    uri: `mongodb://127.0.0.1:${port}/?replicaSet=rs0`,
    mode: 'embedded',
    async interrupt() {
      await current.kill9();
    },
    async resume() {
      current = await processes.start({ dbpath: dbpath.dir, port });
    },
    async remove() {
      await processes.stopAll();
      await dbpath.remove();
    },
  };
}

async function relayedMongo(realUri: string): Promise<RestartableMongo> {
  const target = new URL(realUri);
  if (target.protocol !== 'mongodb:' || target.host.includes(',')) throw new Error('MONGODB_URI must be mongodb://HOST:PORT/... naming one server for the relayed outage test');
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) throw new Error(`MONGODB_URI must be on a loopback address (got ${target.hostname})`);
  const targetPort = Number(target.port || 27017);
  const relay = await startTcpRelay(target.hostname.replace(/^\[|\]$/g, ''), targetPort);
  const relayed = new URL(realUri);
  relayed.host = `127.0.0.1:${relay.port}`;
  relayed.searchParams.delete('replicaSet');
  relayed.searchParams.set('directConnection', 'true');
  return {
    uri: relayed.toString(),
    mode: 'relayed',
    interrupt: () => relay.close(),
    resume: () => relay.reopen(),
    async remove(dbName) {
      await relay.close();
      const client = new MongoClient(realUri, { serverSelectionTimeoutMS: 5_000 });
      try {
        await client.db(dbName).dropDatabase();
      } finally {
        await client.close();
      }
    },
  };
}
