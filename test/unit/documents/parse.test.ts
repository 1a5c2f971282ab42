/** Parsing uploads: format detection, text decoding, PDF text through unpdf, and the refusals. */
import { expect } from 'chai';
import { DocumentParseError, detectFormat, parseDocument } from '../../../actors/documents/parse.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

/**
 * A minimal valid PDF written by hand: catalog, page tree, a Helvetica font, and per page a content
 * stream that prints each line; the cross-reference table gives each object's byte offset.
 */
function minimalPdf(pages: string[][]): Uint8Array {
  const objects: string[] = [];
  const pageIds = pages.map((_, i) => 4 + i * 2);
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`;
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
  pages.forEach((lines, i) => {
    const shown = lines.map((line) => `(${line.replace(/[()\\]/g, (c) => `\\${c}`)}) Tj T*`);
    const stream = ['BT', '/F1 12 Tf', '14 TL', '72 720 Td', ...shown, 'ET'].join('\n');
    const id = pageIds[i]!;
    objects[id] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${id + 1} 0 R >>`;
    objects[id + 1] = `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`;
  });
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = Buffer.byteLength(pdf, 'latin1');
    pdf += `${id} 0 obj\n${objects[id]}\nendobj\n`;
  }
  const xref = Buffer.byteLength(pdf, 'latin1');
  pdf += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) pdf += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(pdf, 'latin1'));
}

async function parseError(promise: Promise<unknown>): Promise<DocumentParseError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(DocumentParseError);
    return error as DocumentParseError;
  }
  throw new Error('expected a DocumentParseError');
}

describe('parseDocument', function () {
  it('detects Markdown and text by extension, then by content type', function () {
    const bytes = utf8('# Title\n\nBody.');
    expect(detectFormat({ name: 'notes.md', contentType: 'text/plain', bytes })).to.equal('markdown');
    expect(detectFormat({ name: 'notes.markdown', bytes })).to.equal('markdown');
    expect(detectFormat({ name: 'notes.txt', contentType: 'application/octet-stream', bytes })).to.equal('text');
    expect(detectFormat({ name: 'upload', contentType: 'text/markdown; charset=utf-8', bytes })).to.equal('markdown');
    expect(detectFormat({ name: 'upload', contentType: 'text/plain', bytes })).to.equal('text');
    expect(detectFormat({ name: 'renamed.txt', bytes: minimalPdf([['x']]) })).to.equal('pdf');
    expect(detectFormat({ name: 'about-pdf.md', bytes: utf8('Every PDF starts with %PDF-1.7.') })).to.equal('markdown');
  });

  it('returns text with normalised line endings', async function () {
    const parsed = await parseDocument({ name: 'notes.md', bytes: utf8('\uFEFF# Jalen Brooks\r\n\r\nWing.  \rShooter.\r\n') });
    expect(parsed).to.deep.equal({ text: '# Jalen Brooks\n\nWing.\nShooter.\n', format: 'markdown' });
  });

  it('extracts a PDF’s text, page by page', async function () {
    const bytes = minimalPdf([['SCOUTING NOTES', 'Jalen Brooks is a wing from Ohio.'], ['He weighs 215 pounds.']]);
    const parsed = await parseDocument({ name: 'brooks.pdf', contentType: 'application/pdf', bytes });
    expect(parsed.format).to.equal('pdf');
    expect(parsed.pages).to.equal(2);
    expect(parsed.text).to.equal('SCOUTING NOTES\nJalen Brooks is a wing from Ohio.\n\nHe weighs 215 pounds.');
  });

  it('refuses a damaged PDF', async function () {
    const error = await parseError(parseDocument({ name: 'broken.pdf', bytes: utf8('%PDF-1.7\nthis is not really a pdf at all\n%%EOF') }));
    expect(error.reason).to.match(/broken\.pdf.*could not be read as a PDF/);
  });

  it('refuses a .pdf without a PDF header', async function () {
    const error = await parseError(parseDocument({ name: 'fake.pdf', bytes: utf8('hello') }));
    expect(error.reason).to.match(/not a valid PDF/);
  });

  it('refuses a PDF without text, saying it may be scanned', async function () {
    const error = await parseError(parseDocument({ name: 'scan.pdf', bytes: minimalPdf([[]]) }));
    expect(error.reason).to.match(/no extractable text.*scanned/);
  });

  it('refuses binary junk and text that is not UTF-8', async function () {
    const junk = new Uint8Array(256).map((_, i) => (i * 37) % 256);
    expect((await parseError(parseDocument({ name: 'junk.txt', bytes: junk }))).reason).to.match(/binary/);
    const latin1 = new Uint8Array(Buffer.from('Défense élite', 'latin1'));
    expect((await parseError(parseDocument({ name: 'latin1.txt', bytes: latin1 }))).reason).to.match(/not valid UTF-8/);
  });

  it('refuses unsupported types, naming the accepted ones', async function () {
    const error = await parseError(
      parseDocument({ name: 'report.docx', contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', bytes: utf8('PK') }),
    );
    expect(error.reason).to.match(/not a supported document/);
    expect(error.reason).to.include('.txt').and.include('.md').and.include('.pdf');
  });

  it('refuses an empty document', async function () {
    expect((await parseError(parseDocument({ name: 'empty.txt', bytes: new Uint8Array() }))).reason).to.match(/empty/);
    expect((await parseError(parseDocument({ name: 'blank.md', bytes: utf8(' \n\n\t\n') }))).reason).to.match(/empty/);
  });
});
