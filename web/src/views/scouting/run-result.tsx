/** A finished run: what happened (saved, rejected, declined, save failed) and the final report. */
import { hrefOf } from '../../route.js';
import { PlayerCard } from './player-card.js';
import { ReportMarkdown } from './report-markdown.js';
import type { RunResult as Result } from './scouting-api.js';

export function RunResult({ result }: { result: Result }) {
  return (
    <section aria-labelledby="result-title" data-testid="run-result" data-outcome={result.outcome}>
      <h2 id="result-title">Final report</h2>
      <p class={result.saved ? 'ok' : result.outcome === 'save_failed' ? 'error' : undefined} data-testid="run-outcome">
        {result.message}
      </p>
      {result.saved && result.player_record_id ? (
        <p class="row">
          <a href={hrefOf('scouting', 'player', result.player_record_id)}>Open the saved player</a>
          {result.report_id ? <a href={hrefOf('scouting', 'report', result.report_id)}>Open the saved report</a> : null}
        </p>
      ) : null}
      {result.player_fields ? (
        <details>
          <summary>Player card</summary>
          <PlayerCard fields={result.player_fields} />
        </details>
      ) : null}
      {result.scouting_report ? (
        <article class="panel report-panel" aria-label="Scouting report">
          <ReportMarkdown text={result.scouting_report} />
        </article>
      ) : (
        <p class="muted">No report was written.</p>
      )}
    </section>
  );
}
