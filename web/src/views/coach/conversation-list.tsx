/** Your conversations (GET /conversations, newest first): open one to resume it, or start a new one. */
import { ErrorNote } from '../../components/error-note.js';
import type { AsyncState } from '../../components/use-async.js';
import { hrefOf } from '../../route.js';
import type { ConversationSummary } from './coach-api.js';

interface Props {
  conversations: AsyncState<ConversationSummary[]>;
  openId: string | undefined;
  starting: boolean;
  onStart: () => void;
  onDelete: (conversation: ConversationSummary) => void;
}

const when = (iso: string) => new Date(iso).toLocaleString([], { dateStyle: 'short', timeStyle: 'short' });

export function ConversationList({ conversations, openId, starting, onStart, onDelete }: Props) {
  const rows = conversations.data ?? [];
  return (
    <nav class="coach-conversations" aria-labelledby="coach-conversations-title">
      <h2 id="coach-conversations-title">Conversations</h2>
      <button type="button" onClick={onStart} disabled={starting} data-testid="new-conversation">
        {starting ? 'Starting…' : 'New conversation'}
      </button>
      <ErrorNote error={conversations.error} />
      {rows.length === 0 && !conversations.loading ? <p class="muted">No conversations yet.</p> : null}
      <ul data-testid="conversation-list">
        {rows.map((row) => (
          <li key={row.conversation_id} data-conversation-id={row.conversation_id}>
            <a href={hrefOf('coach', row.conversation_id)} aria-current={row.conversation_id === openId ? 'page' : undefined}>
              {row.title}
            </a>
            <span class="muted coach-conversation-meta">
              {[row.format, row.archetype, row.has_deck ? 'deck' : null, `${row.messages} ${row.messages === 1 ? 'message' : 'messages'}`, when(row.created_at)].filter(Boolean).join(' · ')}
            </span>
            <button type="button" class="link-button coach-delete" onClick={() => onDelete(row)} aria-label={`Delete conversation: ${row.title}`}>
              Delete
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
