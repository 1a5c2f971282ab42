/**
 * What retrieval found of the six fields a report expects, and how sure that makes the run
 * (spec FR-04: low under 30 %, high over 70 %). Low confidence is a warning, not a stop.
 */
import type { Confidence, Coverage, ExpectedField } from './scouting-api.js';

const FIELD_LABELS: Record<ExpectedField, string> = {
  positions: 'Positions',
  teams: 'Teams',
  height: 'Height',
  weight: 'Weight',
  strengths: 'Strengths',
  weaknesses: 'Weaknesses',
};

const CONFIDENCE_LABELS: Record<Confidence, string> = { low: 'low', med: 'medium', high: 'high' };

export function CoverageReport({ coverage }: { coverage: Coverage }) {
  return (
    <section class="panel" aria-labelledby="coverage-title" data-testid="coverage-report">
      <h2 id="coverage-title">Coverage</h2>
      <p>
        Confidence{' '}
        <strong class={coverage.confidence === 'low' ? 'warn' : coverage.confidence === 'high' ? 'ok' : undefined} data-testid="coverage-confidence">
          {CONFIDENCE_LABELS[coverage.confidence]}
        </strong>{' '}
        from {coverage.chunk_count} {coverage.chunk_count === 1 ? 'passage' : 'passages'} of your documents.
      </p>
      <div class="coverage-fields">
        <div>
          <h3 id="coverage-found">Found</h3>
          <ul class="chips" aria-labelledby="coverage-found">
            {coverage.found.length ? coverage.found.map((field) => <li class="chip coverage-found" key={field}>✓ {FIELD_LABELS[field] ?? field}</li>) : <li class="muted">nothing</li>}
          </ul>
        </div>
        <div>
          <h3 id="coverage-missing">Missing</h3>
          <ul class="chips" aria-labelledby="coverage-missing">
            {coverage.missing.length ? coverage.missing.map((field) => <li class="chip coverage-missing" key={field}>✗ {FIELD_LABELS[field] ?? field}</li>) : <li class="muted">nothing</li>}
          </ul>
        </div>
      </div>
    </section>
  );
}
