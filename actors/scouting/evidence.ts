/**
 * From per-query hits to the evidence a run uses (spec FR-04): duplicates merged (same chunk, or the
 * same text in another document), every query heard before the 40-chunk budget runs out, and the
 * coverage report with its confidence. Coverage uses extraction's detectors, so "found" means the
 * extraction can read that field from these chunks. Pure.
 */
import { normalisedTextHash } from '../documents/chunking.js';
import { FIELD_DETECTORS, playerSentences } from './extraction.js';
import { EXPECTED_FIELDS, LIMITS, type Confidence, type Coverage, type EvidenceChunk, type QueryHits, type Sport } from './schemas.js';

const chunkKey = (chunk: EvidenceChunk): string => `${chunk.doc_id}\u0000${chunk.chunk_id}`;

/**
 * The deduplicated evidence, best score first, at most `cap` (never more than 40) chunks. Queries take
 * turns (round robin over their ranked hits), so each query's best new chunk is in before any query's
 * second; a duplicate adds its query and keeps the better score.
 */
export function mergeEvidence(results: QueryHits[], cap: number = LIMITS.maxChunks): EvidenceChunk[] {
  const budget = Math.max(0, Math.min(Math.floor(cap), LIMITS.maxChunks));
  const selected: EvidenceChunk[] = [];
  const byKey = new Map<string, EvidenceChunk>();
  const byText = new Map<string, EvidenceChunk>();
  const absorb = (into: EvidenceChunk, hit: EvidenceChunk, query: string): void => {
    into.score = Math.max(into.score, hit.score);
    for (const q of [...hit.queries, query]) if (!into.queries.includes(q)) into.queries.push(q);
  };
  const cursors = results.map(() => 0);
  let pending = true;
  while (pending) {
    pending = false;
    results.forEach((result, r) => {
      // Each query advances past hits that turn out to be duplicates until it adds one new chunk.
      while (cursors[r]! < result.hits.length) {
        const hit = result.hits[cursors[r]!]!;
        cursors[r]! += 1;
        const hash = normalisedTextHash(hit.text);
        const same = byKey.get(chunkKey(hit)) ?? byText.get(hash);
        if (same) {
          absorb(same, hit, result.query);
          continue;
        }
        if (selected.length >= budget) continue;
        const chunk: EvidenceChunk = { ...hit, queries: [] };
        absorb(chunk, hit, result.query);
        selected.push(chunk);
        byKey.set(chunkKey(chunk), chunk);
        byText.set(hash, chunk);
        break;
      }
      if (cursors[r]! < result.hits.length) pending = true;
    });
  }
  return selected
    .map((chunk, order) => ({ chunk, order }))
    .sort((a, b) => b.chunk.score - a.chunk.score || a.order - b.order)
    .map(({ chunk }) => chunk);
}

/** The spec's thresholds on found/expected: low under 30 %, high over 70 %, med between. */
export function confidenceFor(ratio: number): Confidence {
  if (ratio < 0.3) return 'low';
  if (ratio > 0.7) return 'high';
  return 'med';
}

/** Which expected fields the chunks hold evidence for, about this player, and how confident that makes the run. */
export function coverageOf(chunks: EvidenceChunk[], player_name: string, sport: Sport = 'unknown'): Coverage {
  const sentences = playerSentences(chunks, player_name);
  const found = EXPECTED_FIELDS.filter((field) => sentences.some((sentence) => FIELD_DETECTORS[field](sentence, sport, player_name)));
  return {
    found,
    missing: EXPECTED_FIELDS.filter((field) => !found.includes(field)),
    confidence: confidenceFor(found.length / EXPECTED_FIELDS.length),
    chunk_count: chunks.length,
  };
}
