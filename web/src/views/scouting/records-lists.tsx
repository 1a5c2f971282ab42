/**
 * The lists of what scouting made: your runs (GET /scouting/runs), your saved players (GET /players,
 * searchable by name and sport), and your saved reports (GET /reports).
 */
import { useState } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';
import { useAsync } from '../../components/use-async.js';
import { hrefOf } from '../../route.js';
import { formatDate, listPlayers, listReports, listRuns, SPORT_LABELS, sportLabel, STATUS_LABELS, type RunSummary, type Sport } from './scouting-api.js';
import { ScrollBox } from '../../components/scroll-box.js';

export function RunsTable({ caption, runs, empty }: { caption: string; runs: RunSummary[]; empty: string }) {
  if (!runs.length) return <p class="muted">{empty}</p>;
  return (
    <ScrollBox label={caption}>
      <table aria-label={caption} data-testid="runs-table">
        <thead>
          <tr>
            <th scope="col">Player</th>
            <th scope="col">Status</th>
            <th scope="col">Started</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.run_id} data-run-id={run.run_id}>
              <td>
                <a href={hrefOf('scouting', run.run_id)}>{run.player_name ?? 'Unnamed player'}</a>
                {run.sport ? <span class="muted"> · {sportLabel(run.sport)}</span> : null}
              </td>
              <td>
                {STATUS_LABELS[run.status] ?? run.status}
                {run.status === 'completed' ? (run.saved ? <span class="ok"> · saved</span> : <span class="muted"> · not saved</span>) : null}
              </td>
              <td>{formatDate(run.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

export function RecentRuns() {
  const runs = useAsync((signal) => listRuns(signal), []);
  return (
    <section aria-labelledby="runs-title">
      <h2 id="runs-title">Your runs</h2>
      <ErrorNote error={runs.error} />
      {runs.data ? <RunsTable caption="Your scouting runs" runs={runs.data} empty="No runs yet." /> : runs.loading ? <p role="status">Loading your runs…</p> : null}
    </section>
  );
}

export function PlayersList() {
  const [q, setQ] = useState('');
  const [sport, setSport] = useState('');
  const [filter, setFilter] = useState({ q: '', sport: '' });
  const players = useAsync((signal) => listPlayers(filter, signal), [filter.q, filter.sport]);
  const search = (event: Event) => {
    event.preventDefault();
    setFilter({ q: q.trim(), sport });
  };
  const rows = players.data ?? [];
  return (
    <section aria-labelledby="players-title">
      <h2 id="players-title">Players</h2>
      <form class="row" role="search" aria-label="Search players" onSubmit={search}>
        <div>
          <label for="players-q">Name</label>
          <input id="players-q" type="search" maxLength={200} value={q} onInput={(e) => setQ(e.currentTarget.value)} />
        </div>
        <div>
          <label for="players-sport">Sport</label>
          <select id="players-sport" value={sport} onChange={(e) => setSport(e.currentTarget.value)}>
            <option value="">Any sport</option>
            {(Object.keys(SPORT_LABELS) as Sport[]).map((value) => (
              <option key={value} value={value}>
                {SPORT_LABELS[value]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Search</button>
      </form>
      <ErrorNote error={players.error} />
      {rows.length ? (
        <ScrollBox label="Your saved players">
          <table aria-label="Your saved players" data-testid="players-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Sport</th>
                <th scope="col">Positions</th>
                <th scope="col">Teams</th>
                <th scope="col">Saved</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((player) => (
                <tr key={player._id} data-player-id={player._id}>
                  <td>
                    <a href={hrefOf('scouting', 'player', player._id)}>{player.display_name}</a>
                  </td>
                  <td>{sportLabel(player.sport)}</td>
                  <td>{player.positions?.join(', ') || '—'}</td>
                  <td>{player.teams?.join(', ') || '—'}</td>
                  <td>{formatDate(player.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      ) : players.loading ? (
        <p role="status">Loading your players…</p>
      ) : (
        <p class="muted">{filter.q || filter.sport ? 'No saved player matches.' : 'No saved players yet: approve one at gate B of a run.'}</p>
      )}
    </section>
  );
}

export function ReportsList() {
  const reports = useAsync((signal) => listReports(signal), []);
  const rows = reports.data ?? [];
  return (
    <section aria-labelledby="reports-title">
      <h2 id="reports-title">Reports</h2>
      <p class="muted">The reports of the players you approved, newest first.</p>
      <ErrorNote error={reports.error} />
      {reports.loading && !reports.data ? <p role="status">Loading your reports…</p> : null}
      {reports.data && !rows.length ? <p class="muted">No saved reports yet: approve a player at the second gate of a run.</p> : null}
      {rows.length ? (
        <ScrollBox label="Your reports">
          <table aria-label="Your saved reports" data-testid="reports-table">
            <thead>
              <tr>
                <th scope="col">Player</th>
                <th scope="col">Confidence</th>
                <th scope="col">Saved</th>
                <th scope="col">Run</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((report) => (
                <tr key={report._id} data-report-id={report._id} data-run-id={report.run_id}>
                  <td>
                    <a href={hrefOf('scouting', 'report', report._id)}>{report.player_name ?? 'Unnamed player'}</a>
                    {report.sport ? <span class="muted"> · {sportLabel(report.sport)}</span> : null}
                  </td>
                  <td>{report.coverage?.confidence ?? '—'}</td>
                  <td>{formatDate(report.created_at)}</td>
                  <td>
                    <a href={hrefOf('scouting', report.run_id)}>the run</a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      ) : null}
    </section>
  );
}
