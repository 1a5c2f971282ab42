/**
 * Inboxes as actors: one per address. An inbox's turns create it, send from it (threading, Markdown
 * to HTML, the per-inbox rate limit, domain policy, local or SMTP delivery) and receive into it
 * (threading, HTML to Markdown, quoted history trimmed). Every message stored is published on the
 * inbox's feed, which is what wakes `wait_for_reply` in whichever gateway waits. Reads (inboxes,
 * threads, search, the resources) are the `mail` service, straight from MongoDB, filtered by owner.
 */
import type { Connection } from 'mongoose';
import { findInboxByAddress, findThread, mailModels, storeMessage, type MessageRecord, type ThreadRecord } from '../../models/mail.js';
import { RequestError, type ActorKind, type ServiceKind, type TurnContext } from '../runtime/contract.js';
import { addressOf, domainOf, domainPolicy, parseAddress } from './addresses.js';
import { http, INBOX_KIND, MAIL_KIND, messages, resources, serviceMessages, tools, type DeliverPayload, type SendPayload, type WatchReply } from './contract.js';
import { inboundContent } from './inbound-body.js';
import { renderMarkdown } from './markdown-body.js';
import { DEFAULT_MAIL_SETTINGS, type MailSettings } from './settings.js';
import { sendBySmtp } from './smtp-transport.js';
import { threadAsMarkdown } from './thread-markdown.js';
import { messageIdsIn, newMessageId, normalizeSubject, participantsKey, replyHeaders, threadCandidates } from './threading.js';

export interface InboxState {
  inbox_id: string;
  email_address: string | null;
  name: string | null;
  created_at: string | null;
  /** When recent sends happened (ms), for the per-inbox rate limit. */
  recent_sends: number[];
  sent: number;
  received: number;
}

const settingsOf = (ctx: { resources: { mail?: MailSettings } }) => ctx.resources.mail ?? DEFAULT_MAIL_SETTINGS;
const SEND_WINDOW_MS = 60_000;

const inboxView = (s: InboxState) => ({ id: s.inbox_id, inbox_id: s.inbox_id, email_address: s.email_address, name: s.name, created_at: s.created_at });

/** What a stored message looks like to its owner (and to wait_for_reply). */
export const messageView = (m: MessageRecord) => ({
  id: m._id,
  message_id: m._id,
  thread_id: m.threadId,
  inbox_id: m.inboxId,
  direction: m.direction,
  from: m.from,
  to: m.to,
  cc: m.cc,
  subject: m.subject,
  content: m.content,
  content_clean: m.content_clean,
  status: m.status,
  ...(m.status_reason ? { status_reason: m.status_reason } : {}),
  rfc_message_id: m.message_id,
  in_reply_to: m.in_reply_to,
  attachments: m.attachment_ids.length,
  created_at: m.created_at.toISOString(),
});

const threadSummary = (t: ThreadRecord) => ({ id: t._id, subject: t.subject, last_message_at: t.last_message_at.toISOString(), message_count: t.message_count, participants: t.participants });

async function create(state: InboxState, payload: { username: string; name: string }, ctx: TurnContext): Promise<InboxState> {
  if (state.created_at !== null) throw new RequestError('conflict', `inbox ${state.inbox_id} already exists`);
  const address = addressOf(payload.username, settingsOf(ctx).domain);
  const at = new Date();
  try {
    await mailModels(ctx.resources.mongo).inboxes.create({ _id: state.inbox_id, ownerId: ctx.ownerId, username: payload.username, email_address: address, name: payload.name, created_at: at });
  } catch (error) {
    if ((error as { code?: number }).code === 11000) throw new RequestError('conflict', `the email address ${address} is already in use`, { email_address: address });
    throw error;
  }
  const next: InboxState = { ...state, email_address: address, name: payload.name, created_at: at.toISOString() };
  ctx.reply(inboxView(next));
  return next;
}

const asList = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

function addressesOf(values: string[], field: string): string[] {
  return values.map((value) => {
    const parsed = parseAddress(value);
    if (!parsed) throw new RequestError('bad_request', `${field}: '${value}' is not an email address`);
    return parsed.address;
  });
}

/** Where one recipient's copy went: another troupe inbox, SMTP, or nowhere (with why). */
type Outcome = { status: 'delivered' | 'sent' } | { status: 'failed'; reason: string };

