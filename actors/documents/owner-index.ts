/**
 * Each process keeps the search indexes of recently active owners in memory and brings one up to date
 * on use: one small read of the owner's catalogue says whether anything changed; if so, only the
 * documents added or replaced since are read and indexed, and removed ones dropped. A process that has
 * no copy yet starts from the saved snapshot, when there is one, rather than from every chunk.
 */
import type { Connection } from 'mongoose';
import { chunkId, readCatalogue, readChunks, readEmbeddings, type Catalogue, type DocumentChunkRecord } from '../../models/document-chunk.js';
import {
  loadSearchIndexSnapshot,
  saveSearchIndexSnapshot,
  searchIndexSnapshotVersion,
  type CoveredDocument,
} from '../../models/search-index.js';
import { addChunks, createIndex, indexFromJSON, removeDocument, type ChunkIndex, type IndexedChunk } from './bm25.js';

export interface OwnerIndex {
  index: ChunkIndex;
  /** Chunk id → embedding, for the chunks that have one. */
  vectors: Map<string, number[]>;
  /** The catalogue version the index reflects. */
  version: number;
  /** Searchable documents. */
  documents: number;
}

interface OwnerState {
  index: ChunkIndex;
  vectors: Map<string, number[]>;
  version: number;
  documents: Map<string, { revision: string; chunks: number }>;
}

/** Enough for the owners active at once on one process; an evicted owner reloads from its snapshot. */
export const DEFAULT_CACHED_OWNERS = 50;

export class OwnerIndexes {
  /** Insertion order is recency order: a use moves the owner to the end, eviction takes the front. */
  private readonly cache = new Map<string, OwnerState>();
  private readonly refreshing = new Map<string, Promise<OwnerState>>();

  constructor(
    private readonly connection: Connection,
    private readonly capacity = DEFAULT_CACHED_OWNERS,
  ) {}

  /**
   * The owner's index as of the catalogue now. The state is only changed synchronously, after every
   * read it needs, so a caller holding it never sees a half-applied update.
   */
  async current(ownerId: string): Promise<OwnerIndex> {
    const state = await this.fresh(ownerId);
    return { index: state.index, vectors: state.vectors, version: state.version, documents: state.documents.size };
  }

  /** Saves a snapshot when the stored one is behind the catalogue; true when one was saved. */
  async persist(ownerId: string): Promise<boolean> {
    const state = await this.fresh(ownerId);
    const stored = await searchIndexSnapshotVersion(this.connection, ownerId);
    if (state.version === 0 || (stored !== null && stored >= state.version)) return false;
    // Serialised in one synchronous step, so the JSON and the covered documents describe the same state.
    const documents: CoveredDocument[] = [...state.documents].map(([documentId, { revision, chunks }]) => ({ documentId, revision, chunks }));
    return saveSearchIndexSnapshot(this.connection, ownerId, { version: state.version, documents, json: JSON.stringify(state.index) });
  }

  private async fresh(ownerId: string): Promise<OwnerState> {
    const catalogue = await readCatalogue(this.connection, ownerId);
    const cached = this.touch(ownerId);
    if (cached && cached.version === catalogue.version) return cached;
    // One refresh per owner at a time; a caller arriving meanwhile takes its result if that is recent enough.
    const running = this.refreshing.get(ownerId);
    if (running) {
      const state = await running;
      if (state.version >= catalogue.version) return state;
      return this.fresh(ownerId);
    }
    const refresh = this.refresh(ownerId, catalogue, cached).finally(() => this.refreshing.delete(ownerId));
    this.refreshing.set(ownerId, refresh);
    return refresh;
  }

  private async refresh(ownerId: string, catalogue: Catalogue, cached: OwnerState | undefined): Promise<OwnerState> {
    let base = cached;
    if (!base) {
      base = (await this.loadSnapshot(ownerId)) ?? emptyState();
    } else {
      const saved = await searchIndexSnapshotVersion(this.connection, ownerId);
      if (saved !== null && saved > base.version) base = (await this.loadSnapshot(ownerId)) ?? base;
    }

    const outdated = [...base.documents].filter(([id, held]) => catalogue.documents.get(id) !== held.revision).map(([id]) => id);
    const wanted = [...catalogue.documents].filter(([id, revision]) => base.documents.get(id)?.revision !== revision).map(([id]) => id);
    const records = await readChunks(this.connection, ownerId, wanted);

    try {
      for (const documentId of outdated) {
        const held = base.documents.get(documentId)!;
        const ids = Array.from({ length: held.chunks }, (_, i) => chunkId(documentId, i));
        removeDocument(base.index, documentId, ids);
        for (const id of ids) base.vectors.delete(id);
        base.documents.delete(documentId);
      }
      addChunks(base.index, records.map(indexedChunk));
      const counts = new Map<string, number>();
      for (const record of records) {
        counts.set(record.documentId, (counts.get(record.documentId) ?? 0) + 1);
        if (record.embedding?.length) base.vectors.set(record._id, record.embedding);
      }
      for (const documentId of wanted) {
        base.documents.set(documentId, { revision: catalogue.documents.get(documentId)!, chunks: counts.get(documentId) ?? 0 });
      }
      base.version = catalogue.version;
    } catch (error) {
      // A half-applied update must not be served: the next call starts over from the snapshot.
      this.cache.delete(ownerId);
      throw error;
    }
    this.remember(ownerId, base);
    return base;
  }

  /** The saved index and the embeddings of its chunks; null when there is none or it cannot be read. */
  private async loadSnapshot(ownerId: string): Promise<OwnerState | null> {
    const snapshot = await loadSearchIndexSnapshot(this.connection, ownerId);
    if (!snapshot) return null;
    let index: ChunkIndex;
    try {
      index = indexFromJSON(snapshot.json);
    } catch {
      // A snapshot that does not load is only a lost shortcut: the index is rebuilt from the chunks.
      return null;
    }
    const documents = new Map(snapshot.documents.map((d) => [d.documentId, { revision: d.revision, chunks: d.chunks }]));
    const vectors = new Map<string, number[]>();
    for (const { _id, embedding } of await readEmbeddings(this.connection, ownerId, [...documents.keys()])) {
      // Embeddings written after the snapshot may belong to chunks it lacks; those come with their document.
      if (index.has(_id)) vectors.set(_id, embedding);
    }
    return { index, vectors, version: snapshot.version, documents };
  }

  private touch(ownerId: string): OwnerState | undefined {
    const state = this.cache.get(ownerId);
    if (state) {
      this.cache.delete(ownerId);
      this.cache.set(ownerId, state);
    }
    return state;
  }

  private remember(ownerId: string, state: OwnerState): void {
    this.cache.delete(ownerId);
    this.cache.set(ownerId, state);
    while (this.cache.size > this.capacity) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
    }
  }
}

function emptyState(): OwnerState {
  return { index: createIndex(), vectors: new Map(), version: 0, documents: new Map() };
}

function indexedChunk(record: DocumentChunkRecord): IndexedChunk {
  return { id: record._id, doc_id: record.documentId, document_name: record.documentName, heading: record.heading ?? null, text: record.text };
}
