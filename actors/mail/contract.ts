/**
 * Mail's contract: an inbox is an actor (create, send, deliver); reads (inboxes, threads, search) are
 * a service over MongoDB. HTTP routes, the MCP tools agents use (create_inbox, send_email,
 * search_email, wait_for_reply, list_inboxes, get_thread) and the two resources of the spec.
 */
import { z } from 'zod';
import type { HttpRouteContract, ResourceContract, ToolContract } from '../runtime/contract.js';
import { USERNAME_PATTERN, USERNAME_RULE } from './addresses.js';

export const INBOX_KIND = 'inbox';
export const MAIL_KIND = 'mail';

export const DEFAULT_WAIT_SECONDS = 300;
const MAX_WAIT_SECONDS = 3600;

const InboxId = z.string().regex(/^ibx_[0-9a-f]{24}$/, { error: 'an inbox id (ibx_…) from create_inbox or list_inboxes' });
const ThreadId = z.string().regex(/^th_[0-9a-f]{24}$/, { error: 'a thread id (th_…)' });
const Username = z
  .string()
  .trim()
  .toLowerCase()
  .regex(USERNAME_PATTERN, { error: `invalid username: ${USERNAME_RULE}` });
const Address = z.string().trim().min(3).max(320);
const Recipients = z.union([Address, z.array(Address).min(1).max(50)]);
const Attachment = z.object({ filename: z.string().trim().min(1).max(200), content_type: z.string().trim().min(1).max(100).default('application/octet-stream'), content_base64: z.string().max(14_000_000) }).strict();

export const CreatePayload = z.object({ username: Username, name: z.string().trim().min(1).max(200) }).strict();
export const SendPayload = z
  .object({
    to: Recipients,
    cc: Recipients.optional(),
    subject: z.string().trim().max(998).default(''),
    body: z.string().max(1_000_000),
    thread_id: ThreadId.optional(),
    attachments: z.array(Attachment).max(10).default([]),
  })
  .strict();
export type SendPayload = z.infer<typeof SendPayload>;

/** An inbound message as the receivers (SMTP, webhook, demo, another inbox) hand it to the inbox. */
export const DeliverPayload = z
  .object({
    from: Address,
    to: z.array(Address).max(100),
    cc: z.array(Address).max(100).default([]),
    subject: z.string().max(998).default(''),
    text: z.string().max(5_000_000).nullable().default(null),
    html: z.string().max(5_000_000).nullable().default(null),
    message_id: z.string().max(998).nullable().default(null),
    in_reply_to: z.string().max(998).nullable().default(null),
    references: z.array(z.string().max(998)).max(100).default([]),
    date: z.string().nullable().default(null),
    attachments: z.array(Attachment).max(20).default([]),
    via: z.enum(['smtp', 'webhook', 'demo', 'local']),
  })
  .strict();
export type DeliverPayload = z.infer<typeof DeliverPayload>;

export const messages = { create: CreatePayload, send: SendPayload, deliver: DeliverPayload };

const Search = z.object({ query: z.string().trim().min(1).max(500), inbox_id: InboxId.optional(), limit: z.number().int().min(1).max(100).default(20), offset: z.number().int().min(0).max(10_000).default(0) }).strict();
export const serviceMessages = {
  list_inboxes: z.object({}).strict(),
  recent_threads: z.object({ inbox_id: InboxId, limit: z.number().int().min(1).max(100).default(10) }).strict(),
  get_thread: z.object({ thread_id: ThreadId, include_html: z.boolean().default(false) }).strict(),
  thread_markdown: z.object({ thread_id: ThreadId }).strict(),
  search: Search,
  /** wait_for_reply's first step: the thread exists, and which inbox's feed to follow. */
  watch_thread: z.object({ thread_id: ThreadId, timeout_seconds: z.number().int().min(1).max(MAX_WAIT_SECONDS).default(DEFAULT_WAIT_SECONDS) }).strict(),
};

