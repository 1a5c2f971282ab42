import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import mongoose, { type Connection } from 'mongoose';
import { maskUrlCredentials } from '../logging/mask-url-credentials.js';
import type { Logger } from '../logging/logger.js';
import type { EmbeddedMongo } from './embedded/index.js';
import { MongoUnavailableError } from './mongo-unavailable-error.js';

export { MongoUnavailableError } from './mongo-unavailable-error.js';

export interface MongoConnectionOptions {
  /** MONGODB_URI; when absent, an embedded MongoDB-compatible server is started. */
  uri?: string;
  dbName: string;
  embedded: {
    /** 0 = any free port. */
    port: number;
    /** Journal directory; absent = memory only. */
    dbpath?: string;
  };
  logger: Logger;
  serverSelectionTimeoutMs?: number;
}

export interface MongoConnection {
  connection: Connection;
  /** The server URI connected to (without the database name). */
  uri: string;
  /** The embedded server troupe started, if MONGODB_URI was not set. */
  embeddedServer: EmbeddedMongo | undefined;
  /** Closes the mongoose connection, then stops the embedded server (if any). */
  stop(): Promise<void>;
}

/**
 * Opens a dedicated mongoose connection (not the global `mongoose.connect` one) so that callers
 * pass it to the models they build, and tests can hold several at once.
 */
export async function connectMongo({
  uri,
  dbName,
  embedded,
  logger,
  serverSelectionTimeoutMs = 10_000,
}: MongoConnectionOptions): Promise<MongoConnection> {
  let embeddedServer: EmbeddedMongo | undefined;
  let serverUri: string;
  if (uri !== undefined) {
    serverUri = uri;
  } else {
    embeddedServer = await startEmbedded(embedded, logger);
    serverUri = embeddedServer.uri;
  }

  let connection: Connection;
  try {
    connection = await mongoose
      .createConnection(serverUri, { dbName, serverSelectionTimeoutMS: serverSelectionTimeoutMs })
      .asPromise();
  } catch (error) {
    await embeddedServer?.stop();
    const source = uri === undefined ? `the embedded server at ${serverUri}` : `MONGODB_URI=${maskUrlCredentials(serverUri)}`;
    throw new MongoUnavailableError(`could not connect to ${source}: ${describe(error)}`, { cause: error });
  }
  logger.info({ uri: maskUrlCredentials(serverUri), dbName, embedded: embeddedServer !== undefined }, 'connected to MongoDB');

  return {
    connection,
    uri: serverUri,
    embeddedServer,
    async stop() {
      await connection.close();
      await embeddedServer?.stop();
    },
  };
}

async function startEmbedded(
  { port, dbpath }: MongoConnectionOptions['embedded'],
  logger: Logger,
): Promise<EmbeddedMongo> {
  const absoluteDbpath = dbpath === undefined ? undefined : resolve(dbpath);
  try {
    if (absoluteDbpath !== undefined) await mkdir(absoluteDbpath, { recursive: true });
    // Loaded only here: a process on a real MongoDB (MONGODB_URI) never needs the embedded server's code.
    const { startEmbeddedMongo } = await import('./embedded/index.js');
    // The server logs its own "listening" line with the uri.
    return await startEmbeddedMongo({ port, dbpath: absoluteDbpath, logger });
  } catch (error) {
    throw new MongoUnavailableError(
      `MONGODB_URI is not set and the embedded MongoDB-compatible server could not start on port ${port}` +
        `${absoluteDbpath === undefined ? '' : ` with EMBEDDED_MONGO_DBPATH=${absoluteDbpath}`}: ${describe(error)}. ` +
        'Set EMBEDDED_MONGO_PORT / EMBEDDED_MONGO_DBPATH, or MONGODB_URI to use a real MongoDB.',
      { cause: error },
    );
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One `T` per MongoDB connection, made on first use: for caches that must outlive a turn but never
 * mix two databases (a worker's search indexes, a test's second connection).
 */
export function perConnection<T>(make: (connection: Connection) => T): (connection: Connection) => T {
  const made = new WeakMap<Connection, T>();
  return (connection) => {
    let value = made.get(connection);
    if (value === undefined) {
      value = make(connection);
      made.set(connection, value);
    }
    return value;
  };
}
