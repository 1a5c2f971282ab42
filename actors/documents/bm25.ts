/**
 * Keyword search over an owner's chunks: a MiniSearch index (BM25 scoring) with the analysis tuned for
 * scouting notes. Precision matters more than recall here (a run keeps at most 40 chunks), so there is
 * no prefix search and fuzzy matching only forgives one typo in long words, such as player names.
 * Numbers and measurements ("215", "6'8") are terms of their own. Pure: persistence lives elsewhere.
 */
import MiniSearch, { type Options } from 'minisearch';

/** What the index keeps per chunk: enough to hand the chunk back as evidence without a database read. */
export interface IndexedChunk {
  /** The chunk id, `${doc_id}#${index}`. */
  id: string;
  doc_id: string;
  document_name: string;
  heading: string | null;
  text: string;
}

export interface ChunkHit extends IndexedChunk {
  /** BM25 score; only comparable within one query. */
  score: number;
}

export type ChunkIndex = MiniSearch<IndexedChunk>;

/** A match in a heading ("Strengths", the player's name) says more about a chunk than one in its body. */
const HEADING_BOOST = 2;

const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other ' +
    'our ours ourselves out over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which while who whom why will ' +
    'with would you your yours yourself yourselves also'
  ).split(' '),
);

/** Numbers keep their inner punctuation (6'8, 3.5, 1,250); words keep inner apostrophes (o'neal). */
const TOKEN = /\p{N}+(?:[.,']\p{N}+)*|[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*/gu;

export function tokenize(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[’‘`´]/g, "'");
  return folded.match(TOKEN) ?? [];
}

/** Lower case, no stop words, no one-letter words, plurals folded; numbers are always kept. */
export function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  if (/^\p{N}/u.test(lower)) return /^\d{1,3}(?:,\d{3})+$/.test(lower) ? lower.replace(/,/g, '') : lower;
  const word = lower.replace(/'s$/, '');
  if (word.length < 2 || STOP_WORDS.has(word)) return null;
  return singular(word);
}

/** Just enough stemming for "strengths" to find "Strength" and "weaknesses" to find "weakness". */
function singular(word: string): string {
  if (word.length <= 3) return word;
  if (/ies$/.test(word) && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (/[^su']s$/.test(word) && !/is$/.test(word)) return word.slice(0, -1);
  return word;
}

const INDEX_OPTIONS: Options<IndexedChunk> = {
  fields: ['heading', 'text'],
  storeFields: ['doc_id', 'document_name', 'heading', 'text'],
  tokenize,
  processTerm,
  searchOptions: {
    boost: { heading: HEADING_BOOST },
    prefix: false,
    fuzzy: (term) => (/^\p{L}{6,}$/u.test(term) ? 0.1 : false),
    maxFuzzy: 1,
    combineWith: 'OR',
  },
};

export function createIndex(): ChunkIndex {
  return new MiniSearch<IndexedChunk>(INDEX_OPTIONS);
}

/** The functions are not in the JSON, so a saved index is loaded with the same options it was built with. */
export function indexFromJSON(json: string): ChunkIndex {
  return MiniSearch.loadJSON<IndexedChunk>(json, INDEX_OPTIONS);
}

export function addChunks(index: ChunkIndex, chunks: IndexedChunk[]): void {
  index.addAll(chunks);
}

/** Drops a document's chunks; ids the index does not hold (or that belong to another document) are skipped. */
export function removeDocument(index: ChunkIndex, documentId: string, chunkIds: string[]): void {
  for (const id of chunkIds) {
    if (index.has(id) && index.getStoredFields(id)?.doc_id === documentId) index.discard(id);
  }
}

/** Best first; equal scores in chunk id order, so results do not depend on insertion order. */
export function searchIndex(index: ChunkIndex, query: string, limit: number): ChunkHit[] {
  if (limit <= 0) return [];
  return index
    .search(query)
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, limit)
    .map((result) => ({
      id: String(result.id),
      score: result.score,
      doc_id: result.doc_id as string,
      document_name: result.document_name as string,
      heading: (result.heading as string | null | undefined) ?? null,
      text: result.text as string,
    }));
}

export function storedChunk(index: ChunkIndex, id: string): IndexedChunk | null {
  const fields = index.getStoredFields(id);
  if (!fields) return null;
  return {
    id,
    doc_id: fields.doc_id as string,
    document_name: fields.document_name as string,
    heading: (fields.heading as string | null | undefined) ?? null,
    text: fields.text as string,
  };
}
