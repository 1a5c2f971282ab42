/**
 * An owner's uploaded documents as search sees them: their chunks (text, and the embedding when one was
 * made), and a per-owner catalogue listing the documents that are searchable. The catalogue's version
 * goes up with every change, so a process's cached index knows with one small read whether it is
 * current; a per-document revision tells it which documents were replaced.
 */
import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from './model-on.js';

export interface DocumentChunkRecord {
  /** `${documentId}#${index}`. */
  _id: string;
  ownerId: string;
  documentId: string;
  documentName: string;
  index: number;
  heading: string | null;
  text: string;
  /** sha256 of the normalised text: finds the same passage in two documents. */
  textHash: string;
  embedding?: number[];
  createdAt: Date;
}

export interface DocumentCatalogueRecord {
  /** The owner id. */
  _id: string;
  version: number;
  /** The searchable documents. */
  documents: string[];
  /**
   * Per document (keyed by `revisionKey(documentId)`: ids may hold `.` or `$`), a token that changes
   * each time the document's chunks are stored, so caches reload a replaced document.
   */
  revisions: Record<string, string>;
  updatedAt: Date;
}

/** A chunk as chunking produces it (`TextChunk`), with the hash of its normalised text (cross-document dedup). */
export interface ChunkToStore {
  index: number;
  heading: string | null;
  text: string;
  textHash: string;
}

/** The catalogue as readers use it: document id → revision. */
export interface Catalogue {
  version: number;
  documents: Map<string, string>;
}

const chunkSchema = new Schema<DocumentChunkRecord>(
  {
    _id: { type: String, required: true },
    ownerId: { type: String, required: true },
    documentId: { type: String, required: true },
    documentName: { type: String, required: true },
    index: { type: Number, required: true },
    heading: { type: String, default: null },
    text: { type: String, required: true },
    textHash: { type: String, required: true },
    // No default: mongoose would otherwise give every chunk an empty vector.
    embedding: { type: [Number], default: undefined },
    createdAt: { type: Date, required: true },
  },
  { collection: 'document_chunks', versionKey: false },
);
chunkSchema.index({ ownerId: 1, documentId: 1 });

const catalogueSchema = new Schema<DocumentCatalogueRecord>(
  {
    _id: { type: String, required: true },
    version: { type: Number, required: true, default: 0 },
    documents: { type: [String], default: [] },
    revisions: { type: Schema.Types.Mixed, default: {} },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'document_catalogues', versionKey: false, minimize: false },
);

export function documentChunkModels(connection: Connection): {
  chunks: Model<DocumentChunkRecord>;
  catalogues: Model<DocumentCatalogueRecord>;
} {
  return {
    chunks: modelOn<DocumentChunkRecord>(connection, 'DocumentChunk', chunkSchema),
    catalogues: modelOn<DocumentCatalogueRecord>(connection, 'DocumentCatalogue', catalogueSchema),
  };
}

export function chunkId(documentId: string, index: number): string {
  return `${documentId}#${index}`;
}

/** A field name safe for any document id. */
export function revisionKey(documentId: string): string {
  return Buffer.from(documentId, 'utf8').toString('base64url');
}

/**
 * Replaces a document's chunks with these, then lists it as searchable. Idempotent: chunk ids are
 * positional, so a retried ingest overwrites the same ids and deletes any left over from a longer
 * earlier version. The catalogue is updated last, so a listed document always has its chunks.
 */
export async function storeChunks(
  connection: Connection,
  ownerId: string,
  documentId: string,
  documentName: string,
  chunks: ChunkToStore[],
  embeddings?: number[][] | null,
): Promise<{ version: number }> {
  if (embeddings && embeddings.length !== chunks.length) {
    throw new Error(`storeChunks: ${embeddings.length} embeddings for ${chunks.length} chunks`);
  }
  const models = documentChunkModels(connection);
  const createdAt = new Date();
  if (chunks.length) {
    await models.chunks.bulkWrite(
      chunks.map((chunk, i) => {
        const record: DocumentChunkRecord = {
          _id: chunkId(documentId, chunk.index),
          ownerId,
          documentId,
          documentName,
          index: chunk.index,
          heading: chunk.heading,
          text: chunk.text,
          textHash: chunk.textHash,
          createdAt,
        };
        const embedding = embeddings?.[i];
        if (embedding) record.embedding = embedding;
        // The owner in the filter: an id taken by another owner fails on the unique _id instead of being overwritten.
        return { replaceOne: { filter: { _id: record._id, ownerId }, replacement: record, upsert: true } };
      }),
      { ordered: false },
    );
  }
  await models.chunks.deleteMany({ ownerId, documentId, index: { $gte: chunks.length } });
  const catalogue = await models.catalogues
    .findOneAndUpdate(
      { _id: ownerId },
      {
        $addToSet: { documents: documentId },
        $set: { [`revisions.${revisionKey(documentId)}`]: randomUUID(), updatedAt: new Date() },
        $inc: { version: 1 },
      },
      { upsert: true, returnDocument: 'after', projection: { version: 1 } },
    )
    .lean();
  return { version: catalogue?.version ?? 0 };
}

/**
 * Makes a document unsearchable, then deletes its chunks (in that order, so no reader sees a listed
 * document without chunks). Removing an unknown document is not an error.
 */
export async function removeDocumentChunks(
  connection: Connection,
  ownerId: string,
  documentId: string,
): Promise<{ removed: number; version: number }> {
  const models = documentChunkModels(connection);
  const catalogue = await models.catalogues
    .findOneAndUpdate(
      { _id: ownerId },
      {
        $pull: { documents: documentId },
        $unset: { [`revisions.${revisionKey(documentId)}`]: '' },
        $set: { updatedAt: new Date() },
        $inc: { version: 1 },
      },
      { returnDocument: 'after', projection: { version: 1 } },
    )
    .lean();
  const { deletedCount } = await models.chunks.deleteMany({ ownerId, documentId });
  return { removed: deletedCount, version: catalogue?.version ?? 0 };
}

/** The owner's searchable documents; version 0 and none for an owner who never stored one. */
export async function readCatalogue(connection: Connection, ownerId: string): Promise<Catalogue> {
  const record = await documentChunkModels(connection).catalogues.findOne({ _id: ownerId }).lean();
  if (!record) return { version: 0, documents: new Map() };
  const revisions = record.revisions ?? {};
  return {
    version: record.version,
    documents: new Map(record.documents.map((documentId) => [documentId, revisions[revisionKey(documentId)] ?? ''])),
  };
}

/** The chunks of these documents of this owner, in document order. */
export async function readChunks(connection: Connection, ownerId: string, documentIds: string[]): Promise<DocumentChunkRecord[]> {
  if (!documentIds.length) return [];
  return documentChunkModels(connection)
    .chunks.find({ ownerId, documentId: { $in: documentIds } })
    .sort({ documentId: 1, index: 1 })
    .lean();
}

/** Only the embeddings of these documents' chunks (for an index loaded from a snapshot, which holds none). */
export async function readEmbeddings(
  connection: Connection,
  ownerId: string,
  documentIds: string[],
): Promise<Array<{ _id: string; embedding: number[] }>> {
  if (!documentIds.length) return [];
  const records = await documentChunkModels(connection)
    .chunks.find({ ownerId, documentId: { $in: documentIds }, embedding: { $exists: true } }, { embedding: 1 })
    .lean();
  return records.filter((record) => Array.isArray(record.embedding)).map((record) => ({ _id: record._id, embedding: record.embedding! }));
}