async function send(state: InboxState, payload: SendPayload, ctx: TurnContext): Promise<InboxState> {
  if (state.created_at === null) throw new RequestError('not_found', `inbox ${state.inbox_id} not found`);
  const settings = settingsOf(ctx);
  const now = Date.now();
  const recent = state.recent_sends.filter((t) => now - t < SEND_WINDOW_MS);
  if (recent.length >= settings.sendPerMinute) {
    const retryAfterSeconds = Math.ceil((recent[0]! + SEND_WINDOW_MS - now) / 1000);
    throw new RequestError('rate_limited', `inbox ${state.email_address} may send ${settings.sendPerMinute} messages a minute`, { retryAfterSeconds, limit: settings.sendPerMinute });
  }
  const to = addressesOf(asList(payload.to), 'to');
  const cc = addressesOf(asList(payload.cc), 'cc');
  for (const address of [...to, ...cc]) {
    const policy = domainPolicy(address, { allow: settings.allowDomains, block: settings.blockDomains });
    if (!policy.ok) throw new RequestError('forbidden', policy.reason, { address });
  }
  const mongo = ctx.resources.mongo;
  const models = mailModels(mongo);
  let thread: ThreadRecord | null = null;
  let headers: { inReplyTo: string | null; references: string[] } = { inReplyTo: null, references: [] };
  if (payload.thread_id) {
    thread = await models.threads.findOne({ _id: payload.thread_id, inboxId: state.inbox_id, ownerId: ctx.ownerId }).lean().exec();
    if (!thread) throw new RequestError('not_found', `thread ${payload.thread_id} not found in inbox ${state.inbox_id}`);
    const parent = await models.messages.findOne({ threadId: thread._id }).sort({ created_at: -1 }).lean().exec();
    if (parent) headers = replyHeaders({ messageId: parent.message_id, references: parent.references });
  }
  const subject = payload.subject || (thread ? `Re: ${thread.subject}` : '(no subject)');
  const body = renderMarkdown(payload.body);
  const rfcId = newMessageId(settings.domain);
  const attachments = payload.attachments.map((a) => ({ filename: a.filename, content_type: a.content_type, data: Buffer.from(a.content_base64, 'base64') }));

  const outcomes = new Map<string, Outcome>();
  for (const address of [...to, ...cc]) {
    if (domainOf(address) === settings.domain) {
      const target = await findInboxByAddress(mongo, address);
      if (!target) {
        outcomes.set(address, { status: 'failed', reason: `no inbox ${address} on ${settings.domain}` });
        continue;
      }
      const copy: DeliverPayload = {
        from: state.email_address!,
        to,
        cc,
        subject,
        text: body.text,
        html: body.html,
        message_id: rfcId,
        in_reply_to: headers.inReplyTo,
        references: headers.references,
        date: new Date(now).toISOString(),
        attachments: payload.attachments,
        via: 'local',
      };
      // Another user's inbox is still reached: the platform delivers on its owner's behalf.
      ctx.send({ kind: INBOX_KIND, id: target._id }, 'deliver', copy, { as: target.ownerId });
      outcomes.set(address, { status: 'delivered' });
    } else if (settings.transport === 'smtp' && settings.smtpUrl) {
      outcomes.set(address, { status: 'sent' });
    } else {
      outcomes.set(address, { status: 'failed', reason: `MAIL_TRANSPORT=local delivers only between troupe inboxes on ${settings.domain}; ${address} is outside` });
    }
  }
  const outside = [...outcomes.entries()].filter(([, o]) => o.status === 'sent').map(([a]) => a);
  if (outside.length) {
    try {
      await sendBySmtp(settings.smtpUrl!, {
        from: state.email_address!,
        to: to.filter((a) => outside.includes(a)),
        cc: cc.filter((a) => outside.includes(a)),
        subject,
        text: body.text,
        html: body.html,
        messageId: rfcId,
        inReplyTo: headers.inReplyTo,
        references: headers.references,
        attachments: attachments.map((a) => ({ filename: a.filename, contentType: a.content_type, content: a.data })),
      });
    } catch (error) {
      for (const address of outside) outcomes.set(address, { status: 'failed', reason: `SMTP: ${(error as Error).message}` });
    }
  }
  const failed = [...outcomes.entries()].filter(([, o]) => o.status === 'failed') as Array<[string, { status: 'failed'; reason: string }]>;
  const status = failed.length === outcomes.size ? 'failed' : [...outcomes.values()].some((o) => o.status === 'sent') ? 'sent' : 'delivered';
  const participants = [state.email_address!, ...to, ...cc];
  const stored = await storeMessage(
    mongo,
    {
      ownerId: ctx.ownerId,
      inboxId: state.inbox_id,
      direction: 'outbound',
      message_id: rfcId,
      in_reply_to: headers.inReplyTo,
      references: headers.references,
      from: state.email_address!,
      to,
      cc,
      subject,
      content: payload.body,
      content_clean: payload.body,
      text: body.text,
      html: body.html,
      status,
      status_reason: failed.length ? failed.map(([a, o]) => `${a}: ${o.reason}`).join('; ') : null,
      attachment_ids: [],
      created_at: new Date(now),
    },
    { existing: thread, subject, normalizedSubject: normalizeSubject(subject), participants, participantsKey: participantsKey(participants) },
    attachments,
  );
  const view = messageView(stored);
  ctx.publish('message', view);
  ctx.reply({ ...view, message_id: stored._id, recipients: Object.fromEntries([...outcomes.entries()].map(([a, o]) => [a, o])) });
  return { ...state, recent_sends: [...recent, now], sent: state.sent + 1 };
}

