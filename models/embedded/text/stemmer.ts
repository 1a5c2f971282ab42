/**
 * The English Snowball stemmer ("Porter2"), the one MongoDB's text indexes use for English
 * (libstemmer's `english`), written from the published algorithm
 * (https://snowballstem.org/algorithms/english/stemmer.html). It works on code points; letters other
 * than a–z (accented ones included) are consonants to it, as to libstemmer, and diacritics are removed
 * only after stemming (see analysis.ts).
 */

const isVowel = (c: string | undefined) => c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || c === 'y';
const DOUBLES = new Set(['bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt']);
const LI_ENDINGS = new Set(['c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't']);

/** Whole words with a fixed stem (checked before anything else). */
const EXCEPTIONS: Record<string, string> = {
  skis: 'ski',
  skies: 'sky',
  dying: 'die',
  lying: 'lie',
  tying: 'tie',
  idly: 'idl',
  gently: 'gentl',
  ugly: 'ugli',
  early: 'earli',
  only: 'onli',
  singly: 'singl',
  sky: 'sky',
  news: 'news',
  howe: 'howe',
  atlas: 'atlas',
  cosmos: 'cosmos',
  bias: 'bias',
  andes: 'andes',
};

/** Words left as they are once step 1a has run. */
const AFTER_STEP_1A = new Set(['inning', 'outing', 'canning', 'herring', 'earring', 'proceed', 'exceed', 'succeed']);

/** Prefixes after which R1 starts, whatever the letters. */
const R1_PREFIXES = ['gener', 'commun', 'arsen'];

type Word = string[];

const endsWith = (w: Word, suffix: string) => {
  if (suffix.length > w.length) return false;
  for (let i = 0; i < suffix.length; i++) if (w[w.length - suffix.length + i] !== suffix[i]) return false;
  return true;
};

/** The longest of `suffixes` the word ends with. */
function longest(w: Word, suffixes: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const s of suffixes) if ((best === undefined || s.length > best.length) && endsWith(w, s)) best = s;
  return best;
}

const replaceSuffix = (w: Word, length: number, by: string): Word => [...w.slice(0, w.length - length), ...by];

/** The region after the first non-vowel that follows a vowel, starting the search at `from`. */
function regionAfter(w: Word, from: number): number {
  let i = from;
  while (i < w.length && !isVowel(w[i])) i++;
  if (i >= w.length) return w.length;
  while (i < w.length && isVowel(w[i])) i++;
  if (i >= w.length) return w.length;
  return i + 1;
}

/**
 * A short syllable ends the first `end` letters: non-vowel, vowel, non-vowel other than w, x, Y; or a
 * vowel at the start of the word followed by a non-vowel.
 */
function endsWithShortSyllable(w: Word, end: number): boolean {
  if (end >= 3) {
    const last = w[end - 1];
    if (!isVowel(last) && last !== 'w' && last !== 'x' && last !== 'Y' && isVowel(w[end - 2]) && !isVowel(w[end - 3])) return true;
  }
  return end === 2 && isVowel(w[0]) && !isVowel(w[1]);
}

const STEP_1B = ['eed', 'eedly', 'ed', 'edly', 'ing', 'ingly'];
const STEP_2: Record<string, string> = {
  tional: 'tion',
  enci: 'ence',
  anci: 'ance',
  abli: 'able',
  entli: 'ent',
  izer: 'ize',
  ization: 'ize',
  ational: 'ate',
  ation: 'ate',
  ator: 'ate',
  alism: 'al',
  aliti: 'al',
  alli: 'al',
  fulness: 'ful',
  ousli: 'ous',
  ousness: 'ous',
  iveness: 'ive',
  iviti: 'ive',
  biliti: 'ble',
  bli: 'ble',
  ogi: 'og',
  fulli: 'ful',
  lessli: 'less',
  li: '',
};
const STEP_2_SUFFIXES = Object.keys(STEP_2);
const STEP_3: Record<string, string> = { tional: 'tion', ational: 'ate', alize: 'al', icate: 'ic', iciti: 'ic', ical: 'ic', ful: '', ness: '', ative: '' };
const STEP_3_SUFFIXES = Object.keys(STEP_3);
const STEP_4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize', 'ion'];

function stem(input: string): string {
  if (Object.hasOwn(EXCEPTIONS, input)) return EXCEPTIONS[input];
  let w: Word = Array.from(input);
  if (w.length < 3) return input;

  // Prelude: an initial apostrophe goes; y at the start or after a vowel is a consonant (Y).
  if (w[0] === "'") w = w.slice(1);
  if (w[0] === 'y') w[0] = 'Y';
  for (let i = 1; i < w.length; i++) if (w[i] === 'y' && isVowel(w[i - 1])) w[i] = 'Y';

  const joined = w.join('');
  const prefix = R1_PREFIXES.find((p) => joined.startsWith(p));
  const p1 = prefix ? prefix.length : regionAfter(w, 0);
  const p2 = regionAfter(w, p1);

  // Step 0: possessives.
  const possessive = longest(w, ["'s'", "'s", "'"]);
  if (possessive) w = w.slice(0, w.length - possessive.length);

  // Step 1a: plurals.
  const s1a = longest(w, ['sses', 'ied', 'ies', 's', 'us', 'ss']);
  if (s1a === 'sses') w = replaceSuffix(w, 4, 'ss');
  else if (s1a === 'ied' || s1a === 'ies') w = replaceSuffix(w, 3, w.length - 3 >= 2 ? 'i' : 'ie');
  else if (s1a === 's') {
    // Deleted when a vowel precedes the letter before the s (gaps → gap, but gas and this stay).
    let vowel = false;
    for (let i = w.length - 3; i >= 0 && !vowel; i--) vowel = isVowel(w[i]);
    if (vowel) w = w.slice(0, -1);
  }
  if (!AFTER_STEP_1A.has(w.join(''))) {
    w = step1b(w, p1);
    // Step 1c: y after a consonant that is not the first letter becomes i.
    const last = w[w.length - 1];
    if ((last === 'y' || last === 'Y') && w.length > 2 && !isVowel(w[w.length - 2])) w = replaceSuffix(w, 1, 'i');
    w = step2(w, p1);
    w = step3(w, p1, p2);
    w = step4(w, p2);
    w = step5(w, p1, p2);
  }
  return w.join('').replace(/Y/g, 'y');
}

function step1b(w: Word, p1: number): Word {
  const suffix = longest(w, STEP_1B);
  if (!suffix) return w;
  const start = w.length - suffix.length;
  if (suffix === 'eed' || suffix === 'eedly') return start >= p1 ? replaceSuffix(w, suffix.length, 'ee') : w;
  let vowel = false;
  for (let i = 0; i < start && !vowel; i++) vowel = isVowel(w[i]);
  if (!vowel) return w;
  const out = w.slice(0, start);
  if (endsWith(out, 'at') || endsWith(out, 'bl') || endsWith(out, 'iz')) return [...out, 'e'];
  if (out.length >= 2 && DOUBLES.has(out[out.length - 2] + out[out.length - 1])) return out.slice(0, -1);
  if (out.length === p1 && endsWithShortSyllable(out, out.length)) return [...out, 'e'];
  return out;
}

function step2(w: Word, p1: number): Word {
  const suffix = longest(w, STEP_2_SUFFIXES);
  if (!suffix) return w;
  const start = w.length - suffix.length;
  if (start < p1) return w;
  if (suffix === 'ogi' && w[start - 1] !== 'l') return w;
  if (suffix === 'li' && !LI_ENDINGS.has(w[start - 1] ?? '')) return w;
  return replaceSuffix(w, suffix.length, STEP_2[suffix]);
}

function step3(w: Word, p1: number, p2: number): Word {
  const suffix = longest(w, STEP_3_SUFFIXES);
  if (!suffix) return w;
  const start = w.length - suffix.length;
  if (start < p1) return w;
  if (suffix === 'ative' && start < p2) return w;
  return replaceSuffix(w, suffix.length, STEP_3[suffix]);
}

function step4(w: Word, p2: number): Word {
  const suffix = longest(w, STEP_4);
  if (!suffix) return w;
  const start = w.length - suffix.length;
  if (start < p2) return w;
  if (suffix === 'ion' && w[start - 1] !== 's' && w[start - 1] !== 't') return w;
  return w.slice(0, start);
}

function step5(w: Word, p1: number, p2: number): Word {
  const last = w[w.length - 1];
  const start = w.length - 1;
  if (last === 'e' && (start >= p2 || (start >= p1 && !endsWithShortSyllable(w, start)))) return w.slice(0, -1);
  if (last === 'l' && start >= p2 && w[start - 1] === 'l') return w.slice(0, -1);
  return w;
}

/** Stems are cached: mail bodies repeat their words. */
const cache = new Map<string, string>();
const CACHE_LIMIT = 50_000;

export function stemEnglish(word: string): string {
  let out = cache.get(word);
  if (out === undefined) {
    out = stem(word);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(word, out);
  }
  return out;
}
