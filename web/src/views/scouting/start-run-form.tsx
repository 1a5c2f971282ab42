/** Starting a run: the request in your words (the run finds the player's name in it) and optional hints. */
import { useState } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';

const MAX_REQUEST_CHARS = 2000;

export function StartRunForm({ busy, error, onStart }: { busy: boolean; error: unknown; onStart: (request: string, queryHints: string[]) => void }) {
  const [request, setRequest] = useState('');
  const [hints, setHints] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    if (!request.trim()) return;
    const queryHints = hints
      .split(',')
      .map((hint) => hint.trim())
      .filter(Boolean);
    onStart(request.trim(), queryHints);
  };
  return (
    <section aria-labelledby="start-title">
      <h2 id="start-title">Start a run</h2>
      <form onSubmit={submit}>
        <label for="scouting-request">What should the run scout?</label>
        <textarea
          id="scouting-request"
          required
          maxLength={MAX_REQUEST_CHARS}
          placeholder="Generate a scouting report for Marcus Ellery"
          value={request}
          onInput={(e) => setRequest(e.currentTarget.value)}
        />
        <label for="scouting-hints">Query hints (optional, comma-separated)</label>
        <input id="scouting-hints" type="text" placeholder="shooting, defense" value={hints} onInput={(e) => setHints(e.currentTarget.value)} />
        <div>
          <button type="submit" disabled={busy}>
            Start the run
          </button>
          {busy ? (
            <span class="muted" role="status">
              Starting…
            </span>
          ) : null}
        </div>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}
