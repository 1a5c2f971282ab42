/**
 * Mail leaving troupe through SMTP (MAIL_TRANSPORT=smtp): nodemailer to SMTP_URL, with the message's
 * own Message-ID and reply headers. One transporter per URL, reused across turns.
 */
import type { Transporter } from 'nodemailer';

const transporters = new Map<string, Transporter>();

export interface OutgoingMail {
  from: string;
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  html: string;
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  attachments: Array<{ filename: string; contentType: string; content: Buffer }>;
}

/** Sends one message; resolves with the server's answer, rejects with its reason. */
export async function sendBySmtp(smtpUrl: string, mail: OutgoingMail): Promise<string> {
  // Imported on the first message sent by SMTP: the local transport (the default) never needs it.
  const { default: nodemailer } = await import('nodemailer');
  let transporter = transporters.get(smtpUrl);
  if (!transporter) {
    transporter = nodemailer.createTransport(smtpUrl);
    transporters.set(smtpUrl, transporter);
  }
  const info = await transporter.sendMail({
    from: mail.from,
    to: mail.to,
    cc: mail.cc.length ? mail.cc : undefined,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    messageId: mail.messageId,
    ...(mail.inReplyTo ? { inReplyTo: mail.inReplyTo } : {}),
    ...(mail.references.length ? { references: mail.references } : {}),
    attachments: mail.attachments,
  });
  return String(info.response ?? 'accepted');
}
