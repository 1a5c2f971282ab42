/**
 * Mail: your inboxes (and a new one), an inbox's threads, a thread's messages with a reply form,
 * composing with a Markdown preview, and search. Routes: #/mail, #/mail/<inboxId>,
 * #/mail/<inboxId>/<threadId>. Backed by the mail kind's HTTP routes (actors/mail/contract.ts).
 */
import { ErrorNote } from '../../components/error-note.js';
import { useAsync } from '../../components/use-async.js';
import type { ViewProps } from '../../main.js';
import { navigate } from '../../route.js';
import { InboxList } from './inbox-list.js';
import { InboxPage } from './inbox-page.js';
import { listInboxes } from './mail-api.js';
import { MailSearch } from './mail-search.js';
import { ThreadView } from './thread-view.js';

export function MailView({ parts }: ViewProps) {
  const [inboxId, threadId] = parts;
  const inboxes = useAsync((signal) => listInboxes(signal), []);
  const list = inboxes.data ?? [];
  const inbox = list.find((i) => i.id === inboxId);
  const knownAddresses = list.map((i) => i.email_address);

  return (
    <div class="mail">
      <h1>Mail</h1>
      <div class="columns mail-layout">
        <div class="mail-side">
          <ErrorNote error={inboxes.error} />
          <InboxList
            inboxes={list}
            loaded={inboxes.data !== undefined}
            current={inboxId}
            onCreated={(created) => {
              inboxes.reload();
              navigate('mail', created.id);
            }}
          />
        </div>
        <div class="mail-main">
          <MailSearch inboxes={list} currentInbox={inboxId} />
          {!inboxId ? (
            <p class="muted" data-testid="mail-start">
              {list.length ? 'Pick an inbox to read its mail.' : inboxes.loading ? 'Loading your inboxes…' : 'Create an inbox to send and receive mail.'}
            </p>
          ) : threadId ? (
            <ThreadView key={threadId} inboxId={inboxId} threadId={threadId} ownAddress={inbox?.email_address ?? ''} knownAddresses={knownAddresses} />
          ) : (
            <InboxPage key={inboxId} inboxId={inboxId} inbox={inbox} knownAddresses={knownAddresses} />
          )}
        </div>
      </div>
    </div>
  );
}
