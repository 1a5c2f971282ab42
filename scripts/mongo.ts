import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { MongoUnavailableError } from '../models/mongo-unavailable-error.js';
import { startEmbeddedMongo } from '../models/embedded/index.js';
import type { Config } from './config.js';
import { createLogger } from '../logging/logger.js';
import { onShutdownSignal } from './shutdown-signal.js';

export interface MongoCommandOptions {
  port: number;
  host: string;
  /** Journal directory; absent = memory only. */
  dbpath?: string;
  /** Accept test-only commands (configureFailPoint, waitForFailPoint), like mongod's enableTestCommands=1. */
  enableTestCommands?: boolean;
}

/** `troupe mongo`: the embedded MongoDB-compatible server on its own, until SIGINT/SIGTERM. */
export async function runMongo(options: MongoCommandOptions, config: Config): Promise<number> {
  const logger = createLogger(config.log);
  const signalled = onShutdownSignal(logger);

  const dbpath = options.dbpath === undefined ? undefined : resolve(options.dbpath);
  if (dbpath !== undefined) await mkdir(dbpath, { recursive: true });
  // startEmbeddedMongo logs "embedded MongoDB-compatible server listening" with the uri.
  const server = await startEmbeddedMongo({
    port: options.port,
    host: options.host,
    dbpath,
    enableTestCommands: options.enableTestCommands === true,
    logger: logger.child({ component: 'embedded-mongo' }),
  }).catch((error: unknown) => {
    throw new MongoUnavailableError(
      `the embedded MongoDB-compatible server could not start on ${options.host}:${options.port}: ` +
        `${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  });

  const signal = await signalled.received;
  logger.info({ signal }, 'shutting down');
  await server.stop();
  logger.info('stopped');
  return 0;
}
