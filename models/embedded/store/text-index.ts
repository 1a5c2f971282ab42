/**
 * A text index: an inverted index from (prefix key, stemmed term) to the documents holding the term and
 * the term's score in each (MongoDB keeps the score in the index key the same way). It is maintained
 * with the collection's other indexes on every insert, update and delete; a $text query reads the
 * postings of its terms instead of scanning documents.
 */
import { TextSpec } from '../text/spec.js';
import { type Doc } from '../values.js';
import { Index, type IndexKey, type IndexSpec } from './indexes.js';

const TERM_SEPARATOR = '\u0002';

export class TextIndex extends Index {
  readonly text: TextSpec;
  /** Posting lists: `${prefixKey}\u0002${term}` → id key → the term's score in that document. */
  readonly postings = new Map<string, Map<string, number>>();
  /** Each document's keys, so removing a document does not tokenize it again. */
  private readonly byDoc = new Map<string, IndexKey[]>();

  constructor(ns: string, spec: IndexSpec) {
    super(ns, spec);
    this.text = new TextSpec(spec);
  }

  /** Never answers equality lookups (the planner skips it). */
  override get complete() {
    return false;
  }

  override keysOf(doc: Doc): IndexKey[] {
    const prefix = this.text.prefixKeyOf(doc);
    const keys: IndexKey[] = [];
    for (const [term, score] of this.text.scoreDocument(doc)) keys.push({ key: postingKey(prefix, term), values: [score] });
    return keys;
  }

  override add(idKey: string, keys: IndexKey[]) {
    for (const { key, values } of keys) {
      let ids = this.postings.get(key);
      if (!ids) this.postings.set(key, (ids = new Map()));
      ids.set(idKey, values[0] as number);
    }
    this.byDoc.set(idKey, keys);
  }

  override remove(idKey: string, keys: IndexKey[]) {
    for (const { key } of keys) {
      const ids = this.postings.get(key);
      if (!ids) continue;
      ids.delete(idKey);
      if (ids.size === 0) this.postings.delete(key);
    }
    this.byDoc.delete(idKey);
  }

  override unindex(idKey: string, doc: Doc) {
    this.remove(idKey, this.byDoc.get(idKey) ?? this.keysOf(doc));
  }

  /** Fails as indexing the document would (an array in a prefix field, a bad language field), changing nothing. */
  validate(doc: Doc) {
    this.text.prefixKeyOf(doc);
    this.text.languageOf(doc);
  }

  /** The documents holding a term under a prefix, with the term's score in each. */
  posting(prefixKey: string, term: string): ReadonlyMap<string, number> | undefined {
    return this.postings.get(postingKey(prefixKey, term));
  }
}

const postingKey = (prefixKey: string, term: string) => `${prefixKey}${TERM_SEPARATOR}${term}`;
