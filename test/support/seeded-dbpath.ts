/**
 * Embedded-server dbpaths that already hold the MTG dataset, for tests that need the meta data but
 * do not test loading it. Loading takes seconds each time (over the wire, `troupe seed mtg`, longer);
 * a copy of a loaded dbpath takes milliseconds. The template is built once per content of models/
 * (the dataset, the loader and the store's format) and shared by every test file of a run, and by
 * later runs, through .troupe/test-cache/; concurrent builders rename into place, the first one wins.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import mongoose from 'mongoose';
import { startEmbeddedMongo } from '../../models/embedded/index.js';
import { seedMtg } from '../../models/mtg/seed.js';
import { PACKAGE_ROOT } from '../../models/package-root.js';
import { seedMtgFast } from '../../scripts/load-mtg-dataset.js';
import { externalMongoUri, uniqueDbName } from './mongo-target.js';

/** The database the template holds: troupe's default MONGODB_DB, so tests using it leave MONGODB_DB unset. */
export const SEEDED_DB_NAME = 'troupe';

const CACHE = join(PACKAGE_ROOT, '.troupe', 'test-cache');

async function modelsHash(): Promise<string> {
  const hash = createHash('sha256');
  const files = (await readdir(join(PACKAGE_ROOT, 'models'), { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .concat(join(PACKAGE_ROOT, 'scripts', 'load-mtg-dataset.ts'))
    .sort();
  for (const file of files) hash.update(relative(PACKAGE_ROOT, file)).update('\0').update(await readFile(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

async function buildTemplate(final: string): Promise<void> {
  const staging = `${final}.staging-${randomBytes(4).toString('hex')}`;
  await mkdir(staging, { recursive: true });
  try {
    const server = await startEmbeddedMongo({ port: 0, dbpath: staging });
    try {
      const connection = await mongoose.createConnection(server.uri, { dbName: SEEDED_DB_NAME }).asPromise();
      try {
        await seedMtgFast(connection);
      } finally {
        await connection.close();
      }
    } finally {
      await server.stop();
    }
    await rename(staging, final).catch((error: unknown) => {
      if (!existsSync(final)) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Fills the empty directory `dir` with a dbpath holding the MTG dataset in database `troupe`. */
export async function copySeededDbpath(dir: string): Promise<void> {
  const template = join(CACHE, `mtg-dbpath-${await modelsHash()}`);
  if (!existsSync(template)) await buildTemplate(template);
  await cp(template, dir, { recursive: true });
}

/** A MongoDB holding the MTG dataset, for one test file. */
export interface SeededMongo {
  uri: string;
  dbName: string;
  /** Stops the embedded server and removes its copy (with MONGODB_URI: drops the database). */
  stop(): Promise<void>;
}

/**
 * An embedded server of this process over a fresh copy of the template; with MONGODB_URI (the suite
 * against a real MongoDB), a database of its own there, seeded with the dataset.
 */
export async function seededMongo(): Promise<SeededMongo> {
  const external = externalMongoUri();
  if (external) {
    const dbName = uniqueDbName('seeded');
    const connection = await mongoose.createConnection(external, { dbName }).asPromise();
    try {
      await seedMtg(connection);
    } catch (error) {
      await connection.close();
      throw error;
    }
    return {
      uri: external,
      dbName,
      async stop() {
        await connection.dropDatabase().catch(() => undefined);
        await connection.close();
      },
    };
  }
  const dir = await mkdtemp(join(tmpdir(), 'troupe-seeded-'));
  try {
    await copySeededDbpath(join(dir, 'db'));
    const server = await startEmbeddedMongo({ port: 0, host: '127.0.0.1', dbpath: join(dir, 'db') });
    return {
      uri: server.uri,
      dbName: SEEDED_DB_NAME,
      async stop() {
        await server.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
