/**
 * The mail kind as the web client reaches it: the HTTP routes of actors/mail/contract.ts (inboxes are
 * actors, reads go to the `mail` service) and the shapes they answer with.
 */
import { api } from '../../api.js';

export interface Inbox {
  id: string;
  email_address: string;
  name: string;
  created_at: string;
}

export interface ThreadSummary {
  id: string;
  subject: string;
  last_message_at: string;
  message_count: number;
  participants: string[];
}

export interface MailMessage {
  id: string;
  thread_id: string;
  inbox_id: string;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  /** Markdown: what was written for outbound mail, the HTML part turned into Markdown for inbound. */
  content: string;
  content_clean: string;
  /** The message's HTML part, when the API includes it; shown sanitized in preference to `content`. */
  html?: string | null;
  status: 'delivered' | 'sent' | 'failed' | 'received';
  status_reason?: string;
  attachments: number;
  created_at: string;
}

export interface Thread extends ThreadSummary {
  inbox_id: string;
  messages: MailMessage[];
}

export interface SearchHit {
  id: string;
  thread_id: string;
  inbox_id: string;
  subject: string;
  from: string;
  content: string;
  created_at: string;
}

export interface Outgoing {
  to: string[];
  subject?: string;
  body: string;
  thread_id?: string;
}

const path = encodeURIComponent;

export const listInboxes = (signal?: AbortSignal) => api<{ inboxes: Inbox[] }>('/inboxes', { signal }).then((r) => r.inboxes);

export const createInbox = (username: string, name: string) => api<Inbox>('/inboxes', { body: { username, name } });

export const recentThreads = (inboxId: string, signal?: AbortSignal) =>
  api<{ threads: ThreadSummary[] }>(`/inboxes/${path(inboxId)}/threads?limit=100`, { signal }).then((r) => r.threads);

export const getThread = (threadId: string, signal?: AbortSignal) => api<Thread>(`/threads/${path(threadId)}?html=true`, { signal });

/** Sends from an inbox; with `thread_id` it is a reply in that thread. */
export const sendMail = (inboxId: string, outgoing: Outgoing) => api<MailMessage>(`/inboxes/${path(inboxId)}/messages`, { body: outgoing });

export const searchMail = (query: string, inboxId?: string) =>
  api<{ results: SearchHit[] }>('/search', { body: { query, limit: 50, ...(inboxId ? { inbox_id: inboxId } : {}) } }).then((r) => r.results);

/** "a@x, b@y; c@z" as the list of addresses the API takes. */
export function addressesIn(text: string): string[] {
  return text
    .split(/[,;]/)
    .map((part) => part.trim())
    .filter(Boolean);
}

export const timeOf = (iso: string) => new Date(iso).toLocaleString();
