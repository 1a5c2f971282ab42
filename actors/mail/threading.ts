/**
 * Which thread a message belongs to, and the headers that keep a reply in its thread at the other end.
 * Pure: it says what to look up (Message-IDs, then a subject within a window), the mail actor does the
 * looking up. The order follows the spec: `In-Reply-To`, then `References` newest first, then the
 * normalized subject with the same participants within 30 days.
 */
import { randomBytes } from 'node:crypto';
import { parseAddress } from './addresses.js';

/** How far back a subject-and-participants match may reach: older conversations start a new thread. */
export const THREAD_SUBJECT_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/** How many References an outgoing reply carries; long threads would otherwise grow the header without bound. */
const MAX_REFERENCES = 20;

/** Reply and forward prefixes (English, German `Aw`/`Wg`, Nordic `Sv`, Dutch `Antw`, French `Tr`), with counters like `Re[2]:`. */
const PREFIX = /^(?:re|fwd?|aw|sv|antw|wg|tr)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]\s*/i;
/** A mailing-list tag such as `[troupe-dev]`. */
const LIST_TAG = /^\[[^\]]*\]\s*/;

/** The subject as threads compare it: reply/forward prefixes and list tags stripped, whitespace collapsed, case-folded. */
export function normalizeSubject(subject: string): string {
  let rest = subject.replace(/\s+/g, ' ').trim();
  for (;;) {
    const stripped = rest.replace(PREFIX, '').replace(LIST_TAG, '');
    if (stripped === rest) break;
    rest = stripped;
  }
  return rest.toLowerCase();
}

/**
 * The Message-IDs in an `In-Reply-To` or `References` header (one string or several), each as `<id>`,
 * in header order, each once. Ids some clients write without angle brackets are accepted too.
 */
export function messageIdsIn(header: string | string[] | undefined): string[] {
  if (header === undefined) return [];
  const values = Array.isArray(header) ? header : [header];
  const ids: string[] = [];
  for (const value of values) {
    const bracketed = value.match(/<[^<>\s]+>/g);
    if (bracketed) ids.push(...bracketed);
    else ids.push(...value.split(/[\s,]+/).filter((token) => token.includes('@')).map((token) => `<${token}>`));
  }
  return [...new Set(ids)];
}

/** One key for a set of addresses, whatever their order, case or display names. */
export function participantsKey(addresses: string[]): string {
  const normalised = addresses.map((entry) => parseAddress(entry)?.address ?? entry.trim().toLowerCase()).filter((a) => a !== '');
  return [...new Set(normalised)].sort().join(',');
}

/** A fresh globally unique Message-ID: time-ordered prefix plus 96 random bits, at our own domain. */
export function newMessageId(domain: string): string {
  return `<${Date.now().toString(36)}.${randomBytes(12).toString('hex')}@${domain.toLowerCase()}>`;
}

export type ReplyParent = { messageId: string; references: string[] };

export type ReplyHeaders = { inReplyTo: string; references: string[] };

/** `In-Reply-To` and `References` for a reply to `parent` (RFC 5322 §3.6.4), References capped to the latest 20. */
export function replyHeaders(parent: ReplyParent): ReplyHeaders {
  const chain = [...parent.references.filter((id) => id !== parent.messageId), parent.messageId];
  const references = [...new Set(chain)].slice(-MAX_REFERENCES);
  return { inReplyTo: parent.messageId, references };
}

export type ThreadableMessage = {
  inReplyTo?: string;
  references: string[];
  subject: string;
  participants: string[];
  date: Date;
};

export type SubjectLookup = { normalizedSubject: string; participantsKey: string; since: Date };

export type ThreadCandidates = { byMessageIds: string[]; bySubject: SubjectLookup | null };

/**
 * What to look up to find an arriving message's thread, in match order. First the thread holding any of
 * `byMessageIds` (the first id found wins: `In-Reply-To`, then `References` from newest to oldest); only
 * when none is known, a thread with the same normalized subject and participants whose last message is
 * not older than `since`. A subject that normalizes to nothing ("Re:") never matches by subject: unrelated
 * messages would merge.
 */
export function threadCandidates(message: ThreadableMessage): ThreadCandidates {
  const byMessageIds = [...new Set([...messageIdsIn(message.inReplyTo), ...messageIdsIn(message.references).reverse()])];
  const normalizedSubject = normalizeSubject(message.subject);
  const bySubject =
    normalizedSubject === ''
      ? null
      : {
          normalizedSubject,
          participantsKey: participantsKey(message.participants),
          since: new Date(message.date.getTime() - THREAD_SUBJECT_WINDOW_MS),
        };
  return { byMessageIds, bySubject };
}
