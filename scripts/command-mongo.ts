/**
 * How one-shot commands (`troupe users ...`, `troupe seed mtg`) reach MongoDB: like `troupe start`,
 * MONGODB_URI or else the embedded server on EMBEDDED_MONGO_DBPATH. That directory is locked while a
 * `troupe start` (or `troupe mongo --dbpath`) holds it: then say which MONGODB_URI reaches that server
 * instead of failing on the lock.
 */
import { resolve } from 'node:path';
import { connectMongo, MongoUnavailableError, type MongoConnection } from '../models/connection.js';
import type { LogLevel } from '../logging/logger.js';
import type { Config } from './config.js';
import { readEmbeddedMongoAddress } from './embedded-mongo-address.js';
import type { Logger } from '../logging/logger.js';

/** `example` is the command line shown with the URI to use, e.g. "troupe users list". */
export async function connectForCommand(config: Config, logger: Logger, example: string): Promise<MongoConnection> {
  const { uri, dbName, embedded } = config.mongo;
  if (uri === undefined) {
    const running = await readEmbeddedMongoAddress(embedded.dbpath);
    if (running) throw dbpathInUse(embedded.dbpath, `by troupe process ${running.pid}`, running.uri, example);
  }
  try {
    return await connectMongo({ uri, dbName, embedded, logger, serverSelectionTimeoutMs: 5_000 });
  } catch (error) {
    if (uri === undefined && error instanceof MongoUnavailableError && /in use by process (\d+)/.test(error.message)) {
      const pid = /in use by process (\d+)/.exec(error.message)![1];
      throw dbpathInUse(embedded.dbpath, `by process ${pid}`, undefined, example);
    }
    throw error;
  }
}

function dbpathInUse(dbpath: string, holder: string, runningUri: string | undefined, example: string): MongoUnavailableError {
  const where = runningUri === undefined ? "that server's URI (it logs it at start-up)" : runningUri;
  return new MongoUnavailableError(
    `MONGODB_URI is not set and the embedded MongoDB data directory ${resolve(dbpath)} (EMBEDDED_MONGO_DBPATH) is in use ${holder}. ` +
      `Run this command with MONGODB_URI set to ${where}` +
      (runningUri === undefined ? '' : `, e.g. MONGODB_URI='${runningUri}' ${example}`) +
      ', or stop that process first.',
  );
}

/**
 * connectForCommand for a command's own process: an unreachable database is reported as one
 * `troupe: ...` line on `stderr` and gives undefined (the command then exits 1).
 */
export async function connectOrReport(
  config: Config,
  logger: Logger,
  example: string,
  stderr: { write(text: string): unknown },
): Promise<MongoConnection | undefined> {
  try {
    return await connectForCommand(config, logger, example);
  } catch (error) {
    if (!(error instanceof MongoUnavailableError)) throw error;
    stderr.write(`troupe: ${error.message}\n`);
    return undefined;
  }
}

/** `info` would print "connected to MongoDB" on every command; keep warnings and explicit debugging. */
export function quieterLogLevel(level: LogLevel): LogLevel {
  return level === 'info' ? 'warn' : level;
}
