/** The run could not tell which player the request means: it asks, and goes on with the answer. */
import { useState } from 'preact/hooks';
import { SPORT_LABELS, type ResumePayload, type Sport } from './scouting-api.js';

export function ClarificationGate({ message, busy, onAnswer }: { message: string; busy: boolean; onAnswer: (payload: ResumePayload) => void }) {
  const [name, setName] = useState('');
  const [sport, setSport] = useState<Sport | ''>('');
  const submit = (event: Event) => {
    event.preventDefault();
    if (!name.trim()) return;
    onAnswer({ type: 'clarification', player_name: name.trim(), ...(sport ? { sport } : {}) });
  };
  return (
    <section class="panel gate" aria-labelledby="clarification-title" data-testid="clarification-gate">
      <h2 id="clarification-title">Which player?</h2>
      <p>{message}</p>
      <form onSubmit={submit}>
        <label for="clarify-name">Player name</label>
        <input id="clarify-name" type="text" maxLength={200} required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="clarify-sport">Sport</label>
        <select id="clarify-sport" value={sport} onChange={(e) => setSport(e.currentTarget.value as Sport | '')}>
          <option value="">Let the run guess</option>
          {(Object.keys(SPORT_LABELS) as Sport[]).map((value) => (
            <option key={value} value={value}>
              {SPORT_LABELS[value]}
            </option>
          ))}
        </select>
        <div>
          <button type="submit" disabled={busy}>
            Scout this player
          </button>
        </div>
      </form>
    </section>
  );
}
