/**
 * One collection's documents on disk (a checkpoint of it), in natural order, in a form that loads
 * several times faster than BSON: JSON, which V8 parses natively, for everything JSON holds exactly
 * (strings, booleans, null, finite numbers other than -0, arrays, plain objects), and for every other
 * value (dates, ObjectIds, number wrappers, binaries, ...) a null in the JSON plus a fix-up carrying
 * the value in BSON, read as the journal is read: every BSON type and number type round-trips exactly.
 *
 *   file    = "TRPCOLL2" chunk*
 *   chunk   = count (uint32 LE) jsonLength (uint32 LE) json fixups
 *   json    = a JSON array of `count` documents, ASCII only (other characters as \u escapes)
 *   fixups  = a BSON document { f: [ [documentIndex, key or array index, ..., value], ... ] }
 *
 * Files are written once, under a new name, and fsynced before the catalog names them; the catalog
 * records each file's length and document count, which a load checks.
 */
import { deserialize, serialize } from 'bson';
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { normalizeInPlace, remark, type Doc } from '../values.js';

const MAGIC = Buffer.from('TRPCOLL2', 'latin1');
const CHUNK_HEADER = 8;
/** Documents are cut into chunks of about this much JSON. */
const CHUNK_CHARS = 4 * 1024 * 1024;

export class CorruptCollectionFile extends Error {}

type Path = Array<string | number>;
type Fixup = [number, ...Path, unknown];

/**
 * A document JSON can hold, with every value it cannot hold replaced by null; those values go to
 * `fixups` with their paths (`path` is the walk's current path, shared). Containers are copied only
 * along such paths.
 */
function jsonable(v: unknown, docIndex: number, path: Path, fixups: Fixup[]): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
    case 'undefined': // as in BSON: a field holding undefined is left out, an array element becomes null
      return v;
    case 'number':
      if (Number.isFinite(v) && !Object.is(v, -0)) return v;
      break;
    case 'object': {
      if (v === null) return v;
      if (Array.isArray(v)) {
        let out: unknown[] | undefined;
        for (let i = 0; i < v.length; i++) {
          path.push(i);
          const x = jsonable(v[i], docIndex, path, fixups);
          path.pop();
          if (x !== v[i] && !out) out = v.slice();
          if (out) out[i] = x;
        }
        return out ?? v;
      }
      if (Object.getPrototypeOf(v) === Object.prototype) {
        let out: Doc | undefined;
        for (const k of Object.keys(v)) {
          path.push(k);
          const x = jsonable((v as Doc)[k], docIndex, path, fixups);
          path.pop();
          if (x !== (v as Doc)[k] && !out) out = { ...(v as Doc) };
          if (out) out[k] = x;
        }
        return out ?? v;
      }
      break;
    }
  }
  fixups.push([docIndex, ...path, v]);
  return null;
}

const NON_ASCII = /[\u0080-\uffff]/g;
const escapeCodeUnit = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** JSON text with every non-ASCII code unit escaped: read back as latin1, a byte per character, which is faster than UTF-8. */
function asciiOnly(json: string): string {
  return json.replace(NON_ASCII, escapeCodeUnit);
}

/**
 * Encodes documents as chunks, one per iteration: a caller may yield to the event loop between chunks.
 * The documents must not change meanwhile (stored documents never do: writes replace them).
 */
export function* encodeChunks(docs: readonly Doc[]): Generator<Buffer> {
  let i = 0;
  while (i < docs.length) {
    const texts: string[] = [];
    const fixups: Fixup[] = [];
    let chars = 0;
    while (i < docs.length && chars < CHUNK_CHARS) {
      const text = asciiOnly(JSON.stringify(jsonable(docs[i], texts.length, [], fixups)));
      texts.push(text);
      chars += text.length;
      i += 1;
    }
    const json = Buffer.from(`[${texts.join(',')}]`, 'latin1');
    const head = Buffer.allocUnsafe(CHUNK_HEADER);
    head.writeUInt32LE(texts.length, 0);
    head.writeUInt32LE(json.length, 4);
    yield Buffer.concat([head, json, serialize({ f: fixups })]);
  }
}

