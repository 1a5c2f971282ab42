/**
 * Text index specifications: how `createIndexes` normalizes `{ subject: 'text', body: 'text' }` into
 * MongoDB's stored form (`key: { _fts: 'text', _ftsx: 1 }`, `weights`, `default_language`,
 * `language_override`, `textIndexVersion: 3`), and what a stored spec means for a document: which
 * strings it indexes, in which language, with which weight, and the score of each term (MongoDB's
 * formula, FTSSpec::_scoreStringV2).
 */
import { MongoCommandError } from '../errors.js';
import { type IndexSpec } from '../store/indexes.js';
import { getPath, isPlainObject, keyOf, numberOf, type Doc } from '../values.js';
import { isMongoLanguage, overrideLanguage, textLanguage, tokens, type TextLanguage } from './analysis.js';

export const TEXT_INDEX_VERSION = 3;
const MAX_WORD_WEIGHT = 100_000;
const WILDCARD = '$**';

const cannotCreateIndex = (message: string) => new MongoCommandError(67, 'CannotCreateIndex', message);

/** A key pattern that asks for a text index (as given, or already normalized). */
export const isTextKey = (key: Doc) => Object.values(key).some((v) => v === 'text');
export const isTextSpec = (spec: IndexSpec) => spec.key._fts === 'text';

/** Options only a text index takes. */
export const TEXT_INDEX_OPTIONS = new Set(['weights', 'default_language', 'language_override', 'textIndexVersion']);

/**
 * The stored spec of a text index, from a createIndexes entry (MongoDB's FTSSpec::fixSpec):
 * `{ v, key, name, [other options], weights, default_language, language_override, textIndexVersion }`.
 */
export function normalizeTextIndexSpec(raw: Doc, defaultName: (key: Doc) => string, options: Doc): IndexSpec {
  const key = raw.key as Doc;
  const weights = new Map<string, number>();
  const pattern: Doc = {};
  let textSeen = false;
  let textEnded = false;
  for (const [field, value] of Object.entries(key)) {
    if (field === '_fts' || field === '_ftsx') {
      if (field === '_fts' && value !== 'text') throw cannotCreateIndex('expecting _fts:"text"');
      if (field === '_ftsx' && numberOf(value) !== 1) throw cannotCreateIndex('expecting _ftsx:1');
      pattern[field] = field === '_fts' ? 'text' : 1;
      textSeen = true;
      continue;
    }
    if (value === 'text') {
      if (textEnded) throw cannotCreateIndex("'text' fields in index must all be adjacent");
      if (!textSeen) {
        pattern._fts = 'text';
        pattern._ftsx = 1;
        textSeen = true;
      }
      weights.set(field, 1);
      continue;
    }
    const n = numberOf(value);
    if (n === undefined || (Math.trunc(n) !== 1 && Math.trunc(n) !== -1)) throw cannotCreateIndex('expected value 1 or -1 for non-text key in compound index');
    if (textSeen) textEnded = true;
    pattern[field] = Math.trunc(n);
  }
  if (raw.weights !== undefined) {
    if (isPlainObject(raw.weights)) {
      for (const [field, value] of Object.entries(raw.weights)) {
        const n = numberOf(value);
        if (n === undefined) throw cannotCreateIndex('weight for text index needs numeric type');
        weights.set(field, Math.trunc(n));
      }
    } else if (raw.weights === WILDCARD) weights.set(WILDCARD, 1);
    else throw cannotCreateIndex("text index option 'weights' must be an object");
  }
  if (weights.size === 0) throw cannotCreateIndex("text index option 'weights' must specify fields or the wildcard");
  const sortedWeights: Doc = {};
  for (const field of [...weights.keys()].sort()) {
    const weight = weights.get(field)!;
    if (weight <= 0 || weight >= MAX_WORD_WEIGHT) {
      throw cannotCreateIndex(`text index weight must be in the exclusive interval (0,${MAX_WORD_WEIGHT}) but found: ${weight}`);
    }
    if (field !== WILDCARD) {
      if (field === '') throw cannotCreateIndex('weight cannot be on an empty field');
      for (const part of field.split('.')) {
        if (part === '') throw cannotCreateIndex('weight cannot have empty path component');
        if (part.startsWith('$')) throw cannotCreateIndex('weight cannot have path component with $ prefix');
      }
    }
    sortedWeights[field] = weight;
  }
  const language = raw.default_language ?? 'english';
  if (typeof language !== 'string') throw cannotCreateIndex('default_language needs a string type');
  if (!isMongoLanguage(language)) throw cannotCreateIndex('default_language is not valid');
  textLanguage(language); // a language MongoDB has but this server does not implement fails here
  const override = raw.language_override ?? 'language';
  if (typeof override !== 'string') throw cannotCreateIndex('language_override must be a string');
  if (override === '' || override.startsWith('$') || override.includes('.')) throw cannotCreateIndex('language_override is not valid');
  if (raw.textIndexVersion !== undefined) {
    const version = numberOf(raw.textIndexVersion);
    if (version === undefined) throw cannotCreateIndex("text index option 'textIndexVersion' must be a number");
    if (Math.trunc(version) !== TEXT_INDEX_VERSION) {
      if (Math.trunc(version) === 2) throw new MongoCommandError(2, 'BadValue', `textIndexVersion 2 is not supported by troupe's embedded MongoDB-compatible server (use a real MongoDB via MONGODB_URI)`);
      throw cannotCreateIndex(`bad textIndexVersion: ${Math.trunc(version)}`);
    }
  }
  const spec: IndexSpec = { v: 2, key: pattern, name: typeof raw.name === 'string' ? raw.name : defaultName(key) };
  Object.assign(spec, options);
  spec.weights = sortedWeights;
  spec.default_language = language;
  spec.language_override = override;
  spec.textIndexVersion = TEXT_INDEX_VERSION;
  return spec;
}

