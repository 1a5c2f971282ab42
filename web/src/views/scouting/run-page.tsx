/**
 * One run (#/scouting/<runId>): where it stands, the progress streamed by this browser, and the gate
 * it waits at (which player, the plan, the player to save) or its final report.
 */
import { useEffect } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';
import { StreamStatusBadge } from '../../components/stream-status.js';
import { ClarificationGate } from './clarification-gate.js';
import { CoverageReport } from './coverage-report.js';
import { PlanGate } from './plan-gate.js';
import { PlayerGate } from './player-gate.js';
import { RunResult } from './run-result.js';
import { sportLabel, STATUS_LABELS } from './scouting-api.js';
import type { RunActions, RunSession } from './use-run-session.js';

function ProgressLog({ session }: { session: RunSession }) {
  if (!session.progress.length && !session.working) return null;
  return (
    <section aria-labelledby="progress-title">
      <h2 id="progress-title">Progress</h2>
      <ol class="run-progress" data-testid="run-progress" aria-live="polite">
        {session.progress.map((line) => (
          <li key={line.key}>
            <span class="run-step">{line.step}</span> {line.message}
          </li>
        ))}
      </ol>
      {session.working ? (
        <p class="muted" role="status">
          Working…
        </p>
      ) : null}
    </section>
  );
}

export function RunPage({ runId, session, actions }: { runId: string; session: RunSession; actions: RunActions }) {
  useEffect(() => actions.open(runId), [runId]);
  const view = session.runId === runId ? session.view : undefined;
  const gate = view?.pending_gate ?? null;
  const coverage = session.coverage ?? view?.coverage ?? null;
  const warnings = [...new Set([...(view?.warnings ?? []), ...session.warnings])];
  // While an answer streams its gate stays, disabled, so a refused answer keeps what was typed.
  const busy = session.working;

  return (
    <>
      <h1>Scouting run{view?.player_name ? `: ${view.player_name}` : ''}</h1>
      {view ? (
        <p class="run-head">
          <span>
            Status:{' '}
            <strong data-testid="run-status" data-status={view.status}>
              {STATUS_LABELS[view.status] ?? view.status}
            </strong>
          </span>
          {view.sport ? <span class="muted">Sport: {sportLabel(view.sport)}</span> : null}
          <StreamStatusBadge status={busy ? session.streamStatus : undefined} />
          {busy ? null : (
            <button type="button" class="secondary small" onClick={actions.reload}>
              Refresh
            </button>
          )}
        </p>
      ) : session.loading || busy ? (
        <p role="status">{busy ? 'Starting the run…' : 'Loading the run…'}</p>
      ) : null}
      {view?.request ? (
        <p>
          <span class="muted">Request:</span> {view.request}
        </p>
      ) : null}
      <ErrorNote error={session.error} />
      {warnings.map((warning) => (
        <p class="warn" role="note" key={warning}>
          ⚠ {warning}
        </p>
      ))}
      <ProgressLog session={session} />
      {coverage ? <CoverageReport coverage={coverage} /> : null}
      {gate?.gate === 'clarification' ? <ClarificationGate key={gate.since} message={gate.message} busy={busy} onAnswer={actions.resume} /> : null}
      {gate?.gate === 'plan_approval' ? <PlanGate key={gate.since} proposal={gate} busy={busy} onAnswer={actions.resume} /> : null}
      {gate?.gate === 'player_approval' ? <PlayerGate key={gate.since} proposal={gate} busy={busy} onAnswer={actions.resume} /> : null}
      {view?.status === 'expired' ? <p class="warn">This run waited too long at its gate and expired; start a new one.</p> : null}
      {view?.result ? <RunResult result={view.result} /> : null}
    </>
  );
}
