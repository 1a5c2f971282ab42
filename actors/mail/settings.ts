/**
 * How mail behaves in a deployment (MAIL_* variables): the domain inboxes live on, how mail leaves,
 * which domains it may go to, how fast an inbox may send, and the webhook secrets.
 */
export interface MailSettings {
  /** Inboxes are `username@domain`. */
  domain: string;
  /** `local`: delivery only between troupe inboxes; `smtp`: nodemailer to `smtpUrl`. */
  transport: 'local' | 'smtp';
  smtpUrl: string | null;
  /** Outbound domains: a non-empty allow list admits only these; the block list always refuses. */
  allowDomains: string[];
  blockDomains: string[];
  /** Messages one inbox may send per minute. */
  sendPerMinute: number;
  /** POST /inboxes/:id/inbound simulates received mail (development; off in production). */
  demoInbound: boolean;
}

export const DEFAULT_MAIL_SETTINGS: MailSettings = {
  domain: 'troupe.local',
  transport: 'local',
  smtpUrl: null,
  allowDomains: [],
  blockDomains: [],
  sendPerMinute: 30,
  demoInbound: true,
};
