/**
 * Makes one uploaded document searchable: parse → chunk → embed (when a model is configured) → store.
 * A file that cannot be read fails with DocumentParseError before anything is written; an embedding
 * model that fails does not fail the upload: the document is stored for keyword search and the
 * result says why it has no embeddings. Re-running an ingest replaces the document's chunks.
 */
import type { Connection } from 'mongoose';
import { storeChunks } from '../../models/document-chunk.js';
import { chunkText, countWords, normalisedTextHash, type ChunkingOptions, type TextChunk } from './chunking.js';
import type { Embedder } from './embeddings.js';
import { parseDocument, type DocumentFormat } from './parse.js';

export type IngestStage = 'parsing' | 'chunking' | 'embedding' | 'storing';

export interface IngestProgress {
  message: string;
  /** For stages that count: chunks embedded so far, of `total`. */
  done?: number;
  total?: number;
}

export interface IngestInput {
  ownerId: string;
  documentId: string;
  name: string;
  contentType?: string;
  bytes: Uint8Array;
}

export interface IngestOptions {
  embedder?: Embedder | null;
  onProgress?(stage: IngestStage, detail: IngestProgress): void;
  signal?: AbortSignal;
  chunking?: ChunkingOptions;
}

export interface IngestResult {
  format: DocumentFormat;
  pages?: number;
  chunkCount: number;
  words: number;
  embedded: boolean;
  embeddingError?: string;
}

/** Texts per embedding request: well inside providers' per-request limits. */
export const EMBEDDING_BATCH_SIZE = 64;

export async function ingestDocument(connection: Connection, input: IngestInput, options: IngestOptions = {}): Promise<IngestResult> {
  const { signal, onProgress } = options;
  signal?.throwIfAborted();
  onProgress?.('parsing', { message: `Reading ${input.name}` });
  const parsed = await parseDocument({ name: input.name, contentType: input.contentType, bytes: input.bytes });

  signal?.throwIfAborted();
  onProgress?.('chunking', { message: `Splitting ${input.name} into passages` });
  const chunks = chunkText(parsed.text, parsed.format, options.chunking);

  let embeddings: number[][] | null = null;
  let embeddingError: string | undefined;
  if (options.embedder && chunks.length) {
    try {
      embeddings = await embedChunks(options.embedder, chunks, signal, onProgress);
    } catch (error) {
      if (signal?.aborted) throw error;
      embeddingError = `${options.embedder.name}: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  signal?.throwIfAborted();
  onProgress?.('storing', { message: `Saving ${chunks.length} passages`, done: 0, total: chunks.length });
  await storeChunks(connection, input.ownerId, input.documentId, input.name, chunks.map((chunk) => ({ ...chunk, textHash: normalisedTextHash(chunk.text) })), embeddings);

  return {
    format: parsed.format,
    ...(parsed.pages === undefined ? {} : { pages: parsed.pages }),
    chunkCount: chunks.length,
    words: countWords(parsed.text),
    embedded: embeddings !== null,
    ...(embeddingError === undefined ? {} : { embeddingError }),
  };
}

/** What is embedded for a chunk: its heading gives the passage its subject ("Strengths" of whom). */
export function embeddingInput(chunk: TextChunk): string {
  return chunk.heading ? `${chunk.heading}\n\n${chunk.text}` : chunk.text;
}

async function embedChunks(
  embedder: Embedder,
  chunks: TextChunk[],
  signal: AbortSignal | undefined,
  onProgress: IngestOptions['onProgress'],
): Promise<number[][]> {
  const vectors: number[][] = [];
  onProgress?.('embedding', { message: `Embedding ${chunks.length} passages`, done: 0, total: chunks.length });
  for (let start = 0; start < chunks.length; start += EMBEDDING_BATCH_SIZE) {
    signal?.throwIfAborted();
    const batch = chunks.slice(start, start + EMBEDDING_BATCH_SIZE);
    const embedded = await embedder.embed(batch.map(embeddingInput), signal);
    if (embedded.length !== batch.length) throw new Error(`returned ${embedded.length} vectors for ${batch.length} passages`);
    vectors.push(...embedded);
    onProgress?.('embedding', { message: `Embedded ${vectors.length} of ${chunks.length} passages`, done: vectors.length, total: chunks.length });
  }
  return vectors;
}
