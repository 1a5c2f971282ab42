/**
 * One message of a thread: who sent it to whom and when, how delivery went for mail sent from here,
 * and the body. The HTML part is shown sanitized when the API gives it; otherwise the Markdown body
 * (which for inbound mail is its HTML turned into Markdown), rendered and sanitized as well. Quoted
 * history that the API trimmed (content_clean) stays folded until asked for.
 */
import { useState } from 'preact/hooks';
import { Markdown, SafeHtml } from '../../components/markdown.js';
import { timeOf, type MailMessage } from './mail-api.js';

const STATUS_LABELS: Record<MailMessage['status'], string> = {
  delivered: 'delivered',
  sent: 'sent',
  failed: 'not delivered',
  received: 'received',
};

export function MessageCard({ message }: { message: MailMessage }) {
  const [showQuoted, setShowQuoted] = useState(false);
  const hasQuoted = message.direction === 'inbound' && message.content_clean.trim() !== '' && message.content_clean.trim() !== message.content.trim();
  const headingId = `message-${message.id}`;
  return (
    <article class={`mail-message mail-${message.direction}`} aria-labelledby={headingId} data-message-id={message.id} data-direction={message.direction}>
      <header>
        <h3 id={headingId} class="mail-message-from">
          <span class="visually-hidden">From </span>
          {message.from}
        </h3>
        <p class="mail-message-meta">
          <span>to {[...message.to, ...message.cc].join(', ')}</span>
          <time dateTime={message.created_at}>{timeOf(message.created_at)}</time>
          <span class={`mail-status mail-status-${message.status}`}>{STATUS_LABELS[message.status]}</span>
          {message.attachments > 0 ? <span>{message.attachments === 1 ? '1 attachment' : `${message.attachments} attachments`}</span> : null}
        </p>
        {message.status === 'failed' && message.status_reason ? <p class="error">{message.status_reason}</p> : null}
      </header>
      <div class="mail-message-body" data-testid="message-body">
        {message.html && (!hasQuoted || showQuoted) ? (
          <SafeHtml html={message.html} />
        ) : (
          <Markdown text={hasQuoted && !showQuoted ? message.content_clean : message.content} />
        )}
      </div>
      {hasQuoted ? (
        <button type="button" class="link-button" aria-expanded={showQuoted} onClick={() => setShowQuoted(!showQuoted)}>
          {showQuoted ? 'Hide quoted text' : 'Show quoted text'}
        </button>
      ) : null}
    </article>
  );
}
