/**
 * A thread as one Markdown document for an LLM's context (the `email://thread/{id}` resource and
 * `get_thread`): subject as the heading, who takes part, then every message oldest first with sender,
 * recipients, date and body, separated by horizontal rules. Compact and without HTML, because every
 * character here is a token an agent pays for.
 */

export type ThreadForMarkdown = { subject: string; participants: string[] };

export type MessageForMarkdown = {
  from: string;
  to: string[];
  date: Date;
  content: string;
  direction: 'inbound' | 'outbound';
};

/** ISO 8601 to the second: milliseconds in a mail date are noise. */
function isoDate(date: Date): string {
  return Number.isNaN(date.getTime()) ? 'unknown date' : date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** One line, so a subject with a newline cannot break the heading. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function messageMarkdown(message: MessageForMarkdown): string {
  const direction = message.direction === 'inbound' ? 'received' : 'sent';
  const header = [
    `**From:** ${oneLine(message.from)} (${direction})`,
    `**To:** ${message.to.map(oneLine).join(', ') || '(no recipients)'}`,
    `**Date:** ${isoDate(message.date)}`,
  ].join('  \n');
  const body = message.content.replace(/\r\n?/g, '\n').trim();
  return `${header}\n\n${body === '' ? '_(no content)_' : body}`;
}

/** The whole thread as Markdown; messages are put in date order whatever order they come in. */
export function threadAsMarkdown(thread: ThreadForMarkdown, messages: MessageForMarkdown[]): string {
  const subject = oneLine(thread.subject) || '(no subject)';
  const participants = thread.participants.map(oneLine).join(', ') || '(none)';
  const ordered = messages
    .map((message, index) => ({ message, index }))
    .sort((a, b) => a.message.date.getTime() - b.message.date.getTime() || a.index - b.index)
    .map(({ message }) => messageMarkdown(message));
  const head = `# ${subject}\n\n**Participants:** ${participants}  \n**Messages:** ${messages.length}`;
  return [head, ...ordered].join('\n\n---\n\n') + '\n';
}