async function deliver(state: InboxState, payload: DeliverPayload, ctx: TurnContext): Promise<InboxState> {
  if (state.created_at === null) throw new RequestError('not_found', `inbox ${state.inbox_id} not found`);
  if (payload.via === 'demo' && !settingsOf(ctx).demoInbound) throw new RequestError('forbidden', 'simulated inbound mail is off in production; use SMTP or a webhook');
  if (payload.to.length === 0) payload = { ...payload, to: [state.email_address!] };
  const mongo = ctx.resources.mongo;
  const rfcId = payload.message_id ?? newMessageId(settingsOf(ctx).domain);
  // The same message delivered twice (a retried webhook, an SMTP resend) is stored once.
  const known = await mailModels(mongo).messages.findOne({ inboxId: state.inbox_id, message_id: rfcId, direction: 'inbound' }).lean().exec();
  if (known) {
    ctx.reply({ ...messageView(known), duplicate: true });
    return state;
  }
  const from = parseAddress(payload.from)?.address ?? payload.from.toLowerCase();
  const to = payload.to.map((a) => parseAddress(a)?.address ?? a.toLowerCase());
  const cc = payload.cc.map((a) => parseAddress(a)?.address ?? a.toLowerCase());
  const participants = [...new Set([from, ...to, ...cc])];
  const date = payload.date && !Number.isNaN(Date.parse(payload.date)) ? new Date(payload.date) : new Date();
  const references = messageIdsIn(payload.references);
  const inReplyTo = messageIdsIn(payload.in_reply_to ?? undefined)[0];
  const lookup = threadCandidates({ ...(inReplyTo ? { inReplyTo } : {}), references, subject: payload.subject, participants, date });
  const existing = await findThread(mongo, state.inbox_id, lookup);
  const body = inboundContent({ ...(payload.text ? { text: payload.text } : {}), ...(payload.html ? { html: payload.html } : {}) });
  const stored = await storeMessage(
    mongo,
    {
      ownerId: ctx.ownerId,
      inboxId: state.inbox_id,
      direction: 'inbound',
      message_id: rfcId,
      in_reply_to: inReplyTo ?? null,
      references,
      from,
      to,
      cc,
      subject: payload.subject,
      content: body.content,
      content_clean: body.content_clean,
      text: payload.text,
      html: payload.html,
      status: 'received',
      status_reason: null,
      attachment_ids: [],
      created_at: new Date(),
    },
    { existing, subject: payload.subject || '(no subject)', normalizedSubject: normalizeSubject(payload.subject), participants, participantsKey: participantsKey(participants) },
    payload.attachments.map((a) => ({ filename: a.filename, content_type: a.content_type, data: Buffer.from(a.content_base64, 'base64') })),
  );
  const view = messageView(stored);
  ctx.publish('message', view);
  ctx.reply(view);
  return { ...state, received: state.received + 1 };
}

export const inboxKind: ActorKind<InboxState> = {
  kind: INBOX_KIND,
  stateful: true,
  description: 'Email inboxes for agents: create one, send Markdown mail, receive mail (SMTP, webhooks, other inboxes) into threads.',
  messages,
  http,
  tools,
  resources,
  limits: { rate: { points: 600, durationSeconds: 60 }, concurrent: 20 },
  initialState: (ref) => ({ inbox_id: ref.id, email_address: null, name: null, created_at: null, recent_sends: [], sent: 0, received: 0 }),
  async handle(state, message, ctx) {
    switch (message.type) {
      case 'create':
        return create(state, message.payload as { username: string; name: string }, ctx);
      case 'send':
        return send(state, message.payload as SendPayload, ctx);
      case 'deliver':
        return deliver(state, message.payload as DeliverPayload, ctx);
      default:
        throw new RequestError('bad_request', `unknown message ${message.type}`);
    }
  },
};

