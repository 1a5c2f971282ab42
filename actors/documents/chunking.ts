/**
 * Splits a document's text into retrieval chunks: by section (headings), then by paragraph, packed to
 * about a target size, with a few whole sentences of overlap between neighbours in a section so a fact
 * that straddles a boundary is still found in one piece. Pure and deterministic: the same text always
 * gives the same chunks, which is what lets a retried ingest replace a document chunk for chunk.
 */
import { createHash } from 'node:crypto';
import type { DocumentFormat } from './parse.js';

export interface TextChunk {
  /** Position in the document, from 0. */
  index: number;
  /** The section the chunk belongs to; Markdown sections carry their parents (`Player > Strengths`). */
  heading: string | null;
  text: string;
}

export interface ChunkingOptions {
  targetWords?: number;
  maxWords?: number;
  /** Whole trailing sentences of the previous chunk repeated at the start of the next, up to this many words. */
  overlapWords?: number;
}

export const DEFAULT_CHUNKING = { targetWords: 160, maxWords: 260, overlapWords: 40 } as const;

interface Section {
  heading: string | null;
  paragraphs: string[];
}

/** A run of text inside a chunk; pieces of one paragraph are joined by a space or a line break. */
interface Piece {
  text: string;
  words: number;
  paragraph: number;
  /** It began a line of its paragraph (a list item, a line of code). */
  lineStart: boolean;
}

export function chunkText(text: string, format: DocumentFormat, options: ChunkingOptions = {}): TextChunk[] {
  const limits = chunkingLimits(options);
  const sections = format === 'markdown' ? markdownSections(text) : plainSections(text, format);
  const chunks: TextChunk[] = [];
  let paragraphId = 0;
  for (const section of sections) {
    const pieces = section.paragraphs.flatMap((paragraph) => paragraphPieces(paragraph, paragraphId++, limits.maxWords));
    for (const packed of packPieces(pieces, limits)) {
      chunks.push({ index: chunks.length, heading: section.heading, text: renderPieces(packed) });
    }
  }
  return chunks;
}

export function countWords(text: string): number {
  const words = text.match(/\S+/g);
  return words ? words.length : 0;
}

/**
 * sha256 of the text with case, Unicode form, punctuation and whitespace folded: the same passage found in two
 * documents (a pasted article, a re-upload under another name) hashes the same, for deduplication.
 */
export function normalisedTextHash(text: string): string {
  const normalised = text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  return createHash('sha256').update(normalised).digest('hex');
}

function chunkingLimits(options: ChunkingOptions): Required<ChunkingOptions> {
  const limits = { ...DEFAULT_CHUNKING, ...options };
  const { targetWords, maxWords, overlapWords } = limits;
  if (![targetWords, maxWords, overlapWords].every(Number.isInteger) || targetWords < 1 || overlapWords < 0) {
    throw new RangeError('chunking: word counts must be integers, targetWords at least 1 and overlapWords at least 0');
  }
  if (maxWords < targetWords) throw new RangeError('chunking: maxWords must be at least targetWords');
  if (overlapWords >= targetWords) throw new RangeError('chunking: overlapWords must be below targetWords');
  return limits;
}

// --- sections --------------------------------------------------------------------------------------

const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

function markdownSections(text: string): Section[] {
  const sections: Section[] = [];
  const trail: Array<{ level: number; title: string }> = [];
  let current: Section = { heading: null, paragraphs: [] };
  let paragraph: string[] = [];
  let fence: string | null = null;

  const endParagraph = () => {
    if (paragraph.some((line) => line.trim())) current.paragraphs.push(trimLines(paragraph));
    paragraph = [];
  };
  const startSection = (level: number, title: string) => {
    endParagraph();
    if (current.paragraphs.length) sections.push(current);
    while (trail.length && trail[trail.length - 1]!.level >= level) trail.pop();
    trail.push({ level, title });
    current = { heading: trail.map((entry) => entry.title).join(' > '), paragraphs: [] };
  };

  for (const line of text.split('\n')) {
    if (fence !== null) {
      // A code block is one paragraph: its blank lines and `#` comments are not structure.
      paragraph.push(line);
      if (line.trim().startsWith(fence)) fence = null;
      continue;
    }
    const opening = FENCE.exec(line);
    if (opening) {
      fence = opening[1]!;
      paragraph.push(line);
      continue;
    }
    const atx = ATX_HEADING.exec(line);
    const atxTitle = atx ? cleanHeading(atx[2] ?? '') : '';
    if (atx && atxTitle) {
      startSection(atx[1]!.length, atxTitle);
      continue;
    }
    const underline = SETEXT_UNDERLINE.exec(line);
    if (underline && paragraph.length === 1 && paragraph[0]!.trim()) {
      const title = cleanHeading(paragraph[0]!);
      paragraph = [];
      startSection(underline[1]!.startsWith('=') ? 1 : 2, title);
      continue;
    }
    if (!line.trim()) endParagraph();
    else paragraph.push(line);
  }
  endParagraph();
  if (current.paragraphs.length) sections.push(current);
  return sections;
}

