/**
 * A document as its actor keeps it: what was uploaded (name, type, size, content hash), where its
 * ingestion stands, and what it produced. The bytes themselves are not kept: the chunks are.
 */
export type DocumentStatus = 'queued' | 'indexed' | 'failed' | 'deleted';

export interface DocumentState {
  document_id: string;
  status: DocumentStatus;
  name: string | null;
  content_type: string | null;
  format: 'text' | 'markdown' | 'pdf' | null;
  sha256: string | null;
  size: number | null;
  pages: number | null;
  chunk_count: number;
  words: number;
  /** Why it failed, for a person. */
  reason: string | null;
  /** Vectors were stored with the chunks (EMBEDDINGS_PROVIDER), or why not. */
  embedded: boolean;
  embedding_error: string | null;
  /** How many times this content was uploaded (a re-upload is not indexed again). */
  uploads: number;
  created_at: string | null;
  indexed_at: string | null;
  ingest_ms: number | null;
}

export const initialDocument = (id: string): DocumentState => ({
  document_id: id,
  status: 'queued',
  name: null,
  content_type: null,
  format: null,
  sha256: null,
  size: null,
  pages: null,
  chunk_count: 0,
  words: 0,
  reason: null,
  embedded: false,
  embedding_error: null,
  uploads: 0,
  created_at: null,
  indexed_at: null,
  ingest_ms: null,
});

/** What the owner sees; a deleted document is gone (404). */
export function documentView(state: DocumentState) {
  if (state.status === 'deleted') return undefined;
  const { embedding_error, ...rest } = state;
  return { ...rest, ...(embedding_error ? { embedding_error } : {}) };
}
