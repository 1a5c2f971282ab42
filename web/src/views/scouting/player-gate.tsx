/**
 * Gate B: the player the run would save, for approval (spec FR-08): the card, the report's summary
 * and the full report; approve saves, reject returns the report only, and the two edits send the
 * run back (wording: compose again; content: search again) with the feedback.
 */
import { useState } from 'preact/hooks';
import { PlayerCard } from './player-card.js';
import { ReportMarkdown } from './report-markdown.js';
import type { PlayerAction, PlayerFields, ResumePayload } from './scouting-api.js';

const MAX_FEEDBACK_CHARS = 1000;

interface PlayerProposal {
  player_fields: PlayerFields;
  report_summary: string[];
  report_text: string;
  edits_left: number;
}

export function PlayerGate({ proposal, busy, onAnswer }: { proposal: PlayerProposal; busy: boolean; onAnswer: (payload: ResumePayload) => void }) {
  const [feedback, setFeedback] = useState('');
  const [problem, setProblem] = useState<string | undefined>(undefined);

  const answer = (action: PlayerAction) => {
    const said = feedback.trim();
    if ((action === 'edit_wording' || action === 'edit_content') && !said) {
      setProblem('Say what to change in the feedback first.');
      return;
    }
    setProblem(undefined);
    onAnswer({ type: 'player_approval', action, ...(said && action.startsWith('edit_') ? { feedback: said } : {}) });
  };
  const canEdit = proposal.edits_left > 0;

  return (
    <section class="panel gate" aria-labelledby="player-gate-title" data-testid="player-gate">
      <h2 id="player-gate-title">Gate B: save this player?</h2>
      <details open>
        <summary>Player card</summary>
        <PlayerCard fields={proposal.player_fields} />
      </details>
      <h3>Summary</h3>
      <ul data-testid="report-summary">
        {proposal.report_summary.map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ul>
      <details>
        <summary>Full report</summary>
        <div class="panel report-panel">
          <ReportMarkdown text={proposal.report_text} />
        </div>
      </details>
      <label for="player-feedback">Feedback for an edit</label>
      <textarea
        id="player-feedback"
        maxLength={MAX_FEEDBACK_CHARS}
        value={feedback}
        disabled={busy}
        aria-describedby="player-feedback-help"
        onInput={(e) => setFeedback(e.currentTarget.value)}
      />
      <p id="player-feedback-help" class="muted">
        What to change: "edit wording" rewrites the report, "edit content" searches your documents again. {proposal.edits_left}{' '}
        {proposal.edits_left === 1 ? 'edit' : 'edits'} left.
      </p>
      {problem ? (
        <p class="error" role="alert">
          {problem}
        </p>
      ) : null}
      <div class="row">
        <button type="button" disabled={busy} onClick={() => answer('approve')}>
          Approve and save
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => answer('reject')}>
          Reject (report only)
        </button>
        <button type="button" class="secondary" disabled={busy || !canEdit} onClick={() => answer('edit_wording')}>
          Edit wording
        </button>
        <button type="button" class="secondary" disabled={busy || !canEdit} onClick={() => answer('edit_content')}>
          Edit content
        </button>
      </div>
    </section>
  );
}
