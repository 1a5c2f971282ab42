/**
 * Outgoing bodies: agents write Markdown, recipients get a multipart message. The HTML part is marked's
 * output passed through a conservative sanitize-html allow-list, because the Markdown comes from a model
 * and may carry raw HTML (scripts, handlers, `javascript:` links) that must never reach a mail client.
 * The text part is built from the same Markdown tokens so it reads well on its own, links included.
 */
import { Marked, type Token, type Tokens } from 'marked';
import sanitizeHtml from 'sanitize-html';

export type RenderedBody = { html: string; text: string };

/** GitHub-flavoured Markdown; task-list checkboxes become glyphs because mail clients drop `<input>`. */
const markdown = new Marked({ gfm: true, breaks: false, async: false }).use({
  renderer: {
    checkbox({ checked }: Tokens.Checkbox): string {
      return checked ? '☑ ' : '☐ ';
    },
  },
});

/**
 * What an email body may contain: text structure, links, images, tables and code. No scripts, styles,
 * frames, forms or inline `style`/`on*` attributes; links only to http(s) and mailto.
 */
const EMAIL_HTML: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code',
    'strong', 'b', 'em', 'i', 'u', 's', 'del', 'sub', 'sup', 'a', 'img', 'ul', 'ol', 'li',
    'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    ol: ['start'],
    th: ['align', 'colspan', 'rowspan'],
    td: ['align', 'colspan', 'rowspan'],
  },
  allowedClasses: { code: [/^language-[\w-]+$/] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https', 'cid'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    // Recipients open links from mail they did not write; the opened page gets no handle on the client.
    a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer' }, true),
  },
};

/** Link targets worth showing in the text part; the HTML part drops any other scheme, so the text does too. */
const READABLE_URL = /^(?:https?:|mailto:)/i;

/** Elements whose content is code or layout, never readable text. */
const HIDDEN_CONTENT = /^<(script|style|textarea|noscript|iframe|object|template)\b/i;

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return named[body.toLowerCase()] ?? entity;
  });
}

/** Raw HTML written in the Markdown, as its visible text only. */
function htmlAsText(html: string): string {
  return decodeEntities(sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} }));
}

/** Inline tokens as plain text: formatting dropped, links as `text (url)`. */
function inlineText(tokens: Token[] | undefined): string {
  if (!tokens) return '';
  let out = '';
  let hiddenUntil: string | null = null;
  for (const token of tokens) {
    if (hiddenUntil) {
      if (token.type === 'html' && new RegExp(`^</${hiddenUntil}\\s*>`, 'i').test(token.text)) hiddenUntil = null;
      continue;
    }
    out += inlineTokenText(token, (tag) => (hiddenUntil = tag));
  }
  return out;
}

function inlineTokenText(token: Token, hide: (tag: string) => void): string {
  switch (token.type) {
    case 'text':
      return token.tokens ? inlineText(token.tokens) : decodeEntities(token.text);
    case 'escape':
    case 'codespan':
      return token.text;
    case 'strong':
    case 'em':
    case 'del':
      return inlineText(token.tokens);
    case 'br':
      return '\n';
    case 'link': {
      const label = inlineText(token.tokens);
      if (!READABLE_URL.test(token.href)) return label;
      const target = token.href.replace(/^mailto:/i, '');
      return label === '' ? token.href : label === target ? label : `${label} (${token.href})`;
    }
    case 'image':
      if (!READABLE_URL.test(token.href)) return token.text;
      return token.text ? `${token.text} (${token.href})` : token.href;
    case 'html': {
      const hidden = HIDDEN_CONTENT.exec(token.text);
      if (hidden) hide(hidden[1]!);
      return htmlAsText(token.text);
    }
    default:
      // Tokens of extensions this renderer does not know: their children if any, else their source.
      return (token as Tokens.Generic).tokens ? inlineText((token as Tokens.Generic).tokens) : String(token.raw ?? '');
  }
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : prefix + line))
    .join('\n');
}

function listText(list: Tokens.List): string {
  const start = typeof list.start === 'number' ? list.start : 1;
  return list.items
    .map((item, index) => {
      const task = item.task ? (item.checked ? '[x] ' : '[ ] ') : '';
      const marker = (list.ordered ? `${start + index}. ` : '- ') + task;
      const body = blocksText(item.tokens.filter((token) => token.type !== 'checkbox'), '\n');
      return marker + indent(body, ' '.repeat(marker.length)).slice(marker.length);
    })
    .join('\n');
}

function tableText(table: Tokens.Table): string {
  const row = (cells: Tokens.TableCell[]): string => cells.map((cell) => inlineText(cell.tokens)).join(' | ');
  return [row(table.header), ...table.rows.map(row)].join('\n');
}

/** Block tokens as plain text, joined by `separator` (a blank line between paragraphs, a newline inside list items). */
function blocksText(tokens: Token[], separator = '\n\n'): string {
  const blocks: string[] = [];
  for (const token of tokens) {
    switch (token.type) {
      case 'space':
      case 'def':
        break;
      case 'heading':
      case 'paragraph':
        blocks.push(inlineText(token.tokens));
        break;
      case 'text':
        blocks.push(token.tokens ? inlineText(token.tokens) : decodeEntities(token.text));
        break;
      case 'code':
        blocks.push(token.text);
        break;
      case 'blockquote':
        blocks.push(indent(blocksText(token.tokens ?? []), '> ').replace(/^$/gm, '>'));
        break;
      case 'list':
        blocks.push(listText(token as Tokens.List));
        break;
      case 'table':
        blocks.push(tableText(token as Tokens.Table));
        break;
      case 'hr':
        blocks.push('----');
        break;
      case 'html':
        blocks.push(htmlAsText(token.text).trim());
        break;
      default:
        blocks.push((token as Tokens.Generic).tokens ? blocksText((token as Tokens.Generic).tokens ?? []) : inlineText([token]));
    }
  }
  return blocks.filter((block) => block !== '').join(separator);
}

/** The two parts of an outgoing message written in Markdown. */
export function renderMarkdown(source: string): RenderedBody {
  const tokens = markdown.lexer(source);
  const text = blocksText(tokens).replace(/[ \t]+$/gm, '').trim();
  const html = sanitizeHtml(markdown.parser(tokens), EMAIL_HTML).trim();
  return { html, text };
}
