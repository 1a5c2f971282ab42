/** One inbox: its address, a "New message" form, and its threads (re-read while open, as mail arrives). */
import { useState } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';
import { useAsync } from '../../components/use-async.js';
import { navigate } from '../../route.js';
import { ComposeForm } from './compose-form.js';
import { recentThreads, type Inbox } from './mail-api.js';
import { useRefreshWhileVisible } from './refresh-while-visible.js';
import { ThreadList } from './thread-list.js';

export function InboxPage({ inboxId, inbox, knownAddresses }: { inboxId: string; inbox: Inbox | undefined; knownAddresses: string[] }) {
  const threads = useAsync((signal) => recentThreads(inboxId, signal), [inboxId]);
  useRefreshWhileVisible(threads.reload);
  const [composing, setComposing] = useState(false);

  return (
    <section aria-labelledby="inbox-title" data-testid="inbox">
      <div class="mail-inbox-head">
        <h2 id="inbox-title">
          {inbox ? inbox.name : 'Inbox'}
          {inbox ? <span class="mail-address"> {inbox.email_address}</span> : null}
        </h2>
        <div>
          <button type="button" aria-expanded={composing} aria-controls="compose-panel" onClick={() => setComposing(!composing)}>
            New message
          </button>
          <button type="button" class="secondary" onClick={threads.reload}>
            Refresh
          </button>
        </div>
      </div>
      <div id="compose-panel">
        {composing ? (
          <ComposeForm
            inboxId={inboxId}
            knownAddresses={knownAddresses}
            onSent={(sent) => {
              setComposing(false);
              navigate('mail', inboxId, sent.thread_id);
            }}
            onCancel={() => setComposing(false)}
          />
        ) : null}
      </div>
      <h3 class="visually-hidden">Threads</h3>
      <ErrorNote error={threads.error} />
      {threads.data ? (
        <ThreadList inboxId={inboxId} address={inbox?.email_address ?? ''} threads={threads.data} />
      ) : threads.loading ? (
        <p role="status">Loading threads…</p>
      ) : null}
    </section>
  );
}
