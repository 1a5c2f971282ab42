/**
 * How MongoDB (text index version 3) turns a string into terms: split on Unicode delimiters, lowercase,
 * drop stop words, stem, strip diacritics; and how it matches a phrase. Only the `english` and `none`
 * languages are implemented; MongoDB's other languages fail loudly.
 */
import { badValue, MongoCommandError, unsupported } from '../errors.js';
import { stemEnglish } from './stemmer.js';

export interface TextLanguage {
  /** Canonical name (what `$language` / `default_language` resolve to). */
  name: 'english' | 'none';
  stopWords: ReadonlySet<string>;
  stem(word: string): string;
  /** Runs of non-delimiters (in English an apostrophe belongs to its word: "don't"). */
  token: RegExp;
}

/** MongoDB's English stop words (src/mongo/db/fts/stop_words_english.txt). */
const ENGLISH_STOP_WORDS = new Set(
  (
    "a about above after again against all am an and any are aren't as at be because been before being below between both but by " +
    "can't cannot could couldn't did didn't do does doesn't doing don't down during each few for from further had hadn't has hasn't " +
    "have haven't having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is " +
    "isn't it it's its itself let's me more most mustn't my myself no nor not of off on once only or other ought our ours ourselves " +
    "out over own same shan't she she'd she'll she's should shouldn't so some such than that that's the their theirs them themselves " +
    "then there there's these they they'd they'll they're they've this those through to too under until up very was wasn't we we'd " +
    "we'll we're we've were weren't what what's when when's where where's which while who who's whom why why's with won't would " +
    "wouldn't you you'd you'll you're you've your yours yourself yourselves"
  ).split(' '),
);

/**
 * Delimiters: code points with the Unicode properties White_Space, Dash, Hyphen, Quotation_Mark,
 * Terminal_Punctuation, Pattern_Syntax or Sentence_Terminal (as MongoDB's generated list). JavaScript
 * has no \p{Hyphen}: its members that are not also Dash are listed.
 */
const DELIMITERS = String.raw`\p{White_Space}\p{Dash}\p{Quotation_Mark}\p{Terminal_Punctuation}\p{Pattern_Syntax}\p{Sentence_Terminal}\u00AD\u30FB\uFF65`;

const ENGLISH: TextLanguage = {
  name: 'english',
  stopWords: ENGLISH_STOP_WORDS,
  stem: stemEnglish,
  token: new RegExp(`(?:'|[^${DELIMITERS}])+`, 'gu'),
};

const NONE: TextLanguage = {
  name: 'none',
  stopWords: new Set(),
  stem: (word) => word,
  token: new RegExp(`[^${DELIMITERS}]+`, 'gu'),
};

/** Languages MongoDB's text search knows (v2/v3 names and ISO codes); only english and none are implemented here. */
const MONGODB_LANGUAGES: Record<string, string> = {
  danish: 'danish', da: 'danish', dutch: 'dutch', nl: 'dutch', english: 'english', en: 'english', finnish: 'finnish', fi: 'finnish',
  french: 'french', fr: 'french', german: 'german', de: 'german', hungarian: 'hungarian', hu: 'hungarian', italian: 'italian',
  it: 'italian', norwegian: 'norwegian', nb: 'norwegian', portuguese: 'portuguese', pt: 'portuguese', romanian: 'romanian',
  ro: 'romanian', russian: 'russian', ru: 'russian', spanish: 'spanish', es: 'spanish', swedish: 'swedish', sv: 'swedish',
  turkish: 'turkish', tr: 'turkish', none: 'none',
};

/** Whether MongoDB knows the language name at all (case-insensitively, as it compares them). */
export const isMongoLanguage = (name: string) => Object.hasOwn(MONGODB_LANGUAGES, name.toLowerCase());

/**
 * The language for a name. An unknown name is MongoDB's BadValue (callers with another error for it
 * check `isMongoLanguage` first); a language MongoDB has but this server does not implement fails loudly.
 */
export function textLanguage(name: string): TextLanguage {
  const canonical = MONGODB_LANGUAGES[name.toLowerCase()];
  if (!Object.hasOwn(MONGODB_LANGUAGES, name.toLowerCase())) throw badValue(`unsupported language: "${name}" for text index version 3`);
  if (canonical === 'english') return ENGLISH;
  if (canonical === 'none') return NONE;
  throw unsupported(`text search in ${canonical} (only english and none are implemented)`);
}

/** A language override value from a document, checked as MongoDB checks it when indexing. */
export function overrideLanguage(value: unknown): TextLanguage {
  if (typeof value !== 'string') throw new MongoCommandError(17261, 'Location17261', 'found language override field in document with non-string type');
  if (!isMongoLanguage(value)) throw new MongoCommandError(17262, 'Location17262', `language override unsupported: ${value}`);
  return textLanguage(value);
}

const NON_ASCII = /[^ -~\t\n\r]/;
const COMBINING = /\p{Diacritic}/gu;

/** Removes diacritics: "café" → "cafe" (decomposed, diacritic marks dropped, recomposed). */
export function stripDiacritics(s: string): string {
  if (!NON_ASCII.test(s)) return s;
  return s.normalize('NFD').replace(COMBINING, '').normalize('NFC');
}

export interface TokenOptions {
  filterStopWords: boolean;
  caseSensitive?: boolean;
  diacriticSensitive?: boolean;
}

/**
 * The terms of a string, in order. As in MongoDB's tokenizer: the stop-word check is on the lowercased
 * word with its diacritics; the stemmer sees the word (lowercased unless case-sensitive) with its
 * diacritics; diacritics are stripped from the stem unless diacritic-sensitive.
 */
export function tokens(raw: string, language: TextLanguage, options: TokenOptions): string[] {
  const out: string[] = [];
  for (const match of raw.matchAll(language.token)) {
    const word = match[0];
    const lower = word.toLowerCase();
    if (options.filterStopWords && language.stopWords.has(lower)) continue;
    const stemmed = language.stem(options.caseSensitive ? word : lower);
    out.push(options.diacriticSensitive ? stemmed : stripDiacritics(stemmed));
  }
  return out;
}

/** A phrase matches as a substring of one string (case and diacritics folded unless the query is sensitive to them). */
export function phraseMatches(phrase: string, haystack: string, caseSensitive: boolean, diacriticSensitive: boolean): boolean {
  const fold = (s: string) => {
    const cased = caseSensitive ? s : s.toLowerCase();
    return diacriticSensitive ? cased : stripDiacritics(cased);
  };
  return fold(haystack).includes(fold(phrase));
}