/**
 * Text and PDF have no markup, so a heading is guessed: a short line standing alone (a blank line
 * after it) that does not end like a sentence, or a line in capitals.
 */
function plainSections(text: string, format: DocumentFormat): Section[] {
  const sections: Section[] = [];
  let current: Section = { heading: null, paragraphs: [] };
  const startSection = (title: string) => {
    if (current.paragraphs.length) sections.push(current);
    current = { heading: title, paragraphs: [] };
  };
  const blocks = text
    .split(/\n[ \t]*\n/)
    .map((block) => block.split('\n').filter((line) => line.trim()))
    .filter((lines) => lines.length);

  blocks.forEach((lines, i) => {
    const standsAlone = lines.length === 1 && i < blocks.length - 1;
    if (standsAlone && (isShortTitle(lines[0]!) || isCapitalsTitle(lines[0]!))) {
      startSection(cleanHeading(lines[0]!));
      return;
    }
    let paragraph: string[] = [];
    for (const line of lines) {
      if (isCapitalsTitle(line)) {
        if (paragraph.length) current.paragraphs.push(reflow(paragraph, format));
        paragraph = [];
        startSection(cleanHeading(line));
      } else {
        paragraph.push(line);
      }
    }
    if (paragraph.length) current.paragraphs.push(reflow(paragraph, format));
  });
  if (current.paragraphs.length) sections.push(current);
  return sections;
}

/**
 * "12", "- 12 -", "Page 3", "Page 3 of 10": a page number is never a heading. It stays in the text: a
 * number alone on a line may as well be a statistic.
 */
const PAGE_NUMBER = /^(?:[-–\s]*\d+[-–\s]*|page\s+\d+(?:\s+of\s+\d+)?)$/i;

const LIST_MARKER = /^\s*(?:[-*+•–]|\d{1,3}[.)])\s+/;

