/**
 * Incoming bodies, made for agents: HTML becomes Markdown (an agent reads structure, not markup), and
 * `content_clean` is what the sender actually wrote this time, without the quoted history and signature
 * that make every reply in a long thread repeat the whole thread. email-reply-parser finds the common
 * cases; the cuts here cover what it misses (Outlook header blocks, forwards, Markdown from HTML, `-- `).
 */
import EmailReplyParser from 'email-reply-parser';
import TurndownService from 'turndown';

export type InboundBody = { text?: string; html?: string };

export type InboundContent = { content: string; content_clean: string };

const turndown = new TurndownService({
  // ATX headings and `* * *` rules: email-reply-parser reads a short `==`/`---` line as a signature separator.
  headingStyle: 'atx',
  hr: '* * *',
  bulletListMarker: '-',
  codeBlockStyle: 'fenced',
}).remove(['script', 'style', 'head', 'title', 'meta', 'link', 'noscript', 'template']);

/** Markdown for an HTML body; scripts, styles and the document head leave no text behind. */
export function htmlToMarkdown(html: string): string {
  return turndown
    .turndown(html)
    .replace(/\u00a0/g, ' ')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * A line as a header matcher should see it: no Markdown emphasis or escapes from turndown
 * (`**From:** …`, `\-- `), no leading indentation.
 */
function bare(line: string): string {
  return line
    .replace(/\\([\\`*_{}[\]()#+\-.!>~|])/g, '$1')
    .replace(/\*\*|__/g, '')
    .trim();
}

const FORWARD_OR_ORIGINAL = [
  /^-{2,}\s*(?:original message|forwarded message|message d'origine|ursprüngliche nachricht|mensaje original)\s*-{2,}$/i,
  /^begin forwarded message:?$/i,
  /^-{2,}\s*forwarded by .*-{2,}$/i,
];

/** `On <date>, <name> wrote:`, which Gmail and Apple Mail may wrap over up to three lines. */
const ATTRIBUTION = /^(?:on\s.+\swrote|le\s.+\sa écrit|am\s.+\sschrieb|el\s.+\sescribió)\s?:$/i;

const HEADER_FIELD = /^(?:from|sent|date|to|cc|subject|de|von|envoyé|gesendet|an|à|objet|betreff|para|asunto)\s?:/i;
const FROM_FIELD = /^(?:from|de|von)\s?:\s*\S/i;

/**
 * An Outlook-style quoted header block: `From:` followed closely by at least two more header fields
 * (blank lines between them allowed, as when each field was its own paragraph in the HTML).
 */
function startsHeaderBlock(lines: string[], index: number): boolean {
  if (!FROM_FIELD.test(lines[index]!)) return false;
  const following = lines.slice(index + 1, index + 9).filter((line) => line !== '').slice(0, 4);
  return following.filter((line) => HEADER_FIELD.test(line)).length >= 2;
}

function startsAttribution(lines: string[], index: number): boolean {
  let joined = '';
  for (let j = index; j < Math.min(lines.length, index + 3); j += 1) {
    joined = joined === '' ? lines[j]! : `${joined} ${lines[j]!}`;
    // A real attribution carries a date or an address; "On Monday I wrote:" in prose does not.
    if (ATTRIBUTION.test(joined) && /[\d@]/.test(joined)) return true;
  }
  return false;
}

/** Separator lines clients put above a quoted header block: Outlook's underscores, an hr from HTML. */
const SEPARATOR = /^(?:_{8,}|-{8,}|\*(?:\s?\*){2,})$/;

/** Index of the first line of quoted history (or of the separator just above it), or -1. */
function historyStart(lines: string[]): number {
  const plain = lines.map(bare);
  for (let i = 0; i < plain.length; i += 1) {
    const quotesFromHere =
      FORWARD_OR_ORIGINAL.some((pattern) => pattern.test(plain[i]!)) ||
      startsAttribution(plain, i) ||
      startsHeaderBlock(plain, i);
    if (!quotesFromHere) continue;
    let start = i;
    while (start > 0 && (plain[start - 1] === '' || SEPARATOR.test(plain[start - 1]!))) start -= 1;
    return start;
  }
  return -1;
}

/** The RFC 3676 delimiter (`-- `, often stripped to `--`) and the phone or app boilerplate after a message. */
const SIGNATURE_START = [/^--\s?$/, /^sent from my\s.+$/i, /^sent from (?:outlook|mail|yahoo mail)\b.*$/i, /^get outlook for\s.+$/i];

function signatureStart(lines: string[]): number {
  return lines.findIndex((line) => SIGNATURE_START.some((pattern) => pattern.test(bare(line))));
}

/**
 * The message without quoted history and signature: everything from the first quote header
 * (`On … wrote:`, `-----Original Message-----`, a forwarded block, an Outlook `From:/Sent:/Subject:` block)
 * on, lines quoted with `>`, and the signature (`-- `, "Sent from my iPhone", the sign-offs
 * email-reply-parser knows such as "Best regards,"). May be empty when the message adds nothing of its
 * own, such as a bare forward.
 */
export function cleanContent(text: string): string {
  let lines = text.replace(/\r\n?/g, '\n').split('\n');
  const history = historyStart(lines);
  if (history >= 0) lines = lines.slice(0, history);
  const signature = signatureStart(lines);
  if (signature >= 0) lines = lines.slice(0, signature);
  lines = lines.filter((line) => !/^\s*>/.test(line));
  const visible = new EmailReplyParser().read(lines.join('\n')).getVisibleText();
  return visible
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Both content fields of an inbound message: Markdown from the HTML part when there is one, else the text part. */
export function inboundContent(body: InboundBody): InboundContent {
  const fromHtml = body.html && body.html.trim() !== '' ? htmlToMarkdown(body.html) : '';
  const content = fromHtml !== '' ? fromHtml : (body.text ?? '').replace(/\r\n?/g, '\n').trim();
  return { content, content_clean: cleanContent(content) };
}
