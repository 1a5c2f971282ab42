/**
 * Markdown from the API (reports, mail) or the user (compose preview), rendered to HTML with marked
 * and sanitized with DOMPurify before it touches the page: model and mail text are untrusted.
 */
import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'preact/hooks';

export function markdownToSafeHtml(markdown: string): string {
  return DOMPurify.sanitize(marked.parse(markdown, { async: false, gfm: true }));
}

/** Sanitized HTML as given (e.g. a message's HTML part): scripts, handlers and styles are removed. */
export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, { FORBID_TAGS: ['style'], FORBID_ATTR: ['style'] });
}

export function Markdown({ text, class: className }: { text: string; class?: string }) {
  const html = useMemo(() => markdownToSafeHtml(text), [text]);
  return <div class={`markdown ${className ?? ''}`} dangerouslySetInnerHTML={{ __html: html }} />;
}

export function SafeHtml({ html, class: className }: { html: string; class?: string }) {
  const clean = useMemo(() => sanitizeHtml(html), [html]);
  return <div class={`safe-html ${className ?? ''}`} dangerouslySetInnerHTML={{ __html: clean }} />;
}
