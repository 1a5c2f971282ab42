/** A saved player with its latest report (GET /players/:id), and one saved report (GET /reports/:id). */
import { ErrorNote } from '../../components/error-note.js';
import { useAsync } from '../../components/use-async.js';
import { hrefOf } from '../../route.js';
import { CoverageReport } from './coverage-report.js';
import { PlayerCard } from './player-card.js';
import { ReportMarkdown } from './report-markdown.js';
import { formatDate, getPlayer, getReport } from './scouting-api.js';

export function PlayerPage({ playerId }: { playerId: string }) {
  const found = useAsync((signal) => getPlayer(playerId, signal), [playerId]);
  const player = found.data?.player;
  const report = found.data?.latest_report;
  return (
    <>
      <h1>{player ? player.display_name : 'Player'}</h1>
      <ErrorNote error={found.error} />
      {found.loading && !player ? <p role="status">Loading the player…</p> : null}
      {player ? (
        <>
          <p class="muted">
            Saved {formatDate(player.created_at)} by <a href={hrefOf('scouting', player.run_id)}>its run</a>.
          </p>
          <PlayerCard fields={player} />
          <h2>Latest report</h2>
          {report ? (
            <article class="panel report-panel" aria-label="Latest scouting report">
              <ReportMarkdown text={report.report_text} />
            </article>
          ) : (
            <p class="muted">No report is saved for this player.</p>
          )}
        </>
      ) : null}
    </>
  );
}

export function ReportPage({ reportId }: { reportId: string }) {
  const found = useAsync((signal) => getReport(reportId, signal), [reportId]);
  const report = found.data;
  return (
    <>
      <h1>Scouting report</h1>
      <ErrorNote error={found.error} />
      {found.loading && !report ? <p role="status">Loading the report…</p> : null}
      {report ? (
        <>
          <p class="row">
            <span class="muted">Saved {formatDate(report.created_at)}</span>
            <a href={hrefOf('scouting', 'player', report.player_id)}>Open the player</a>
            <a href={hrefOf('scouting', report.run_id)}>Open the run</a>
          </p>
          {report.request_text ? (
            <p>
              <span class="muted">Request:</span> {report.request_text}
            </p>
          ) : null}
          {report.coverage ? <CoverageReport coverage={report.coverage} /> : null}
          <article class="panel report-panel" aria-label="Scouting report">
            <ReportMarkdown text={report.report_text} />
          </article>
        </>
      ) : null}
    </>
  );
}