function isShortTitle(line: string): boolean {
  const title = line.trim();
  if (title.length > 80 || countWords(title) > 12) return false;
  if (/[.!?,;]$/.test(title) || LIST_MARKER.test(title)) return false;
  if (PAGE_NUMBER.test(title)) return false;
  return /^[\p{L}\p{N}"'“‘(]/u.test(title) && /\p{L}/u.test(title);
}

function isCapitalsTitle(line: string): boolean {
  const title = line.trim();
  if (title.length > 100 || countWords(title) > 12 || /\p{Ll}/u.test(title) || LIST_MARKER.test(title)) return false;
  const letters = title.match(/\p{L}/gu)?.length ?? 0;
  const visible = title.replace(/\s/g, '').length;
  // Mostly letters: "6'8, 215 LBS" is a measurement, not a heading.
  return letters >= 3 && letters / visible >= 0.5;
}

function cleanHeading(title: string): string {
  return title
    .replace(/[*_`]+/g, '')
    .replace(/:\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function trimLines(lines: string[]): string {
  let start = 0;
  let end = lines.length;
  while (start < end && !lines[start]!.trim()) start++;
  while (end > start && !lines[end - 1]!.trim()) end--;
  return lines.slice(start, end).join('\n');
}

/**
 * Plain text and PDFs wrap lines for display, so a paragraph's lines are joined back into one; list
 * items keep their own line. PDF words hyphenated across a line break are rejoined.
 */
function reflow(lines: string[], format: DocumentFormat): string {
  let text = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (!text) text = line;
    else if (LIST_MARKER.test(line)) text += `\n${line}`;
    else if (format === 'pdf' && /\p{Ll}-$/u.test(text) && /^\p{Ll}/u.test(line)) text = text.slice(0, -1) + line;
    else text += ` ${line}`;
  }
  return text;
}

// --- sentences and packing -------------------------------------------------------------------------

const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'jr', 'sr', 'st', 'vs', 'no', 'etc', 'e.g', 'i.e', 'approx', 'ft']);

/** Sentences of a paragraph, each line (list item) starting a new one. */
function sentences(paragraph: string): Array<{ text: string; lineStart: boolean }> {
  const result: Array<{ text: string; lineStart: boolean }> = [];
  for (const line of paragraph.split('\n')) {
    if (!line.trim()) continue;
    let lineStart = true;
    for (const sentence of lineSentences(line.trim())) {
      result.push({ text: sentence, lineStart });
      lineStart = false;
    }
  }
  return result;
}

function lineSentences(line: string): string[] {
  const result: string[] = [];
  const boundary = /([.!?]+)["'”’)\]]*\s+(?=["'“‘([]?[\p{Lu}\p{N}])/gu;
  let start = 0;
  for (let match = boundary.exec(line); match; match = boundary.exec(line)) {
    if (match[1] === '.' && isAbbreviation(line.slice(start, match.index))) continue;
    const end = match.index + match[0].length;
    result.push(line.slice(start, end).trim());
    start = end;
  }
  const rest = line.slice(start).trim();
  if (rest) result.push(rest);
  return result;
}

/** "J. Smith", "St. Louis", "vs. Boston": a period that does not end the sentence. */
function isAbbreviation(before: string): boolean {
  const word = /(\S+)$/.exec(before)?.[1] ?? '';
  return /^\p{Lu}$/u.test(word) || ABBREVIATIONS.has(word.toLowerCase());
}

/** A paragraph within the limit is one piece; a longer one is cut at sentences, and an endless sentence at words. */
function paragraphPieces(paragraph: string, id: number, maxWords: number): Piece[] {
  const words = countWords(paragraph);
  if (words <= maxWords) return [{ text: paragraph, words, paragraph: id, lineStart: true }];
  const pieces: Piece[] = [];
  for (const sentence of sentences(paragraph)) {
    const sentenceWords = sentence.text.split(/\s+/);
    if (sentenceWords.length <= maxWords) {
      pieces.push({ text: sentence.text, words: sentenceWords.length, paragraph: id, lineStart: sentence.lineStart });
      continue;
    }
    for (let at = 0; at < sentenceWords.length; at += maxWords) {
      const slice = sentenceWords.slice(at, at + maxWords);
      pieces.push({ text: slice.join(' '), words: slice.length, paragraph: id, lineStart: at === 0 && sentence.lineStart });
    }
  }
  return pieces;
}

/**
 * Greedy packing: a piece joins the chunk while the chunk stays within the target, or overshoots it by
 * less than stopping would undershoot it, and never beyond the maximum.
 */
function packPieces(pieces: Piece[], limits: Required<ChunkingOptions>): Piece[][] {
  const chunks: Piece[][] = [];
  let current: Piece[] = [];
  let words = 0;
  for (const piece of pieces) {
    const total = words + piece.words;
    const fits = total <= limits.targetWords || (total <= limits.maxWords && total - limits.targetWords < limits.targetWords - words);
    if (current.length === 0 || fits) {
      current.push(piece);
      words = total;
      continue;
    }
    chunks.push(current);
    // Never the whole previous chunk: the next one would then contain it.
    const budget = Math.min(limits.overlapWords, limits.maxWords - piece.words, words - 1);
    const overlap = trailingSentences(current, budget);
    current = [...overlap, piece];
    words = overlap.reduce((sum, part) => sum + part.words, piece.words);
  }
  if (current.length) chunks.push(current);
  return chunks;
}

/** The last whole sentences of a chunk, as many as fit in `budget` words. */
function trailingSentences(chunk: Piece[], budget: number): Piece[] {
  const taken: Piece[] = [];
  let words = 0;
  for (let i = chunk.length - 1; i >= 0; i--) {
    const piece = chunk[i]!;
    const parts = sentences(piece.text).map((sentence, n) => ({
      text: sentence.text,
      words: countWords(sentence.text),
      paragraph: piece.paragraph,
      lineStart: n === 0 ? piece.lineStart : sentence.lineStart,
    }));
    for (let j = parts.length - 1; j >= 0; j--) {
      const part = parts[j]!;
      if (words + part.words > budget) return taken;
      taken.unshift(part);
      words += part.words;
    }
  }
  return taken;
}

function renderPieces(pieces: Piece[]): string {
  let text = '';
  pieces.forEach((piece, i) => {
    if (i === 0) text = piece.text;
    else if (piece.paragraph !== pieces[i - 1]!.paragraph) text += `\n\n${piece.text}`;
    else text += `${piece.lineStart ? '\n' : ' '}${piece.text}`;
  });
  return text;
}
