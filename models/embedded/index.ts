/**
 * troupe's embedded MongoDB-compatible server: the MongoDB wire protocol over an in-process store built
 * on bson and mingo, for development, tests and `npm start` on machines without MongoDB.
 * See README.md in this folder for what it supports and where it differs from MongoDB.
 */
import net from 'node:net';
import { CursorRegistry } from './cursors.js';
import { LogicalClock, type EmbeddedLogger, type ServerState } from './context.js';
import { FailPointRegistry } from './fail-points.js';
import { ServerMetrics } from './metrics.js';
import { serveConnection } from './server.js';
import { SessionRegistry } from './sessions.js';
import { runCommand } from './commands/index.js';
import { abortTransaction } from './commands/transactions.js';
import { asIfFromWire } from './in-process.js';
import { type Doc } from './values.js';
import { Engine } from './store/engine.js';
import { Storage } from './store/journal.js';
import { sweepExpired } from './store/ttl-monitor.js';

export interface EmbeddedMongoOptions {
  /** TCP port; 0 picks a free one. Default 27017. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Directory for the durable journal; without it, data lives in memory only. */
  dbpath?: string;
  /** Replica set name reported in `hello`. Default rs0. */
  replicaSetName?: string;
  /** TTL monitor period. Default 60000 (MongoDB's ttlMonitorSleepSecs = 60). */
  ttlMonitorIntervalMs?: number;
  /** Open transactions are aborted after this long. Default 60 (MongoDB's transactionLifetimeLimitSeconds). */
  transactionLifetimeLimitSeconds?: number;
  /**
   * Accept MongoDB's test-only commands (`configureFailPoint` with the `failCommand` fail point,
   * `waitForFailPoint`), like mongod's `--setParameter enableTestCommands=1`. Default false: they
   * then fail with 59 CommandNotFound, as on a mongod without it.
   */
  enableTestCommands?: boolean;
  /**
   * With a dbpath: a checkpoint (collection files rewritten for what changed, journal restarted) runs
   * in the background once the journal holds this many bytes and writes pause. Default 16 MiB.
   */
  checkpointJournalBytes?: number;
  logger?: EmbeddedLogger;
}

export interface EmbeddedMongo {
  /** Connection string without a database name, e.g. mongodb://127.0.0.1:27017/?replicaSet=rs0 */
  uri: string;
  host: string;
  port: number;
  /** With a dbpath: writes a checkpoint now (what changed since the last one); without: does nothing. */
  checkpoint(): Promise<void>;
  /**
   * The insert command, from this process without the wire (see in-process.ts): the documents are
   * copied as a BSON round trip would give them, inserted (unordered unless `ordered`), and durable
   * when this resolves. Resolves to the command's reply: `n` and, if any, `writeErrors`.
   */
  insertMany(db: string, collection: string, docs: Doc[], options?: { ordered?: boolean }): Promise<{ n: number; writeErrors?: Doc[] }>;
  stop(): Promise<void>;
}

/** Servers this process runs, by `host:port` as in their uri. */
const inThisProcess = new Map<string, EmbeddedMongo>();

/** The embedded server this process runs at host:port, if any (to insert without the wire). */
export function embeddedMongoInThisProcess(host: string, port: number): EmbeddedMongo | undefined {
  return inThisProcess.get(`${host}:${port}`);
}

const silent: EmbeddedLogger = { info() {}, warn() {}, error() {}, debug() {} };

export async function startEmbeddedMongo(options: EmbeddedMongoOptions = {}): Promise<EmbeddedMongo> {
  const host = options.host ?? '127.0.0.1';
  const logger = options.logger ?? silent;
  const engine = new Engine();
  let storage: Storage | undefined;
  if (options.dbpath) {
    const started = performance.now();
    storage = Storage.open(options.dbpath, engine, { logger, checkpointJournalBytes: options.checkpointJournalBytes });
    logger.debug({ dbpath: options.dbpath, ...storage.report, ms: Math.round(performance.now() - started) }, 'embedded mongo: dbpath opened');
  }

  const state: ServerState = {
    engine,
    sessions: new SessionRegistry(),
    cursors: new CursorRegistry(),
    clock: new LogicalClock(),
    host,
    port: 0,
    setName: options.replicaSetName ?? 'rs0',
    startedAt: new Date(),
    transactionLifetimeLimitMs: (options.transactionLifetimeLimitSeconds ?? 60) * 1000,
    enableTestCommands: options.enableTestCommands === true,
    failPoints: new FailPointRegistry(),
    metrics: new ServerMetrics(),
    logger,
  };
  state.clock.tick();

  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serveConnection(state, socket);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 27017, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    // Nothing was served: release the dbpath (its lock) for whoever tries next.
    await storage?.close().catch(() => undefined);
    throw error;
  }
  state.port = (server.address() as net.AddressInfo).port;

  const ttl = setInterval(() => {
    if (sweepExpired(engine) > 0) engine.durable().catch((err) => logger.error({ err }, 'embedded mongo: journal write failed'));
  }, options.ttlMonitorIntervalMs ?? 60_000);
  const housekeeping = setInterval(() => {
    for (const session of state.sessions.all()) {
      const txn = session.transaction;
      if (txn?.state === 'active' && Date.now() - txn.startedAt > state.transactionLifetimeLimitMs) {
        abortTransaction(state, txn, 'it exceeded the transaction lifetime limit (transactionLifetimeLimitSeconds)');
      }
    }
    state.cursors.sweep();
    state.sessions.forget(30 * 60 * 1000);
  }, Math.min(1000, state.transactionLifetimeLimitMs / 2));
  ttl.unref();
  housekeeping.unref();

  const hostForUri = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const uri = `mongodb://${hostForUri}:${state.port}/?replicaSet=${state.setName}`;
  if (host === '0.0.0.0' || host === '::') state.host = hostForUri;
  logger.info(
    { uri, dbpath: options.dbpath ?? null, ...(state.enableTestCommands ? { enableTestCommands: true } : {}) },
    'embedded MongoDB-compatible server listening',
  );

  const inProcessConnection = { id: 0, closed: new AbortController().signal, close() {} };
  let stopped: Promise<void> | undefined;
  const key = `${hostForUri}:${state.port}`;
  const mongo: EmbeddedMongo = {
    uri,
    host: hostForUri,
    port: state.port,
    async checkpoint() {
      await storage?.checkpoint();
    },
    async insertMany(db, collection, docs, { ordered = false } = {}) {
      if (stopped) throw new Error('the embedded MongoDB-compatible server was stopped');
      const reply = await runCommand(state, db, { insert: collection, documents: docs.map(asIfFromWire), ordered, $db: db }, inProcessConnection);
      if (reply.ok !== 1) throw new Error(`insert into ${db}.${collection} failed: ${String(reply.errmsg)} (${String(reply.codeName)})`);
      return { n: reply.n as number, ...(Array.isArray(reply.writeErrors) ? { writeErrors: reply.writeErrors as Doc[] } : {}) };
    },
    stop() {
      stopped ??= (async () => {
        if (inThisProcess.get(key) === mongo) inThisProcess.delete(key);
        clearInterval(ttl);
        clearInterval(housekeeping);
        // Commands blocked by failCommand end with InterruptedAtShutdown instead of running later.
        state.failPoints.stop();
        for (const session of state.sessions.all()) if (session.transaction) abortTransaction(state, session.transaction, 'server shutting down');
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          for (const s of sockets) s.destroy();
        });
        await storage?.close();
      })();
      return stopped;
    },
  };
  inThisProcess.set(key, mongo);
  return mongo;
}

export type { EmbeddedLogger };