function applyFixups(docs: Doc[], base: number, fixups: unknown[]) {
  const touched = new Set<Doc>();
  for (const raw of fixups) {
    const fixup = raw as Fixup;
    const doc = docs[base + (fixup[0] as number)];
    let holder: unknown = doc;
    for (let k = 1; k < fixup.length - 2; k++) holder = (holder as Record<string | number, unknown>)[fixup[k] as string | number];
    const value = fixup[fixup.length - 1];
    (holder as Record<string | number, unknown>)[fixup[fixup.length - 2] as string | number] = value;
    // Containers holding a number wrapper are marked (see values.ts); these documents are marked again.
    if (value !== null && typeof value === 'object' && !(value instanceof Date)) touched.add(doc);
  }
  for (const doc of touched) remark(doc);
}

/** Writes a collection file (fsynced); returns its length. Yields to the event loop between chunks. */
export async function writeCollectionFile(file: string, docs: readonly Doc[]): Promise<number> {
  const handle = await open(file, 'w');
  try {
    await handle.write(MAGIC);
    let length = MAGIC.length;
    for (const chunk of encodeChunks(docs)) {
      await handle.write(chunk);
      length += chunk.length;
    }
    await handle.sync();
    return length;
  } finally {
    await handle.close();
  }
}

/** The same, synchronously (start-up and shutdown, when nothing else runs). */
export function writeCollectionFileSync(file: string, docs: readonly Doc[]): number {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, MAGIC);
    let length = MAGIC.length;
    for (const chunk of encodeChunks(docs)) {
      writeSync(fd, chunk);
      length += chunk.length;
    }
    fsyncSync(fd);
    return length;
  } finally {
    closeSync(fd);
  }
}

/** Reads a collection file, checking it against what the catalog says it holds. */
export function readCollectionFile(file: string, expected: { count: number; bytes: number }): Doc[] {
  const buf = readFileSync(file);
  const corrupt = (why: string) => new CorruptCollectionFile(`collection file ${file} is damaged: ${why}`);
  if (buf.length !== expected.bytes) throw corrupt(`${buf.length} bytes, the catalog says ${expected.bytes}`);
  if (buf.length < MAGIC.length || !buf.subarray(0, MAGIC.length).equals(MAGIC)) throw corrupt('not a troupe collection file');
  const docs: Doc[] = [];
  let offset = MAGIC.length;
  while (offset < buf.length) {
    if (offset + CHUNK_HEADER > buf.length) throw corrupt('truncated chunk header');
    const count = buf.readUInt32LE(offset);
    const jsonLength = buf.readUInt32LE(offset + 4);
    const jsonStart = offset + CHUNK_HEADER;
    const fixupsStart = jsonStart + jsonLength;
    if (fixupsStart + 5 > buf.length) throw corrupt('truncated chunk');
    const fixupsLength = buf.readInt32LE(fixupsStart);
    if (fixupsLength < 5 || fixupsStart + fixupsLength > buf.length) throw corrupt('truncated fix-ups');
    let parsed: unknown;
    let fixups: unknown;
    try {
      parsed = JSON.parse(buf.toString('latin1', jsonStart, fixupsStart));
      fixups = (normalizeInPlace(deserialize(buf.subarray(fixupsStart, fixupsStart + fixupsLength), { promoteValues: false })) as Doc).f;
    } catch (e) {
      throw corrupt(`unreadable chunk (${(e as Error).message})`);
    }
    if (!Array.isArray(parsed) || parsed.length !== count) throw corrupt(`a chunk does not hold the ${count} documents its header says`);
    if (!Array.isArray(fixups)) throw corrupt('fix-ups are not an array');
    const base = docs.length;
    for (const doc of parsed as Doc[]) docs.push(doc);
    applyFixups(docs, base, fixups);
    offset = fixupsStart + fixupsLength;
  }
  if (docs.length !== expected.count) throw corrupt(`${docs.length} documents, the catalog says ${expected.count}`);
  return docs;
}
