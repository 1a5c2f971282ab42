/** An inbox's threads, newest first (the API's order): subject, who is in it, how many messages, when the last came. */
import { hrefOf } from '../../route.js';
import { timeOf, type ThreadSummary } from './mail-api.js';

export function ThreadList({ inboxId, address, threads }: { inboxId: string; address: string; threads: ThreadSummary[] }) {
  if (threads.length === 0) return <p class="muted">No mail in this inbox yet.</p>;
  return (
    <ul class="mail-threads" aria-label="Threads, newest first">
      {threads.map((thread) => {
        const others = thread.participants.filter((p) => p !== address);
        return (
          <li key={thread.id} data-thread-id={thread.id}>
            <a href={hrefOf('mail', inboxId, thread.id)}>
              <span class="mail-thread-subject">{thread.subject || '(no subject)'}</span>
              <span class="mail-thread-meta">
                <time dateTime={thread.last_message_at}>{timeOf(thread.last_message_at)}</time>
                <span>
                  {thread.message_count} {thread.message_count === 1 ? 'message' : 'messages'}
                </span>
              </span>
              <span class="mail-thread-people">{(others.length ? others : thread.participants).join(', ')}</span>
            </a>
          </li>
        );
      })}
    </ul>
  );
}
