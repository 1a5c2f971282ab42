/**
 * Mail arriving from outside, translated into `deliver` messages to the recipients' inboxes: the SMTP
 * listener (smtp-server + mailparser; 550 for an unknown recipient) and the webhooks (POST
 * /webhooks/mail/mailgun with Mailgun's signature, POST /webhooks/mail/generic with troupe's own).
 * Each inbox is addressed on its owner's behalf; its actor stores and threads the message.
 */
import Router from '@koa/router';
import busboy from 'busboy';
import type { Context } from 'koa';
import type { AddressObject, ParsedMail } from 'mailparser';
import type { Connection } from 'mongoose';
import { z } from 'zod';
import type { DeliverPayload } from '../actors/mail/contract.js';
import { INBOX_KIND } from '../actors/mail/contract.js';
import { verifyGenericSignature, verifyMailgunSignature } from '../actors/mail/webhook-signatures.js';
import type { ActorClient } from '../actors/runtime/client.js';
import type { Logger } from '../actors/runtime/contract.js';
import { findInboxByAddress } from '../models/mail.js';
import { ApiError } from './error-response.js';
import type { GatewayState } from './state.js';

export interface MailInboundDeps {
  mongo: Connection;
  client: Pick<ActorClient, 'send'>;
  logger: Logger;
}

export type InboundMail = Omit<DeliverPayload, 'via'>;

/** Sends the message to every recipient that is a troupe inbox; says which were and which not. */
export async function deliverInbound(deps: MailInboundDeps, mail: InboundMail, recipients: string[], via: DeliverPayload['via']): Promise<{ delivered: string[]; unknown: string[] }> {
  const delivered: string[] = [];
  const unknown: string[] = [];
  for (const address of new Set(recipients.map((r) => r.toLowerCase()))) {
    const inbox = await findInboxByAddress(deps.mongo, address);
    if (!inbox) {
      unknown.push(address);
      continue;
    }
    await deps.client.send({ actor: { kind: INBOX_KIND, id: inbox._id }, ownerId: inbox.ownerId, type: 'deliver', payload: { ...mail, via } satisfies DeliverPayload });
    delivered.push(address);
  }
  return { delivered, unknown };
}

const addresses = (value: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(value) ? value : value ? [value] : []).flatMap((a) => a.value.map((v) => v.address ?? '').filter(Boolean));

/** A parsed MIME message as an inbox's `deliver` payload. */
export function fromParsedMail(parsed: ParsedMail): InboundMail {
  const references = parsed.references === undefined ? [] : Array.isArray(parsed.references) ? parsed.references : [parsed.references];
  return {
    from: parsed.from?.value[0]?.address ?? 'unknown@invalid',
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    subject: parsed.subject ?? '',
    text: parsed.text ?? null,
    html: typeof parsed.html === 'string' ? parsed.html : null,
    message_id: parsed.messageId ?? null,
    in_reply_to: parsed.inReplyTo ?? null,
    references,
    date: parsed.date ? parsed.date.toISOString() : null,
    attachments: parsed.attachments.slice(0, 20).map((a) => ({ filename: a.filename ?? 'attachment', content_type: a.contentType, content_base64: a.content.toString('base64') })),
  };
}

export interface SmtpListener {
  port: number;
  close(): Promise<void>;
}

/** The SMTP listener: accepts mail for known inboxes only (550 otherwise), up to 25 MB a message. */
export async function startSmtpListener(deps: MailInboundDeps, options: { host: string; port: number }): Promise<SmtpListener> {
  // Imported only when SMTP_LISTEN asks for a listener.
  const [{ SMTPServer }, { simpleParser }] = await Promise.all([import('smtp-server'), import('mailparser')]);
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: 25 * 1024 * 1024,
    logger: false,
    async onRcptTo(address, _session, callback) {
      try {
        const inbox = await findInboxByAddress(deps.mongo, address.address);
        if (!inbox) {
          const refusal = new Error(`5.1.1 <${address.address}>: no such mailbox`) as Error & { responseCode: number };
          refusal.responseCode = 550;
          callback(refusal);
          return;
        }
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then(async (parsed) => {
          const recipients = session.envelope.rcptTo.map((r) => r.address);
          const result = await deliverInbound(deps, fromParsedMail(parsed), recipients, 'smtp');
          deps.logger.info({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null, delivered: result.delivered }, 'mail received over SMTP');
          callback();
        })
        .catch((error: unknown) => {
          deps.logger.error({ err: error }, 'could not take an SMTP message');
          callback(error as Error);
        });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  server.on('error', (error) => deps.logger.warn({ err: error }, 'SMTP connection error'));
  const address = server.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Fields of a form post (Mailgun sends multipart or urlencoded), files left out. */
function readForm(ctx: Context, limitBytes: number): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, limits: { fieldSize: limitBytes, fields: 200 } });
    } catch (error) {
      reject(new ApiError(400, 'bad_request', `unreadable form: ${(error as Error).message}`));
      return;
    }
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('file', (_name, stream) => stream.resume());
    parser.on('error', (error: Error) => reject(new ApiError(400, 'bad_request', `unreadable form: ${error.message}`)));
    parser.on('close', () => resolve(fields));
    ctx.req.pipe(parser);
  });
}

