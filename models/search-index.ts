/**
 * A saved copy of an owner's keyword index, so a new process loads it instead of re-reading and
 * re-tokenising every chunk. The index's JSON is split into parts (a MongoDB document holds at most
 * 16 MB); a pointer document names the parts of the current copy and the catalogue version it reflects.
 *
 * Several processes may save at once. Each writes its parts under its own writer id, then moves the
 * pointer with a compare-and-set that only moves it forward; the winner deletes every older part, a
 * loser deletes its own. A reader that finds the pointer's parts gone (replaced under it) reads again.
 */
import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from './model-on.js';

/** A document the saved index covers, at the revision it was indexed, and how many chunks it had. */
export interface CoveredDocument {
  documentId: string;
  revision: string;
  chunks: number;
}

export interface SearchIndexSnapshot {
  /** The catalogue version the index reflects. */
  version: number;
  documents: CoveredDocument[];
  /** The MiniSearch index as JSON. */
  json: string;
}

export interface SearchIndexSnapshotRecord {
  /** The owner id. */
  _id: string;
  version: number;
  documents: CoveredDocument[];
  parts: number;
  /** Whose parts these are: part ids are `${ownerId}:${version}:${writer}:${n}`. */
  writer: string;
  savedAt: Date;
}

export interface SearchIndexPartRecord {
  _id: string;
  ownerId: string;
  version: number;
  writer: string;
  n: number;
  json: string;
}

/**
 * UTF-16 code units per part: at most 3 UTF-8 bytes each, so a part stays under 4 MB, well inside
 * MongoDB's 16 MB document limit.
 */
export const MAX_PART_CHARS = 1_000_000;

const coveredSchema = new Schema<CoveredDocument>(
  {
    documentId: { type: String, required: true },
    revision: { type: String, required: true },
    chunks: { type: Number, required: true },
  },
  { _id: false },
);

const snapshotSchema = new Schema<SearchIndexSnapshotRecord>(
  {
    _id: { type: String, required: true },
    version: { type: Number, required: true },
    documents: { type: [coveredSchema], default: [] },
    parts: { type: Number, required: true },
    writer: { type: String, required: true },
    savedAt: { type: Date, required: true },
  },
  { collection: 'search_index_snapshots', versionKey: false },
);

const partSchema = new Schema<SearchIndexPartRecord>(
  {
    _id: { type: String, required: true },
    ownerId: { type: String, required: true },
    version: { type: Number, required: true },
    writer: { type: String, required: true },
    n: { type: Number, required: true },
    json: { type: String, default: '' },
  },
  { collection: 'search_index_parts', versionKey: false },
);
partSchema.index({ ownerId: 1 });

export function searchIndexModels(connection: Connection): {
  snapshots: Model<SearchIndexSnapshotRecord>;
  parts: Model<SearchIndexPartRecord>;
} {
  return {
    snapshots: modelOn<SearchIndexSnapshotRecord>(connection, 'SearchIndexSnapshot', snapshotSchema),
    parts: modelOn<SearchIndexPartRecord>(connection, 'SearchIndexPart', partSchema),
  };
}

/** Cuts a string into pieces of at most `maxChars`, never between the two halves of a surrogate pair. */
export function splitIntoParts(text: string, maxChars = MAX_PART_CHARS): string[] {
  const parts: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + maxChars, text.length);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end--;
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts.length ? parts : [''];
}

function partId(ownerId: string, version: number, writer: string, n: number): string {
  return `${ownerId}:${version}:${writer}:${n}`;
}

/**
 * Saves the snapshot if it is newer than the stored one. True when it became the current snapshot;
 * false when an equal or newer one was there (or got there first).
 */
export async function saveSearchIndexSnapshot(connection: Connection, ownerId: string, snapshot: SearchIndexSnapshot): Promise<boolean> {
  const models = searchIndexModels(connection);
  const writer = randomUUID();
  const { version } = snapshot;
  const parts = splitIntoParts(snapshot.json);
  try {
    await models.parts.insertMany(
      parts.map((json, n) => ({ _id: partId(ownerId, version, writer, n), ownerId, version, writer, n, json })),
      { ordered: true },
    );
    const pointer = { version, documents: snapshot.documents, parts: parts.length, writer, savedAt: new Date() };
    // Matches only an older pointer; with none there, the upsert inserts one; with an equal or newer one,
    // the upsert's insert collides on _id (11000): this writer lost.
    await models.snapshots.updateOne({ _id: ownerId, version: { $lt: version } }, { $set: pointer }, { upsert: true });
  } catch (error) {
    await models.parts.deleteMany({ ownerId, writer });
    if (isDuplicateKey(error)) return false;
    throw error;
  }
  // Every other part is now garbage: older versions, and same-version writers that lost the race.
  await models.parts.deleteMany({ ownerId, $or: [{ version: { $lt: version } }, { version, writer: { $ne: writer } }] });
  return true;
}

/** The current snapshot, or null when there is none (or its parts were replaced twice while reading). */
export async function loadSearchIndexSnapshot(connection: Connection, ownerId: string): Promise<SearchIndexSnapshot | null> {
  const models = searchIndexModels(connection);
  for (let attempt = 0; attempt < 2; attempt++) {
    const pointer = await models.snapshots.findOne({ _id: ownerId }).lean();
    if (!pointer) return null;
    const ids = Array.from({ length: pointer.parts }, (_, n) => partId(ownerId, pointer.version, pointer.writer, n));
    const parts = await models.parts.find({ _id: { $in: ids }, ownerId }).lean();
    if (parts.length !== pointer.parts) continue;
    parts.sort((a, b) => a.n - b.n);
    return {
      version: pointer.version,
      documents: pointer.documents.map(({ documentId, revision, chunks }) => ({ documentId, revision, chunks })),
      json: parts.map((part) => part.json).join(''),
    };
  }
  return null;
}

/** The version of the stored snapshot, without its parts; null when there is none. */
export async function searchIndexSnapshotVersion(connection: Connection, ownerId: string): Promise<number | null> {
  const pointer = await searchIndexModels(connection).snapshots.findOne({ _id: ownerId }, { version: 1 }).lean();
  return pointer ? pointer.version : null;
}

function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}
