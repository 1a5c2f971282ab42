/** Evidence merging (spec FR-04): deduplication, the 40-chunk budget, coverage and confidence. */
import { expect } from 'chai';
import fc from 'fast-check';
import { normalisedTextHash as textHash } from '../../../actors/documents/chunking.js';
import { confidenceFor, coverageOf, mergeEvidence } from '../../../actors/scouting/evidence.js';
import { LIMITS, type EvidenceChunk, type QueryHits } from '../../../actors/scouting/schemas.js';

function chunk(doc: string, index: number, text: string, score = 1, heading: string | null = null): EvidenceChunk {
  return { doc_id: doc, chunk_id: `${doc}#${index}`, document_name: `${doc}.md`, heading, text, score, queries: [] };
}

/** `count` distinct chunks of one document, scores falling from `top`. */
function hits(doc: string, count: number, top = 1): EvidenceChunk[] {
  return Array.from({ length: count }, (_, i) => chunk(doc, i, `Passage ${i} of ${doc} about something different.`, top - i * 0.001));
}

const keyOf = (c: EvidenceChunk): string => `${c.doc_id}|${c.chunk_id}`;

describe('scouting evidence (spec FR-04)', function () {
  describe('test_chunk_deduplication', function () {
    it('merges the same doc_id + chunk_id found by several queries: queries joined, best score kept', function () {
      const a = chunk('d1', 0, 'Ellery is 6-8.', 0.4);
      const merged = mergeEvidence([
        { query: 'q1', hits: [a] },
        { query: 'q2', hits: [{ ...a, score: 0.9 }] },
        { query: 'q3', hits: [{ ...a, score: 0.1 }] },
      ]);
      expect(merged).to.have.length(1);
      expect(merged[0]).to.deep.include({ chunk_id: 'd1#0', score: 0.9, queries: ['q1', 'q2', 'q3'] });
    });

    it('falls back to the normalised text hash for the same passage in another document', function () {
      const merged = mergeEvidence([
        { query: 'q1', hits: [chunk('d1', 0, 'Ellery excels at spot-up shooting.', 0.5)] },
        { query: 'q2', hits: [chunk('d2', 7, '  ellery EXCELS at spot-up   shooting ', 0.8), chunk('d2', 8, 'Something else.', 0.3)] },
      ]);
      expect(merged.map((c) => c.chunk_id)).to.deep.equal(['d1#0', 'd2#8']);
      expect(merged[0]).to.deep.include({ score: 0.8, queries: ['q1', 'q2'] });
      expect(textHash('A b, c!')).to.equal(textHash('a   B c'));
      expect(textHash('a b c')).not.to.equal(textHash('a b d'));
    });

    it('never returns a chunk twice, whatever the duplicates', function () {
      const pool = [...hits('d1', 6), ...hits('d2', 6)];
      fc.assert(
        fc.property(fc.array(fc.array(fc.nat({ max: pool.length - 1 }), { maxLength: 20 }), { maxLength: 8 }), (picks) => {
          const results: QueryHits[] = picks.map((indexes, q) => ({ query: `q${q}`, hits: indexes.map((i) => ({ ...pool[i]!, score: Math.random() })) }));
          const merged = mergeEvidence(results);
          expect(new Set(merged.map(keyOf)).size).to.equal(merged.length);
          expect(new Set(merged.map((c) => textHash(c.text))).size).to.equal(merged.length);
          expect(merged.length).to.equal(new Set(picks.flat()).size);
        }),
      );
    });

    it('does not change the hits it was given', function () {
      const a = chunk('d1', 0, 'text', 0.2);
      mergeEvidence([{ query: 'q1', hits: [a] }, { query: 'q2', hits: [{ ...a, score: 0.9 }] }]);
      expect(a).to.deep.include({ score: 0.2, queries: [] });
    });
  });

  describe('test_chunk_budget_enforced', function () {
    it('passes at most 40 chunks downstream, even when asked for more', function () {
      const results = Array.from({ length: 6 }, (_, q) => ({ query: `q${q}`, hits: hits(`doc${q}`, 20) }));
      expect(mergeEvidence(results)).to.have.length(LIMITS.maxChunks);
      expect(mergeEvidence(results, 1000)).to.have.length(LIMITS.maxChunks);
      expect(mergeEvidence(results, 12)).to.have.length(12);
      expect(mergeEvidence(results, 0)).to.have.length(0);
    });

    it('lets every query contribute before the budget runs out (round robin)', function () {
      const results = [
        { query: 'flood', hits: hits('big', 100, 10) },
        { query: 'rare', hits: hits('small', 3, 0.2) },
        { query: 'dupes', hits: [...hits('big', 5, 10), chunk('other', 0, 'Unique passage.', 0.1)] },
      ];
      const merged = mergeEvidence(results);
      expect(merged).to.have.length(40);
      expect(merged.filter((c) => c.doc_id === 'small')).to.have.length(3);
      expect(merged.some((c) => c.doc_id === 'other')).to.equal(true);
      expect(merged[0]!.queries).to.include.members(['flood', 'dupes']);
    });

    it('orders the result by score, best first', function () {
      const merged = mergeEvidence([{ query: 'a', hits: hits('d1', 5, 0.5) }, { query: 'b', hits: hits('d2', 5, 0.9) }]);
      const scores = merged.map((c) => c.score);
      expect(scores).to.deep.equal([...scores].sort((x, y) => y - x));
    });
  });

  describe('coverage and confidence', function () {
    it('applies the spec’s thresholds to found/6: low < 30 %, med 30–70 %, high > 70 %', function () {
      expect([0, 1, 2, 3, 4, 5, 6].map((n) => confidenceFor(n / 6))).to.deep.equal(['low', 'low', 'med', 'med', 'med', 'high', 'high']);
      expect(confidenceFor(0.3)).to.equal('med');
      expect(confidenceFor(0.7)).to.equal('med');
      expect(confidenceFor(0.29)).to.equal('low');
      expect(confidenceFor(0.71)).to.equal('high');
    });

    it('finds each expected field from chunks about the player', function () {
      const chunks = [
        chunk('d1', 0, 'Jordan Pike plays point guard for the Harbor City Comets.'),
        chunk('d1', 1, 'Pike is listed at 6-2 and 190 lbs.'),
        chunk('d1', 2, 'Pike excels at pushing the pace in transition.'),
      ];
      expect(coverageOf(chunks, 'Jordan Pike')).to.deep.equal({ found: ['positions', 'teams', 'height', 'weight', 'strengths'], missing: ['weaknesses'], confidence: 'high', chunk_count: 3 });
      const more = [...chunks, chunk('d2', 0, 'Pike struggles with turnovers against pressure.')];
      expect(coverageOf(more, 'Jordan Pike').confidence).to.equal('high');
      expect(coverageOf(more, 'Jordan Pike').missing).to.deep.equal([]);
    });

    it('ignores chunks about someone else', function () {
      const chunks = [chunk('d1', 0, 'Theo Vance stands 6-11 and weighs 245 pounds.'), chunk('d1', 1, 'Jordan Pike plays point guard.')];
      const coverage = coverageOf(chunks, 'Jordan Pike');
      expect(coverage).to.deep.equal({ found: ['positions'], missing: ['teams', 'height', 'weight', 'strengths', 'weaknesses'], confidence: 'low', chunk_count: 2 });
    });

    it('reports low confidence and everything missing for no evidence', function () {
      expect(coverageOf([], 'Jordan Pike')).to.deep.equal({ found: [], missing: ['positions', 'teams', 'height', 'weight', 'strengths', 'weaknesses'], confidence: 'low', chunk_count: 0 });
    });

    it('gives med for two or three of six fields', function () {
      const chunks = [chunk('d1', 0, 'Jordan Pike: Height: 6\'2" Weight: 190 lbs')];
      expect(coverageOf(chunks, 'Jordan Pike')).to.include({ confidence: 'med' });
    });
  });
});
