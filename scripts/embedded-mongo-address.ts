/**
 * Where `troupe start` serves its embedded MongoDB-compatible server, written next to the journal in
 * EMBEDDED_MONGO_DBPATH. The journal's lock keeps a second process (e.g. `troupe users ...`) from
 * opening the same directory; this file lets that process say which MONGODB_URI to use instead.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const FILE = 'troupe-start.json';

export interface EmbeddedMongoAddress {
  pid: number;
  uri: string;
}

export async function writeEmbeddedMongoAddress(dbpath: string, uri: string): Promise<() => Promise<void>> {
  const file = join(resolve(dbpath), FILE);
  await writeFile(file, JSON.stringify({ pid: process.pid, uri } satisfies EmbeddedMongoAddress));
  return () => rm(file, { force: true });
}

/** The address recorded in `dbpath` by a live process other than this one, if any. */
export async function readEmbeddedMongoAddress(dbpath: string): Promise<EmbeddedMongoAddress | undefined> {
  let parsed: Partial<EmbeddedMongoAddress>;
  try {
    parsed = JSON.parse(await readFile(join(resolve(dbpath), FILE), 'utf8')) as Partial<EmbeddedMongoAddress>;
  } catch {
    return undefined; // absent or half-written
  }
  if (typeof parsed.pid !== 'number' || typeof parsed.uri !== 'string' || parsed.pid === process.pid) return undefined;
  return isAlive(parsed.pid) ? { pid: parsed.pid, uri: parsed.uri } : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
