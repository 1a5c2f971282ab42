/**
 * The inboxes of the signed-in user, and the form that creates one (`username@domain`): the API's
 * own message explains a taken or invalid username.
 */
import { useState } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';
import { hrefOf } from '../../route.js';
import { createInbox, type Inbox } from './mail-api.js';

interface InboxListProps {
  inboxes: Inbox[];
  /** Whether `inboxes` is the answer yet (the create form starts open only for someone with none). */
  loaded: boolean;
  current: string | undefined;
  onCreated: (inbox: Inbox) => void;
}

export function InboxList({ inboxes, loaded, current, onCreated }: InboxListProps) {
  return (
    <nav aria-label="Inboxes" class="mail-inboxes" aria-busy={!loaded}>
      <h2>Inboxes</h2>
      {loaded && inboxes.length === 0 ? <p class="muted">No inbox yet: create one below.</p> : null}
      <ul>
        {inboxes.map((inbox) => (
          <li key={inbox.id}>
            <a href={hrefOf('mail', inbox.id)} aria-current={inbox.id === current ? 'page' : undefined} data-inbox-id={inbox.id}>
              <span class="mail-inbox-name">{inbox.name}</span>
              <span class="mail-address">{inbox.email_address}</span>
            </a>
          </li>
        ))}
      </ul>
      <details class="panel mail-create" open={loaded && inboxes.length === 0}>
        <summary>New inbox</summary>
        <CreateInboxForm onCreated={onCreated} />
      </details>
    </nav>
  );
}

function CreateInboxForm({ onCreated }: { onCreated: (inbox: Inbox) => void }) {
  const [username, setUsername] = useState('');
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const inbox = await createInbox(username.trim().toLowerCase(), name.trim() || username.trim());
      setUsername('');
      setName('');
      onCreated(inbox);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} aria-label="New inbox">
      <label for="inbox-username">Username</label>
      <input
        id="inbox-username"
        type="text"
        required
        maxLength={64}
        autoComplete="off"
        spellcheck={false}
        aria-describedby="inbox-username-hint"
        value={username}
        onInput={(e) => setUsername(e.currentTarget.value)}
      />
      <p id="inbox-username-hint" class="muted mail-hint">
        The part before @: lowercase letters, digits, ".", "_" and "-".
      </p>
      <label for="inbox-name">Display name</label>
      <input id="inbox-name" type="text" maxLength={200} placeholder="Support Bot" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <ErrorNote error={error} />
      <button type="submit" disabled={busy || !username.trim()}>
        {busy ? 'Creating…' : 'Create inbox'}
      </button>
    </form>
  );
}
