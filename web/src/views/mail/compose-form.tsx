/**
 * Writing mail: recipients, subject and a Markdown body with its preview beside it (rendered as the
 * recipient will see it). The same form replies in a thread: then the subject comes from the thread.
 */
import { useState } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';
import { Markdown } from '../../components/markdown.js';
import { addressesIn, sendMail, type MailMessage } from './mail-api.js';

interface ComposeProps {
  inboxId: string;
  /** Set for a reply: the message joins this thread. */
  threadId?: string;
  initialTo?: string;
  /** Addresses offered as suggestions for "To". */
  knownAddresses: string[];
  onSent: (message: MailMessage) => void;
  onCancel?: () => void;
}

export function ComposeForm({ inboxId, threadId, initialTo = '', knownAddresses, onSent, onCancel }: ComposeProps) {
  const [to, setTo] = useState(initialTo);
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const idPrefix = threadId ? 'reply' : 'compose';
  const isReply = threadId !== undefined;

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const sent = await sendMail(inboxId, { to: addressesIn(to), body, ...(isReply ? { thread_id: threadId } : { subject: subject.trim() }) });
      setBody('');
      setSubject('');
      onSent(sent);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="panel mail-compose" onSubmit={submit} aria-labelledby={`${idPrefix}-title`} data-testid={`${idPrefix}-form`}>
      <h3 id={`${idPrefix}-title`}>{isReply ? 'Reply' : 'New message'}</h3>
      <label for={`${idPrefix}-to`}>To</label>
      <input
        id={`${idPrefix}-to`}
        type="text"
        required
        autoComplete="off"
        spellcheck={false}
        list="mail-known-addresses"
        aria-describedby={`${idPrefix}-to-hint`}
        value={to}
        onInput={(e) => setTo(e.currentTarget.value)}
      />
      <p id={`${idPrefix}-to-hint`} class="muted mail-hint">
        One address or several, separated by commas.
      </p>
      <datalist id="mail-known-addresses">
        {knownAddresses.map((address) => (
          <option key={address} value={address} />
        ))}
      </datalist>
      {isReply ? null : (
        <>
          <label for={`${idPrefix}-subject`}>Subject</label>
          <input id={`${idPrefix}-subject`} type="text" maxLength={998} value={subject} onInput={(e) => setSubject(e.currentTarget.value)} />
        </>
      )}
      <div class="mail-compose-body">
        <div>
          <label for={`${idPrefix}-body`}>Message (Markdown)</label>
          <textarea id={`${idPrefix}-body`} class="mono" required rows={10} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
        </div>
        <section class="mail-preview" aria-labelledby={`${idPrefix}-preview-title`}>
          <h4 id={`${idPrefix}-preview-title`}>Preview</h4>
          <div class="mail-preview-body" data-testid={`${idPrefix}-preview`}>
            {body.trim() ? <Markdown text={body} /> : <p class="muted">Your message, as it will read.</p>}
          </div>
        </section>
      </div>
      <ErrorNote error={error} />
      <button type="submit" disabled={busy || !to.trim() || !body.trim()}>
        {busy ? 'Sending…' : isReply ? 'Send reply' : 'Send'}
      </button>
      {onCancel ? (
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      ) : null}
    </form>
  );
}
