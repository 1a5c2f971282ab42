/**
 * A thread: its messages, oldest first, and a reply form addressed to whoever wrote last from
 * outside this inbox. Mail arrives without a push feed, so the thread is re-read while it is open.
 */
import { ErrorNote } from '../../components/error-note.js';
import { useAsync } from '../../components/use-async.js';
import { hrefOf } from '../../route.js';
import { ComposeForm } from './compose-form.js';
import { getThread, type Thread } from './mail-api.js';
import { MessageCard } from './message-card.js';
import { useRefreshWhileVisible } from './refresh-while-visible.js';

/** Who a reply goes to: the last sender from outside, else everyone the inbox last wrote to. */
function replyRecipients(thread: Thread, ownAddress: string): string {
  const lastInbound = [...thread.messages].reverse().find((m) => m.direction === 'inbound' && m.from !== ownAddress);
  if (lastInbound) return lastInbound.from;
  const lastOutbound = thread.messages.at(-1);
  return lastOutbound ? [...lastOutbound.to, ...lastOutbound.cc].filter((a) => a !== ownAddress).join(', ') : '';
}

interface ThreadViewProps {
  inboxId: string;
  threadId: string;
  ownAddress: string;
  knownAddresses: string[];
}

export function ThreadView({ inboxId, threadId, ownAddress, knownAddresses }: ThreadViewProps) {
  const thread = useAsync((signal) => getThread(threadId, signal), [threadId]);
  useRefreshWhileVisible(thread.reload);
  const data = thread.data?.id === threadId ? thread.data : undefined;

  return (
    <section class="mail-thread" aria-labelledby="thread-subject" data-testid="thread">
      <p>
        <a href={hrefOf('mail', inboxId)}>← All threads</a>
      </p>
      <h2 id="thread-subject">{data ? data.subject || '(no subject)' : 'Thread'}</h2>
      <ErrorNote error={thread.error} />
      {data ? (
        <>
          <p class="muted">
            {data.message_count} {data.message_count === 1 ? 'message' : 'messages'} · {data.participants.join(', ')}
          </p>
          {data.messages.map((message) => (
            <MessageCard key={message.id} message={message} />
          ))}
          <ComposeForm
            key={threadId}
            inboxId={inboxId}
            threadId={threadId}
            initialTo={replyRecipients(data, ownAddress)}
            knownAddresses={knownAddresses}
            onSent={thread.reload}
          />
        </>
      ) : thread.loading ? (
        <p role="status">Loading the thread…</p>
      ) : null}
    </section>
  );
}