async function readRaw(ctx: Context, limitBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw new ApiError(413, 'payload_too_large', `the webhook body is larger than ${limitBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export const GenericMail = z
  .object({
    from: z.string().min(3),
    to: z.union([z.string().min(3), z.array(z.string().min(3)).min(1)]),
    cc: z.array(z.string()).default([]),
    subject: z.string().default(''),
    text: z.string().nullable().default(null),
    html: z.string().nullable().default(null),
    message_id: z.string().nullable().default(null),
    in_reply_to: z.string().nullable().default(null),
    references: z.array(z.string()).default([]),
    date: z.string().nullable().default(null),
  })
  .strict();

export const WEBHOOK_PATH = '/webhooks/mail';
const LIMIT_BYTES = 25 * 1024 * 1024;

/**
 * The public webhook routes: no API key, a signature instead. A provider whose secret is not set
 * answers 503 saying which variable to set; a bad or stale signature 401; no known recipient 406
 * (Mailgun's "do not retry").
 */
export function createMailWebhookRouter(deps: MailInboundDeps & { secrets: { mailgunSigningKey: string | null; genericSecret: string | null } }): Router<GatewayState> {
  const router = new Router<GatewayState>();
  const answer = (ctx: Context, result: { delivered: string[]; unknown: string[] }) => {
    if (result.delivered.length === 0) throw new ApiError(406, 'unknown_recipient', `no troupe inbox for ${result.unknown.join(', ') || 'the recipients'}`, { unknown: result.unknown });
    ctx.body = result;
  };
  router.post(`${WEBHOOK_PATH}/mailgun`, async (ctx) => {
    const key = deps.secrets.mailgunSigningKey;
    if (!key) throw new ApiError(503, 'unavailable', 'the Mailgun webhook needs MAILGUN_SIGNING_KEY (your Mailgun HTTP webhook signing key)');
    const form = await readForm(ctx, LIMIT_BYTES);
    const verdict = verifyMailgunSignature({ timestamp: form.timestamp ?? '', token: form.token ?? '', signature: form.signature ?? '' }, key);
    if (!verdict.ok) throw new ApiError(401, 'bad_signature', `the Mailgun signature does not verify: ${verdict.reason}`);
    const recipients = (form.recipient ?? '').split(',').map((r) => r.trim()).filter(Boolean);
    const mail: InboundMail = {
      from: form.sender ?? form.from ?? 'unknown@invalid',
      to: recipients,
      cc: [],
      subject: form.subject ?? '',
      text: form['body-plain'] ?? null,
      html: form['body-html'] ?? null,
      message_id: form['Message-Id'] ?? null,
      in_reply_to: form['In-Reply-To'] ?? null,
      references: (form.References ?? '').split(/\s+/).filter(Boolean),
      date: form.Date ?? null,
      attachments: [],
    };
    answer(ctx, await deliverInbound(deps, mail, recipients, 'webhook'));
  });
  router.post(`${WEBHOOK_PATH}/generic`, async (ctx) => {
    const secret = deps.secrets.genericSecret;
    if (!secret) throw new ApiError(503, 'unavailable', 'the generic mail webhook needs MAIL_WEBHOOK_SECRET');
    const raw = await readRaw(ctx, LIMIT_BYTES);
    const verdict = verifyGenericSignature(raw, ctx.get('x-troupe-signature') || undefined, secret);
    if (!verdict.ok) throw new ApiError(401, 'bad_signature', `the X-Troupe-Signature does not verify: ${verdict.reason}`);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      throw new ApiError(400, 'bad_request', 'the webhook body is not JSON');
    }
    const parsed = GenericMail.safeParse(body);
    if (!parsed.success) throw new ApiError(400, 'bad_request', `invalid mail: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    const to = Array.isArray(parsed.data.to) ? parsed.data.to : [parsed.data.to];
    answer(ctx, await deliverInbound(deps, { ...parsed.data, to, attachments: [] }, to, 'webhook'));
  });
  return router;
}
