/**
 * Turns an uploaded file into plain text that chunking can work with. Users upload text, Markdown and
 * PDF (spec: documents for scouting runs); anything else, or a file we cannot read, is refused here
 * with a reason a person can act on, before any chunk is written.
 */
import { extractText, getDocumentProxy } from 'unpdf';

export type DocumentFormat = 'text' | 'markdown' | 'pdf';

export interface ParsedDocument {
  /** Line endings normalised to `\n`; a PDF's pages are separated by a blank line. */
  text: string;
  format: DocumentFormat;
  /** PDF only. */
  pages?: number;
}

export interface DocumentUpload {
  name: string;
  contentType?: string;
  bytes: Uint8Array;
}

/** A file that cannot become searchable text; `reason` is meant for the person who uploaded it. */
export class DocumentParseError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'DocumentParseError';
  }
}

export const ACCEPTED_DOCUMENTS = 'plain text (.txt, text/plain), Markdown (.md, .markdown, text/markdown) or PDF (.pdf, application/pdf)';

const FORMAT_BY_EXTENSION: Record<string, DocumentFormat> = { txt: 'text', md: 'markdown', markdown: 'markdown', pdf: 'pdf' };

const FORMAT_BY_CONTENT_TYPE: Record<string, DocumentFormat> = {
  'text/plain': 'text',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'application/pdf': 'pdf',
  'application/x-pdf': 'pdf',
};


/** Share of control bytes above which a file is taken for binary rather than text. */
const BINARY_CONTROL_SHARE = 0.02;

/**
 * A PDF starts with `%PDF-`. Readers tolerate junk before it, but a text file that merely mentions the
 * header must stay text, so only leading whitespace is skipped.
 */
export function hasPdfHeader(bytes: Uint8Array): boolean {
  let start = 0;
  while (start < bytes.length && (bytes[start] === 0x20 || bytes[start] === 0x09 || bytes[start] === 0x0a || bytes[start] === 0x0d)) start++;
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.min(5, bytes.length - start)).toString('latin1') === '%PDF-';
}

/**
 * The format by the file's own bytes first (a PDF says so), then by its extension (browsers often
 * send `.md` as text/plain or application/octet-stream), then by the declared content type.
 */
export function detectFormat(upload: DocumentUpload): DocumentFormat {
  if (hasPdfHeader(upload.bytes)) return 'pdf';
  const extension = /\.([a-z0-9]+)$/i.exec(upload.name)?.[1]?.toLowerCase();
  const byExtension = extension === undefined ? undefined : FORMAT_BY_EXTENSION[extension];
  if (byExtension) return byExtension;
  const contentType = upload.contentType?.split(';')[0]?.trim().toLowerCase();
  const byContentType = contentType ? FORMAT_BY_CONTENT_TYPE[contentType] : undefined;
  if (byContentType) return byContentType;
  const described = contentType ? `type ${contentType}` : extension ? `extension .${extension}` : 'no recognisable type';
  throw new DocumentParseError(`"${upload.name}" is not a supported document (${described}); upload ${ACCEPTED_DOCUMENTS}.`);
}

export async function parseDocument(upload: DocumentUpload): Promise<ParsedDocument> {
  const format = detectFormat(upload);
  if (format === 'pdf') {
    const { text, pages } = await pdfText(upload);
    if (!/[\p{L}\p{N}]/u.test(text)) {
      throw new DocumentParseError(
        `"${upload.name}" has no extractable text: it looks like a scanned PDF (pages stored as images). Run it through OCR and upload the result.`,
      );
    }
    return { text, format, pages };
  }
  const text = normaliseText(decodeUtf8(upload));
  if (!text.trim()) throw new DocumentParseError(`"${upload.name}" is empty: it has no text to search.`);
  return { text, format };
}

/** `\n` line endings, no trailing blanks on lines, composed Unicode: what chunking and hashing expect. */
export function normaliseText(text: string): string {
  return text
    .replace(/\r\n?|[\u2028\u2029]/g, '\n')
    .replace(/\f/g, '\n\n')
    .replace(/[ \t\u00a0]+$/gm, '')
    .normalize('NFC');
}

function decodeUtf8(upload: DocumentUpload): string {
  const { bytes, name } = upload;
  const utf16 = bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff));
  if (utf16) throw new DocumentParseError(`"${name}" is UTF-16 text; save it as UTF-8 and upload it again.`);
  if (looksBinary(bytes)) throw new DocumentParseError(`"${name}" looks like a binary file, not text; upload ${ACCEPTED_DOCUMENTS}.`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new DocumentParseError(`"${name}" is not valid UTF-8 text; save it as UTF-8 and upload it again.`);
  }
}

/** A NUL byte, or more than a sliver of other control bytes, never occurs in a text file. */
function looksBinary(bytes: Uint8Array): boolean {
  let control = 0;
  for (const byte of bytes) {
    if (byte === 0) return true;
    const whitespace = byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d;
    if ((byte < 0x20 && !whitespace) || byte === 0x7f) control++;
  }
  return bytes.length > 0 && control / bytes.length > BINARY_CONTROL_SHARE;
}

async function pdfText(upload: DocumentUpload): Promise<{ text: string; pages: number }> {
  if (!hasPdfHeader(upload.bytes)) {
    throw new DocumentParseError(`"${upload.name}" is not a valid PDF: it does not start with a PDF header (%PDF-).`);
  }
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js may take ownership of the buffer it is given, so it gets a copy; verbosity 0 keeps its
    // warnings about damaged files out of the logs (the error below says what matters).
    pdf = await getDocumentProxy(new Uint8Array(upload.bytes), { verbosity: 0 });
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (name === 'PasswordException') {
      throw new DocumentParseError(`"${upload.name}" is password-protected; remove the password and upload it again.`);
    }
    throw new DocumentParseError(`"${upload.name}" could not be read as a PDF (${describe(error)}); it may be damaged.`);
  }
  try {
    const { totalPages, text } = await extractText(pdf, { mergePages: false });
    return { text: text.map((page) => normaliseText(page).trim()).join('\n\n'), pages: totalPages };
  } catch (error) {
    throw new DocumentParseError(`"${upload.name}" could not be read as a PDF (${describe(error)}); it may be damaged.`);
  } finally {
    await pdf.destroy();
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
