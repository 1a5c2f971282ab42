/**
 * Embedded-server dbpaths that already hold the MTG dataset, for tests that need the meta data but
 * do not test loading it. Loading takes seconds each time (over the wire, `troupe seed mtg`, longer);
 * a copy of a loaded dbpath takes milliseconds. The template is built once per content of models/
 * (the dataset, the loader and the store's format) and shared by every test file of a run, and by
 * later runs, through .troupe/test-cache/; concurrent builders rename into place, the first one wins.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import mongoose from 'mongoose';
import { startEmbeddedMongo } from '../../models/embedded/index.js';
import { PACKAGE_ROOT } from '../../models/package-root.js';
import { seedMtgFast } from '../../scripts/load-mtg-dataset.js';

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