/** What wait_for_reply's first step answers: where to wait, and a reply that came before the call. */
export interface WatchReply {
  thread_id: string;
  inbox_id: string;
  timeout_seconds: number;
  /** The thread's last outbound message (ISO), or null: a reply is an inbound message after it. */
  after: string | null;
  /** The reply already there (the first inbound message after `after`), or null. */
  pending: unknown;
  /** When the thread was read (ms). */
  read_at_ms: number;
}
const FEED_CLOCK_MARGIN_MS = 2000;

const service = (type: string, payload: unknown) => ({ kind: MAIL_KIND, actorId: 'service', type, payload });
const newInboxId = () => `ibx_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;

export const http: HttpRouteContract[] = [
  {
    method: 'POST',
    path: '/inboxes',
    description: 'Creates an inbox `username@MAIL_DOMAIN`: 409 if the username is taken, 400 if it is invalid.',
    body: { username: Username, name: z.string().trim().min(1).max(200) },
    toMessage: ({ body }) => ({ actorId: newInboxId(), type: 'create', payload: body }),
  },
  { method: 'GET', path: '/inboxes', description: 'Your inboxes.', toMessage: () => service('list_inboxes', {}) },
  {
    method: 'GET',
    path: '/inboxes/:id/threads',
    description: 'An inbox\'s threads, most recent first.',
    params: { id: InboxId },
    query: { limit: z.coerce.number().int().min(1).max(100).optional() },
    toMessage: ({ params, query }) => service('recent_threads', { inbox_id: params.id, ...(query.limit ? { limit: query.limit } : {}) }),
  },
  {
    method: 'POST',
    path: '/inboxes/:id/messages',
    description: 'Sends mail from the inbox: the Markdown body becomes sanitized HTML and a text part; thread_id makes it a reply (In-Reply-To, References).',
    params: { id: InboxId },
    body: { to: Recipients, cc: Recipients.optional(), subject: z.string().optional(), body: z.string(), thread_id: ThreadId.optional(), attachments: z.array(Attachment).optional() },
    toMessage: ({ params, body }) => ({ actorId: params.id as string, type: 'send', payload: body }),
  },
  {
    method: 'POST',
    path: '/inboxes/:id/inbound',
    description: 'Development: delivers a message to your inbox as if it had arrived from outside ({from, subject, text | html, in_reply_to?, references?}). Off in production.',
    params: { id: InboxId },
    body: { from: Address, subject: z.string().max(998).optional(), text: z.string().max(1_000_000).optional(), html: z.string().max(1_000_000).optional(), in_reply_to: z.string().max(998).optional(), references: z.array(z.string().max(998)).max(100).optional() },
    toMessage: ({ params, body }) => ({ actorId: params.id as string, type: 'deliver', payload: { to: [], ...body, via: 'demo' } }),
  },
  {
    method: 'GET',
    path: '/threads/:id',
    description: 'A thread with its messages; ?html=true adds each message\'s HTML part for clients that render it (sanitize it before display, as the web client does).',
    params: { id: ThreadId },
    query: { html: z.enum(['true', 'false']).optional() },
    toMessage: ({ params, query }) => service('get_thread', { thread_id: params.id, include_html: query.html === 'true' }),
  },
  {
    method: 'POST',
    path: '/search',
    description: 'Searches your mail (subject, body, participants) in one inbox or all of them: {query, inbox_id?, limit?, offset?}.',
    body: Search.shape,
    toMessage: ({ body }) => service('search', body),
  },
];

export const tools: ToolContract[] = [
  {
    name: 'create_inbox',
    title: 'Create an email inbox',
    description: `Creates an email inbox for you to send and receive mail with: username@domain. ${USERNAME_RULE}`,
    input: { name: z.string().trim().min(1).max(200).describe('Display name, e.g. "Support Bot"'), username: Username.describe('The part before @, e.g. "support"') },
    toMessage: (args) => ({ actorId: newInboxId(), type: 'create', payload: { name: args.name, username: args.username } }),
  },
  {
    name: 'send_email',
    title: 'Send an email',
    description: 'Sends an email from one of your inboxes. The body is Markdown (sent as HTML and plain text). Give thread_id to reply in a thread.',
    input: {
      inbox_id: InboxId,
      recipient: Recipients.describe('An address, or a list of them'),
      subject: z.string().max(998).describe('Subject line'),
      body: z.string().max(1_000_000).describe('Markdown body'),
      thread_id: ThreadId.optional().describe('Reply in this thread'),
    },
    toMessage: (args) => ({ actorId: args.inbox_id as string, type: 'send', payload: { to: args.recipient, subject: args.subject, body: args.body, ...(args.thread_id ? { thread_id: args.thread_id } : {}) } }),
  },
  {
    name: 'search_email',
    title: 'Search email',
    description: 'Searches your messages by words in the subject, body and addresses, in one inbox or all of yours.',
    input: { query: z.string().trim().min(1).max(500), inbox_id: InboxId.optional(), limit: z.number().int().min(1).max(100).optional(), offset: z.number().int().min(0).optional() },
    toMessage: (args) => service('search', args),
  },
  {
    name: 'wait_for_reply',
    title: 'Wait for a reply',
    description: `Waits for a reply in a thread: the first inbound message after your last message there (at once if it has already come), or {timed_out: true} after timeout_seconds (default ${DEFAULT_WAIT_SECONDS}). Experimental.`,
    input: { thread_id: ThreadId, timeout_seconds: z.number().int().min(1).max(MAX_WAIT_SECONDS).optional() },
    toMessage: (args) => service('watch_thread', { thread_id: args.thread_id, ...(args.timeout_seconds ? { timeout_seconds: args.timeout_seconds } : {}) }),
    follow: {
      feed: (reply) => ({ kind: INBOX_KIND, id: (reply as WatchReply).inbox_id }),
      // From a little before the thread was read (clocks of Redis and the worker may differ a little):
      // nothing delivered between that read and the wait is missed; `answer` drops what came before.
      from: (reply) => `${(reply as WatchReply).read_at_ms - FEED_CLOCK_MARGIN_MS}-0`,
      ready: (reply) => ((reply as WatchReply).pending ? { timed_out: false, message: (reply as WatchReply).pending } : undefined),
      waitMs: (reply) => (reply as WatchReply).timeout_seconds * 1000,
      answer: (event, reply) => {
        const watch = reply as WatchReply;
        const data = event.data as { thread_id?: string; direction?: string; created_at?: string } | null;
        const isReply = event.event === 'message' && data?.thread_id === watch.thread_id && data.direction === 'inbound' && (watch.after === null || (data.created_at ?? '') > watch.after);
        return isReply ? { timed_out: false, message: data } : undefined;
      },
      timedOut: (reply) => ({ timed_out: true, thread_id: (reply as WatchReply).thread_id }),
    },
  },
  { name: 'list_inboxes', title: 'List inboxes', description: 'Lists your inboxes with their addresses.', input: {}, toMessage: () => service('list_inboxes', {}) },
  {
    name: 'get_thread',
    title: 'Get a thread',
    description: 'A thread with its messages (sender, recipients, date, Markdown content and content_clean without quoted history).',
    input: { thread_id: ThreadId },
    toMessage: (args) => service('get_thread', { thread_id: args.thread_id }),
  },
];

export const resources: ResourceContract[] = [
  {
    name: 'inbox-recent',
    title: 'Recent threads of an inbox',
    description: 'The 10 most recent threads of an inbox: id, subject, last_message_at, message_count, participants.',
    uriTemplate: 'email://inbox/{inbox_id}/recent',
    toMessage: (variables) => service('recent_threads', { inbox_id: variables.inbox_id, limit: 10 }),
    render: (data) => JSON.stringify((data as { threads: unknown[] }).threads, null, 2),
  },
  {
    name: 'thread',
    title: 'An email thread',
    description: 'A thread as Markdown for an LLM\'s context: the subject, then each message with sender, date and body.',
    uriTemplate: 'email://thread/{thread_id}',
    mimeType: 'text/markdown',
    toMessage: (variables) => service('thread_markdown', { thread_id: variables.thread_id }),
    render: (data) => (data as { markdown: string }).markdown,
  },
];
