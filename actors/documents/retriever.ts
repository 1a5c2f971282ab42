/**
 * Evidence retrieval for a scouting run (spec FR-04): each query searches the owner's documents, and
 * nobody else's. Keyword search (BM25) always runs; with an embedding model, the chunks' embeddings are
 * ranked by similarity too and the two rankings are fused by reciprocal rank. Semantic search is an
 * improvement, not a dependency: when it cannot run, the result says so and keyword results stand.
 */
import type { Connection } from 'mongoose';
import type { EvidenceChunk, QueryHits } from '../scouting/schemas.js';
import { searchIndex, storedChunk, type IndexedChunk } from './bm25.js';
import { cosine, reciprocalRankFusion, type Embedder } from './embeddings.js';
import { OwnerIndexes, type OwnerIndex } from './owner-index.js';

export interface RetrievalResult {
  /** One entry per query, in the order given. */
  results: QueryHits[];
  mode: 'bm25' | 'hybrid';
  /** Why search was weaker than configured (no embeddings, the embedding model failed), for the user. */
  degraded?: string;
  documents: number;
  chunks: number;
}

export interface RetrieverOptions {
  /** Null or absent: keyword search only. */
  embedder?: Embedder | null;
  /** Share one cache between the retriever and whoever persists snapshots. */
  indexes?: OwnerIndexes;
}

export interface SearchOptions {
  /** Hits per query. Default 12. */
  perQuery?: number;
  signal?: AbortSignal;
}

export const DEFAULT_HITS_PER_QUERY = 12;

/** Each ranker contributes this many candidates per query to the fusion, so a chunk ranked well by one still counts. */
const MIN_FUSION_CANDIDATES = 50;

/** Per query, chunk ids by cosine similarity, best first; null for an empty query. */
type SemanticRankings = Array<string[] | null>;

export class Retriever {
  readonly indexes: OwnerIndexes;
  private readonly embedder: Embedder | null;

  constructor(connection: Connection, options: RetrieverOptions = {}) {
    this.indexes = options.indexes ?? new OwnerIndexes(connection);
    this.embedder = options.embedder ?? null;
  }

  async search(ownerId: string, queries: string[], options: SearchOptions = {}): Promise<RetrievalResult> {
    const { signal } = options;
    const perQuery = options.perQuery ?? DEFAULT_HITS_PER_QUERY;
    signal?.throwIfAborted();
    const owner = await this.indexes.current(ownerId);
    const candidates = Math.max(perQuery * 4, MIN_FUSION_CANDIDATES);
    const semantic = await this.semanticRankings(owner, queries, candidates, signal);

    const results = queries.map((query, i): QueryHits => {
      if (!query.trim()) return { query, hits: [] };
      const keyword = searchIndex(owner.index, query, semantic.rankings ? candidates : perQuery);
      const byVector = semantic.rankings?.[i];
      if (!byVector) {
        return { query, hits: keyword.slice(0, perQuery).map((hit) => evidence(hit, hit.score, query)) };
      }
      const fused = reciprocalRankFusion([keyword.map((hit) => hit.id), byVector]);
      const best = [...fused].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0)).slice(0, perQuery);
      const hits = best.flatMap(([id, score]) => {
        const chunk = storedChunk(owner.index, id);
        return chunk ? [evidence(chunk, score, query)] : [];
      });
      return { query, hits };
    });

    return {
      results,
      mode: semantic.rankings ? 'hybrid' : 'bm25',
      ...(semantic.degraded ? { degraded: semantic.degraded } : {}),
      documents: owner.documents,
      chunks: owner.index.documentCount,
    };
  }

  private async semanticRankings(
    owner: OwnerIndex,
    queries: string[],
    candidates: number,
    signal: AbortSignal | undefined,
  ): Promise<{ rankings: SemanticRankings | null; degraded?: string }> {
    const embedder = this.embedder;
    if (!embedder || owner.index.documentCount === 0) return { rankings: null };
    const keywordOnly = 'so results come from keyword search only';
    if (owner.vectors.size === 0) {
      return { rankings: null, degraded: `The documents have no embeddings (they were indexed without an embedding model), ${keywordOnly}.` };
    }
    const asked = queries.map((query, i) => ({ query: query.trim(), i })).filter(({ query }) => query);
    let embedded: number[][];
    try {
      embedded = await embedder.embed(
        asked.map(({ query }) => query),
        signal,
      );
    } catch (error) {
      if (signal?.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
      return { rankings: null, degraded: `Semantic search failed (${embedder.name}: ${message}), ${keywordOnly}.` };
    }
    const dimensions = embedded[0]?.length ?? 0;
    const comparable = [...owner.vectors].filter(([id, vector]) => vector.length === dimensions && owner.index.has(id));
    if (comparable.length === 0) {
      const stored = owner.vectors.values().next().value?.length ?? 0;
      return {
        rankings: null,
        degraded: `The documents' embeddings (${stored} dimensions) do not match ${embedder.name} (${dimensions} dimensions), ${keywordOnly}.`,
      };
    }
    const rankings: SemanticRankings = queries.map(() => null);
    asked.forEach(({ i }, n) => {
      const query = embedded[n]!;
      rankings[i] = comparable
        .map(([id, vector]) => ({ id, similarity: cosine(query, vector) }))
        .sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, candidates)
        .map(({ id }) => id);
    });
    const unranked = owner.index.documentCount - comparable.length;
    if (unranked > 0) {
      return {
        rankings,
        degraded: `${unranked} of ${owner.index.documentCount} chunks have no usable embeddings and were matched by keyword only.`,
      };
    }
    return { rankings };
  }
}

function evidence(chunk: IndexedChunk, score: number, query: string): EvidenceChunk {
  return {
    doc_id: chunk.doc_id,
    chunk_id: chunk.id,
    document_name: chunk.document_name,
    heading: chunk.heading,
    text: chunk.text,
    score,
    queries: [query],
  };
}
