/** The message box: Enter sends, Shift+Enter starts a new line. */
import { useState } from 'preact/hooks';
import { StreamStatusBadge } from '../../components/stream-status.js';
import type { StreamStatus } from '../../sse.js';

interface Props {
  running: boolean;
  streamStatus: StreamStatus | undefined;
  onSend: (message: string) => void;
}

export function MessageForm({ running, streamStatus, onSend }: Props) {
  const [message, setMessage] = useState('');
  const submit = (event?: Event) => {
    event?.preventDefault();
    const text = message.trim();
    if (!text || running) return;
    onSend(text);
    setMessage('');
  };
  return (
    <form class="coach-message-form" onSubmit={submit}>
      <label for="coach-message">Message to the coach</label>
      <textarea
        id="coach-message"
        rows={2}
        value={message}
        placeholder="What are the top decks in the meta?"
        onInput={(event) => setMessage(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) submit(event);
        }}
      />
      <div class="row">
        <button type="submit" disabled={running || !message.trim()}>
          {running ? 'The coach is answering…' : 'Send'}
        </button>
        <StreamStatusBadge status={streamStatus} />
      </div>
    </form>
  );
}