/** One indexed string of a document. */
export interface TextValue {
  text: string;
  weight: number;
  language: TextLanguage;
}

/** What a stored text index spec means at run time. */
export class TextSpec {
  readonly weights = new Map<string, number>();
  readonly wildcard: boolean;
  /** Key fields before the text part: a $text query must pin each by equality. */
  readonly prefix: Array<{ path: string }>;
  readonly defaultLanguage: TextLanguage;
  readonly languageOverride: string;
  private readonly fields: Array<{ path: string; parts: string[]; weight: number }>;

  constructor(readonly spec: IndexSpec) {
    const weights = (spec.weights ?? {}) as Doc;
    this.wildcard = WILDCARD in weights;
    for (const [field, weight] of Object.entries(weights)) if (field !== WILDCARD) this.weights.set(field, numberOf(weight) ?? 1);
    this.fields = [...this.weights].map(([path, weight]) => ({ path, parts: path.split('.'), weight }));
    const keyFields = Object.keys(spec.key);
    this.prefix = keyFields.slice(0, keyFields.indexOf('_fts')).map((path) => ({ path }));
    this.defaultLanguage = textLanguage(String(spec.default_language ?? 'english'));
    this.languageOverride = String(spec.language_override ?? 'language');
  }

  /** The document's language: its language override field, else the index default. */
  languageOf(doc: Doc): TextLanguage {
    const value = doc[this.languageOverride];
    return value === undefined ? this.defaultLanguage : overrideLanguage(value);
  }

  /** The strings the index covers, each with its field weight and language. */
  values(doc: Doc): TextValue[] {
    const language = this.languageOf(doc);
    const out: TextValue[] = [];
    if (this.wildcard) {
      this.walk(doc, '', language, out, true);
      return out;
    }
    for (const field of this.fields) collect(doc, field.parts, 0, (text) => out.push({ text, weight: field.weight, language }));
    return out;
  }

  private walk(v: unknown, path: string, language: TextLanguage, out: TextValue[], top: boolean) {
    if (typeof v === 'string') {
      out.push({ text: v, weight: this.weights.get(path) ?? 1, language });
    } else if (Array.isArray(v)) {
      for (const element of v) this.walk(element, path, language, out, false);
    } else if (isPlainObject(v)) {
      for (const [k, child] of Object.entries(v)) {
        if (top && k === this.languageOverride) continue;
        this.walk(child, path ? `${path}.${k}` : k, language, out, false);
      }
    }
  }

  /** Each term's score in the document: Σ over its strings of weight × frequency × length coefficient. */
  scoreDocument(doc: Doc): Map<string, number> {
    const scores = new Map<string, number>();
    for (const value of this.values(doc)) scoreString(value, scores);
    return scores;
  }

  /** The canonical key of the document's prefix fields (an array there fails, as in MongoDB). */
  prefixKeyOf(doc: Doc): string {
    return this.prefix
      .map(({ path }) => {
        const v = getPath(doc, path);
        if (Array.isArray(v)) throw new MongoCommandError(16675, 'Location16675', 'cannot have a multi-key as a prefix to a text index');
        return keyOf(v);
      })
      .join('\u0001');
  }

  /** The canonical key of prefix values given by a query's equalities. */
  prefixKeyOfValues(values: unknown[]): string {
    return values.map(keyOf).join('\u0001');
  }
}

/** Strings at a path: arrays of strings are indexed element by element; objects in arrays are walked into. */
function collect(v: unknown, parts: string[], i: number, emit: (text: string) => void) {
  if (i === parts.length) {
    if (typeof v === 'string') emit(v);
    else if (Array.isArray(v)) for (const element of v) if (typeof element === 'string') emit(element);
    return;
  }
  if (Array.isArray(v)) {
    for (const element of v) if (isPlainObject(element)) collect(element, parts, i, emit);
    return;
  }
  if (isPlainObject(v)) collect(v[parts[i]], parts, i + 1, emit);
}

/**
 * MongoDB's score of a string's terms: a term seen n times has frequency 1 + 1/2 + … + 1/2^(n-1), times
 * (0.5 × n / tokens + 0.5) so a term that is most of a short field counts more, times 1.1 when the whole
 * field is that one word, times the field's weight; scores add up over strings and fields.
 */
function scoreString(value: TextValue, into: Map<string, number>) {
  const terms = new Map<string, { count: number; freq: number; exp: number }>();
  let numTokens = 0;
  for (const term of tokens(value.text, value.language, { filterStopWords: true })) {
    let data = terms.get(term);
    if (!data) terms.set(term, (data = { count: 0, freq: 0, exp: 0 }));
    data.exp = data.exp ? data.exp * 2 : 1;
    data.count += 1;
    data.freq += 1 / data.exp;
    numTokens += 1;
  }
  for (const [term, data] of terms) {
    const coeff = (0.5 * data.count) / numTokens + 0.5;
    const adjustment = value.text.length === term.length && value.text.toLowerCase() === term ? 1.1 : 1;
    into.set(term, (into.get(term) ?? 0) + value.weight * data.freq * coeff * adjustment);
  }
}
