/**
 * Mail as it is stored: inboxes, threads, messages and attachments. Every query filters by owner; a
 * thread belongs to one inbox. Messages carry a text index (subject, content, participants) so search
 * looks terms up instead of scanning.
 */
import { randomBytes } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';

export const mailId = (prefix: 'ibx' | 'th' | 'msg' | 'att') => `${prefix}_${randomBytes(12).toString('hex')}`;

export interface InboxRecord {
  _id: string;
  ownerId: string;
  username: string;
  email_address: string;
  name: string;
  created_at: Date;
}

export interface ThreadRecord {
  _id: string;
  ownerId: string;
  inboxId: string;
  subject: string;
  normalized_subject: string;
  participants: string[];
  participants_key: string;
  message_count: number;
  last_message_at: Date;
  created_at: Date;
}

export type MessageStatus = 'received' | 'sent' | 'delivered' | 'failed';

export interface MessageRecord {
  _id: string;
  ownerId: string;
  inboxId: string;
  threadId: string;
  direction: 'inbound' | 'outbound';
  /** The RFC 5322 Message-ID, with angle brackets. */
  message_id: string;
  in_reply_to: string | null;
  references: string[];
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  /** The body as Markdown (inbound HTML converted), and without quoted history and signature. */
  content: string;
  content_clean: string;
  text: string | null;
  html: string | null;
  status: MessageStatus;
  status_reason: string | null;
  attachment_ids: string[];
  created_at: Date;
}

export interface AttachmentRecord {
  _id: string;
  ownerId: string;
  messageId: string;
  filename: string;
  content_type: string;
  size: number;
  data: Buffer;
}

const inboxSchema = new Schema<InboxRecord>(
  {
    _id: { type: String, required: true },
    ownerId: { type: String, required: true, index: true },
    username: { type: String, required: true, unique: true },
    email_address: { type: String, required: true, unique: true },
    name: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'mail_inboxes', versionKey: false },
);

const threadSchema = new Schema<ThreadRecord>(
  {
    _id: { type: String, required: true },
    ownerId: { type: String, required: true },
    inboxId: { type: String, required: true },
    subject: { type: String, required: true },
    normalized_subject: { type: String, required: true },
    participants: { type: [String], default: [] },
    participants_key: { type: String, required: true },
    message_count: { type: Number, required: true },
    last_message_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'mail_threads', versionKey: false },
);
threadSchema.index({ ownerId: 1, inboxId: 1, last_message_at: -1 });
threadSchema.index({ inboxId: 1, normalized_subject: 1, participants_key: 1, last_message_at: -1 });

const messageSchema = new Schema<MessageRecord>(
  {
    _id: { type: String, required: true },
    ownerId: { type: String, required: true },
    inboxId: { type: String, required: true },
    threadId: { type: String, required: true },
    direction: { type: String, required: true },
    message_id: { type: String, required: true },
    in_reply_to: { type: String, default: null },
    references: { type: [String], default: [] },
    from: { type: String, required: true },
    to: { type: [String], default: [] },
    cc: { type: [String], default: [] },
    subject: { type: String, default: '' },
    content: { type: String, default: '' },
    content_clean: { type: String, default: '' },
    text: { type: String, default: null },
    html: { type: String, default: null },
    status: { type: String, required: true },
    status_reason: { type: String, default: null },
    attachment_ids: { type: [String], default: [] },
    created_at: { type: Date, required: true },
  },
  { collection: 'mail_messages', versionKey: false },
);
messageSchema.index({ threadId: 1, created_at: 1 });
messageSchema.index({ inboxId: 1, message_id: 1 });
messageSchema.index({ ownerId: 1, subject: 'text', content: 'text', from: 'text', to: 'text' }, { weights: { subject: 3, content: 1, from: 2, to: 2 }, name: 'mail_search' });

const attachmentSchema = new Schema<AttachmentRecord>(
  {
    _id: { type: String, required: true },
    ownerId: { type: String, required: true },
    messageId: { type: String, required: true, index: true },
    filename: { type: String, required: true },
    content_type: { type: String, required: true },
    size: { type: Number, required: true },
    data: { type: Buffer, required: true },
  },
  { collection: 'mail_attachments', versionKey: false },
);

export interface MailModels {
  inboxes: Model<InboxRecord>;
  threads: Model<ThreadRecord>;
  messages: Model<MessageRecord>;
  attachments: Model<AttachmentRecord>;
}

export function mailModels(connection: Connection): MailModels {
  const model = <T>(name: string, schema: Schema<T>) => (connection.models[name] as Model<T> | undefined) ?? connection.model<T>(name, schema);
  return {
    inboxes: model('MailInbox', inboxSchema),
    threads: model('MailThread', threadSchema),
    messages: model('MailMessage', messageSchema),
    attachments: model('MailAttachment', attachmentSchema),
  };
}

export const findInboxByAddress = (connection: Connection, address: string) => mailModels(connection).inboxes.findOne({ email_address: address.toLowerCase() }).lean().exec();

/** What threading looks up (see actors/mail/threading.ts for the order). */
export interface ThreadLookup {
  byMessageIds: string[];
  bySubject: { normalizedSubject: string; participantsKey: string; since: Date } | null;
}

/** The inbox's thread a message belongs to, by the spec's order, or null for a new thread. */
export async function findThread(connection: Connection, inboxId: string, lookup: ThreadLookup): Promise<ThreadRecord | null> {
  const { messages, threads } = mailModels(connection);
  for (const id of lookup.byMessageIds) {
    const parent = await messages.findOne({ inboxId, message_id: id }, { threadId: 1 }).lean().exec();
    if (parent) return threads.findOne({ _id: parent.threadId, inboxId }).lean().exec();
  }
  if (!lookup.bySubject) return null;
  const { normalizedSubject, participantsKey, since } = lookup.bySubject;
  return threads.findOne({ inboxId, normalized_subject: normalizedSubject, participants_key: participantsKey, last_message_at: { $gte: since } }).sort({ last_message_at: -1 }).lean().exec();
}

/** Adds a message to its thread (or a new one), keeping the thread's summary up to date. */
export async function storeMessage(
  connection: Connection,
  message: Omit<MessageRecord, '_id' | 'threadId'>,
  thread: { existing: ThreadRecord | null; subject: string; normalizedSubject: string; participants: string[]; participantsKey: string },
  attachments: Array<Pick<AttachmentRecord, 'filename' | 'content_type' | 'data'>> = [],
): Promise<MessageRecord> {
  const models = mailModels(connection);
  const messageId = mailId('msg');
  const threadId = thread.existing?._id ?? mailId('th');
  const stored = attachments.map((a) => ({ ...a, _id: mailId('att'), ownerId: message.ownerId, messageId, size: a.data.length }));
  if (stored.length) await models.attachments.insertMany(stored);
  const record: MessageRecord = { ...message, _id: messageId, threadId, attachment_ids: stored.map((a) => a._id) };
  await models.messages.create(record);
  if (thread.existing) {
    await models.threads
      .updateOne({ _id: threadId }, { $inc: { message_count: 1 }, $max: { last_message_at: message.created_at }, $addToSet: { participants: { $each: thread.participants } } })
      .exec();
  } else {
    await models.threads.create({
      _id: threadId,
      ownerId: message.ownerId,
      inboxId: message.inboxId,
      subject: thread.subject,
      normalized_subject: thread.normalizedSubject,
      participants: thread.participants,
      participants_key: thread.participantsKey,
      message_count: 1,
      last_message_at: message.created_at,
      created_at: message.created_at,
    });
  }
  return record;
}
