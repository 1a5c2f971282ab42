/**
 * Gate A: the drafted plan, for approval. Steps and query hints are editable; an edited plan is sent
 * with the approval and the rest of the run uses it (spec FR-07). Declining stops the run.
 */
import { useState } from 'preact/hooks';
import type { ResumePayload, Sport } from './scouting-api.js';
import { sportLabel } from './scouting-api.js';

/** Input limits of the spec (7.2), also checked by the API. */
const MAX_STEPS = 10;
const MAX_STEP_CHARS = 500;
const MAX_HINTS = 10;
const MAX_HINT_CHARS = 100;

interface PlanProposal {
  player_name: string;
  sport_guess: Sport;
  plan_steps: string[];
  query_hints: string[];
}

const cleaned = (items: string[]) => items.map((item) => item.trim()).filter(Boolean);
const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((item, i) => item === b[i]);

export function PlanGate({ proposal, busy, onAnswer }: { proposal: PlanProposal; busy: boolean; onAnswer: (payload: ResumePayload) => void }) {
  const [steps, setSteps] = useState(proposal.plan_steps);
  const [hints, setHints] = useState(proposal.query_hints);
  const editedSteps = !sameList(cleaned(steps), proposal.plan_steps);
  const editedHints = !sameList(cleaned(hints), proposal.query_hints);

  const update = (list: string[], set: (next: string[]) => void, index: number, value: string) => set(list.map((item, i) => (i === index ? value : item)));
  const remove = (list: string[], set: (next: string[]) => void, index: number) => set(list.filter((_, i) => i !== index));

  const approve = (event: Event) => {
    event.preventDefault();
    onAnswer({
      type: 'plan_approval',
      approved: true,
      ...(editedSteps ? { plan_steps: cleaned(steps) } : {}),
      ...(editedHints ? { query_hints: cleaned(hints) } : {}),
    });
  };

  return (
    <section class="panel gate" aria-labelledby="plan-gate-title" data-testid="plan-gate">
      <h2 id="plan-gate-title">Gate A: approve the plan</h2>
      <p>
        Player <strong data-testid="plan-player">{proposal.player_name}</strong>, sport guess: {sportLabel(proposal.sport_guess)}. Edit the steps and
        the query hints if you like; the run uses what you approve.
      </p>
      <form onSubmit={approve}>
        <fieldset disabled={busy}>
          <legend>Plan steps</legend>
          <ol class="plan-steps">
            {steps.map((step, i) => (
              <li key={i}>
                <label for={`plan-step-${i}`} class="visually-hidden">
                  Step {i + 1}
                </label>
                <div class="plan-step-row">
                  <textarea id={`plan-step-${i}`} rows={2} maxLength={MAX_STEP_CHARS} value={step} onInput={(e) => update(steps, setSteps, i, e.currentTarget.value)} />
                  <button type="button" class="secondary small" aria-label={`Remove step ${i + 1}`} onClick={() => remove(steps, setSteps, i)} disabled={steps.length <= 1}>
                    Remove
                  </button>
                </div>
              </li>
            ))}
          </ol>
          <button type="button" class="secondary" onClick={() => setSteps([...steps, ''])} disabled={steps.length >= MAX_STEPS}>
            Add a step
          </button>
        </fieldset>
        <fieldset disabled={busy}>
          <legend>Query hints</legend>
          <ul class="plan-hints">
            {hints.map((hint, i) => (
              <li key={i}>
                <label for={`plan-hint-${i}`}>Hint {i + 1}</label>
                <div class="plan-hint-row">
                  <input id={`plan-hint-${i}`} type="text" maxLength={MAX_HINT_CHARS} value={hint} onInput={(e) => update(hints, setHints, i, e.currentTarget.value)} />
                  <button type="button" class="secondary small" aria-label={`Remove hint ${i + 1}`} onClick={() => remove(hints, setHints, i)}>
                    Remove
                  </button>
                </div>
              </li>
            ))}
          </ul>
          <button type="button" class="secondary" onClick={() => setHints([...hints, ''])} disabled={hints.length >= MAX_HINTS}>
            Add a hint
          </button>
        </fieldset>
        {editedSteps || editedHints ? (
          <p class="muted" data-testid="plan-edited">
            You edited the {editedSteps && editedHints ? 'steps and the hints' : editedSteps ? 'steps' : 'hints'}: the run will use your version.
          </p>
        ) : null}
        <div class="row">
          <button type="submit" disabled={busy}>
            {editedSteps || editedHints ? 'Approve the edited plan' : 'Approve the plan'}
          </button>
          <button type="button" class="danger" disabled={busy} onClick={() => onAnswer({ type: 'plan_approval', approved: false })}>
            Decline
          </button>
        </div>
      </form>
    </section>
  );
}