async function ownedThread(mongo: Connection, ownerId: string, threadId: string): Promise<ThreadRecord> {
  const thread = await mailModels(mongo).threads.findOne({ _id: threadId, ownerId }).lean().exec();
  if (!thread) throw new RequestError('not_found', `thread ${threadId} not found`);
  return thread;
}

async function ownedInbox(mongo: Connection, ownerId: string, inboxId: string) {
  const inbox = await mailModels(mongo).inboxes.findOne({ _id: inboxId, ownerId }).lean().exec();
  if (!inbox) throw new RequestError('not_found', `inbox ${inboxId} not found`);
  return inbox;
}

export const mailKind: ServiceKind = {
  kind: MAIL_KIND,
  stateful: false,
  description: 'Reads of your mail: inboxes, threads, search.',
  messages: serviceMessages,
  concurrency: 8,
  async handle(message, ctx) {
    const owner = message.ownerId;
    const mongo = ctx.resources.mongo;
    const models = mailModels(mongo);
    const p = message.payload as Record<string, unknown>;
    switch (message.type) {
      case 'list_inboxes': {
        const inboxes = await models.inboxes.find({ ownerId: owner }).sort({ created_at: 1 }).lean().exec();
        return { inboxes: inboxes.map((i) => ({ id: i._id, email_address: i.email_address, name: i.name, created_at: i.created_at.toISOString() })) };
      }
      case 'recent_threads': {
        await ownedInbox(mongo, owner, p.inbox_id as string);
        const threads = await models.threads.find({ ownerId: owner, inboxId: p.inbox_id as string }).sort({ last_message_at: -1 }).limit(p.limit as number).lean().exec();
        return { threads: threads.map(threadSummary) };
      }
      case 'get_thread': {
        const thread = await ownedThread(mongo, owner, p.thread_id as string);
        const found = await models.messages.find({ threadId: thread._id, ownerId: owner }).sort({ created_at: 1 }).lean().exec();
        // The HTML part only when asked (a web client renders it); agents read the Markdown content.
        const view = p.include_html ? (m: MessageRecord) => ({ ...messageView(m), html: m.html ?? null }) : messageView;
        return { ...threadSummary(thread), inbox_id: thread.inboxId, messages: found.map(view) };
      }
      case 'thread_markdown': {
        const thread = await ownedThread(mongo, owner, p.thread_id as string);
        const found = await models.messages.find({ threadId: thread._id, ownerId: owner }).sort({ created_at: 1 }).lean().exec();
        return { markdown: threadAsMarkdown(thread, found.map((m) => ({ from: m.from, to: m.to, date: m.created_at, content: m.content, direction: m.direction }))) };
      }
      case 'search': {
        if (p.inbox_id) await ownedInbox(mongo, owner, p.inbox_id as string);
        const filter: Record<string, unknown> = { ownerId: owner, $text: { $search: p.query as string } };
        if (p.inbox_id) filter.inboxId = p.inbox_id;
        const found = await models.messages
          .find(filter, { score: { $meta: 'textScore' } })
          .sort({ score: { $meta: 'textScore' }, created_at: -1 })
          .skip(p.offset as number)
          .limit(p.limit as number)
          .lean()
          .exec();
        return { results: found.map((m) => ({ id: m._id, thread_id: m.threadId, inbox_id: m.inboxId, subject: m.subject, from: m.from, content: m.content_clean || m.content, created_at: m.created_at.toISOString() })) };
      }
      case 'watch_thread': {
        const readAt = Date.now();
        const thread = await ownedThread(mongo, owner, p.thread_id as string);
        const lastSent = await models.messages.findOne({ threadId: thread._id, ownerId: owner, direction: 'outbound' }).sort({ created_at: -1 }).lean().exec();
        const pending = await models.messages
          .findOne({ threadId: thread._id, ownerId: owner, direction: 'inbound', ...(lastSent ? { created_at: { $gt: lastSent.created_at } } : {}) })
          .sort({ created_at: 1 })
          .lean()
          .exec();
        // Without a message of ours in the thread, only what arrives from now on is a reply.
        const watch: WatchReply = {
          thread_id: thread._id,
          inbox_id: thread.inboxId,
          timeout_seconds: p.timeout_seconds as number,
          after: lastSent ? lastSent.created_at.toISOString() : new Date(readAt).toISOString(),
          pending: lastSent && pending ? messageView(pending) : null,
          read_at_ms: readAt,
        };
        return watch;
      }
      default:
        throw new RequestError('bad_request', `unknown message ${message.type}`);
    }
  },
};
