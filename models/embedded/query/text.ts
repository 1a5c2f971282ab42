/**
 * `$text` queries with MongoDB's semantics: the operand is parsed into terms (ORed), phrases (all must
 * match) and negations (exclude); the text index's postings give the candidates and their scores
 * (no scan); the matcher then applies phrases and negations, and the rest of the filter is evaluated on
 * what is left. `{ $meta: 'textScore' }` in projections and sorts reads the scores collected here.
 */
import { badValue, MongoCommandError, typeMismatch } from '../errors.js';
import { type TextIndex } from '../store/text-index.js';
import { phraseMatches, textLanguage, tokens, type TextLanguage } from '../text/analysis.js';
import { type TextSpec } from '../text/spec.js';
import { isPlainObject, type Doc } from '../values.js';
import { compileFilter } from './filter.js';

export interface TextParams {
  search: string;
  language?: string;
  caseSensitive: boolean;
  diacriticSensitive: boolean;
}

/** A filter split into its `$text` clause and everything else. */
export interface TextFilter {
  params: TextParams;
  /** The other conditions (undefined when there are none). */
  rest: Doc | undefined;
}

const textIndexRequired = (detail = '') => new MongoCommandError(27, 'IndexNotFound', `text index required for $text query${detail}`);
export const noTextIndexCollection = (ns: string) => textIndexRequired(` (no such collection '${ns}')`);
export { textIndexRequired };

const tooManyText = () => badValue('Too many text expressions');

function parseTextOperand(v: unknown): TextParams {
  if (!isPlainObject(v)) throw badValue('$text expects an object');
  const search = v.$search;
  if (search === undefined) throw new MongoCommandError(4, 'NoSuchKey', 'Missing expected field "$search"');
  if (typeof search !== 'string') throw typeMismatch(`"$search" had the wrong type. Expected string, found ${typeName(search)}`);
  let expected = 1;
  const params: TextParams = { search, caseSensitive: false, diacriticSensitive: false };
  if (v.$language !== undefined) {
    if (typeof v.$language !== 'string') throw typeMismatch(`"$language" had the wrong type. Expected string, found ${typeName(v.$language)}`);
    params.language = v.$language;
    expected += 1;
  }
  for (const flag of ['$caseSensitive', '$diacriticSensitive'] as const) {
    if (v[flag] === undefined) continue;
    if (typeof v[flag] !== 'boolean') throw typeMismatch(`"${flag}" had the wrong type. Expected bool, found ${typeName(v[flag])}`);
    params[flag === '$caseSensitive' ? 'caseSensitive' : 'diacriticSensitive'] = v[flag];
    expected += 1;
  }
  if (Object.keys(v).length !== expected) throw badValue('extra fields in $text');
  return params;
}

const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? 'double' : typeof v === 'boolean' ? 'bool' : typeof v);

/**
 * Takes the `$text` clause out of a filter: at the top level or in a top-level `$and` (where MongoDB
 * accepts it). Undefined when there is none; a `$text` anywhere else is left for the filter compiler,
 * which refuses it.
 */
export function splitTextFilter(filter: Doc | undefined): TextFilter | undefined {
  if (!filter) return undefined;
  const hasTop = Object.hasOwn(filter, '$text');
  const and = Array.isArray(filter.$and) ? (filter.$and as unknown[]) : undefined;
  const inAnd = and ? and.filter((c) => isPlainObject(c) && Object.hasOwn(c, '$text')).length : 0;
  if (!hasTop && inAnd === 0) return undefined;
  if (Number(hasTop) + inAnd > 1) throw tooManyText();
  let operand: unknown;
  const rest: Doc = {};
  for (const [k, v] of Object.entries(filter)) {
    if (k === '$text') operand = v;
    else if (k === '$and' && inAnd) {
      const clauses: Doc[] = [];
      for (const clause of and!) {
        if (isPlainObject(clause) && Object.hasOwn(clause, '$text')) {
          operand = clause.$text;
          const { $text: _text, ...others } = clause;
          if (Object.keys(others).length) clauses.push(others);
        } else clauses.push(clause as Doc);
      }
      if (clauses.length) rest.$and = clauses;
    } else rest[k] = v;
  }
  return { params: parseTextOperand(operand), rest: Object.keys(rest).length ? rest : undefined };
}

export const hasTextClause = (filter: Doc | undefined) => splitTextFilter(filter) !== undefined;

/** MongoDB's parsed text query (FTSQueryImpl). */
export interface TextQuery {
  language: TextLanguage;
  caseSensitive: boolean;
  diacriticSensitive: boolean;
  /** Lowercased, diacritic-free terms: the index lookups (positive terms, phrase words included). */
  termsForBounds: Set<string>;
  positiveTerms: Set<string>;
  negatedTerms: Set<string>;
  positivePhrases: string[];
  negatedPhrases: string[];
}

const isQueryWhitespace = (c: string) => c === ' ' || c === '\n' || c === '\v' || c === '\f' || c === '\r';

/**
 * Parses `$search` as MongoDB does: words separated by spaces are ORed; "quoted phrases" must all
 * appear; a `-` right after whitespace (or at the start) negates the word or phrase it starts, up to the
 * next whitespace. Words of positive phrases are also search terms; words of negated phrases are not.
 */
export function parseTextQuery(params: TextParams, spec: TextSpec): TextQuery {
  const language = params.language === undefined ? spec.defaultLanguage : textLanguage(params.language);
  const s = params.search;
  const positivePhrases: string[] = [];
  const negatedPhrases: string[] = [];
  let positiveSentence = '';
  let negativeSentence = '';
  let inNegation = false;
  let inPhrase = false;
  let quoteOffset = 0;
  let pos = 0;
  while (pos < s.length && isQueryWhitespace(s[pos])) pos++;
  let previousWhiteSpace = true;
  while (pos < s.length) {
    const start = pos++;
    const c = s[start];
    const delimiter = c === '-' || c === '"';
    if (!delimiter) while (pos < s.length && !isQueryWhitespace(s[pos]) && s[pos] !== '-' && s[pos] !== '"') pos++;
    const data = s.slice(start, pos);
    const afterWhiteSpace = previousWhiteSpace;
    const skipFrom = pos;
    while (pos < s.length && isQueryWhitespace(s[pos])) pos++;
    previousWhiteSpace = pos > skipFrom;

    if (!delimiter) {
      if (inPhrase && inNegation) continue;
      if (inNegation && afterWhiteSpace) inNegation = false;
      if (inNegation) negativeSentence += `${data} `;
      else positiveSentence += `${data} `;
    } else if (c === '-') {
      if (!inPhrase && afterWhiteSpace) inNegation = true;
    } else if (inPhrase) {
      const phrase = s.slice(quoteOffset + 1, start);
      (inNegation ? negatedPhrases : positivePhrases).push(phrase);
      inPhrase = false;
    } else {
      inPhrase = true;
      if (inNegation && afterWhiteSpace) inNegation = false;
      quoteOffset = start;
    }
  }
  const folded = { filterStopWords: true };
  const sensitive = { filterStopWords: true, caseSensitive: params.caseSensitive, diacriticSensitive: params.diacriticSensitive };
  const exact = params.caseSensitive || params.diacriticSensitive;
  const termsForBounds = new Set(tokens(positiveSentence, language, folded));
  return {
    language,
    caseSensitive: params.caseSensitive,
    diacriticSensitive: params.diacriticSensitive,
    termsForBounds,
    positiveTerms: exact ? new Set(tokens(positiveSentence, language, sensitive)) : termsForBounds,
    negatedTerms: new Set(tokens(negativeSentence, language, exact ? sensitive : folded)),
    positivePhrases,
    negatedPhrases,
  };
}

/** A document the index lookup found, with its score and how to tell which terms it holds. */
interface Candidate {
  doc: Doc;
  score: number;
  /** Its id key, when it came from the index (its terms are then the index's postings). */
  idKey?: string;
  /** Its terms and their scores, when it was scored directly. */
  terms?: Map<string, number>;
}

/**
 * MongoDB's FTSMatcher: what the index lookup cannot decide by itself (negations, phrases, and for a
 * case- or diacritic-sensitive query the positive terms). A negated term is looked up in the document's
 * postings when the index's terms are the query's (same language, case and diacritics folded: a negated
 * term is never a stop word, so the index holds it); otherwise the document's strings are tokenized.
 */
function textMatcher(query: TextQuery, spec: TextSpec, index: TextIndex | undefined, prefixKey: string): ((c: Candidate) => boolean) | undefined {
  const exact = query.caseSensitive || query.diacriticSensitive;
  const phrases = query.positivePhrases.length > 0 || query.negatedPhrases.length > 0;
  if (!exact && query.negatedTerms.size === 0 && !phrases) return undefined;
  const options = { filterStopWords: false, caseSensitive: query.caseSensitive, diacriticSensitive: query.diacriticSensitive };
  const phrase = (p: string, values: Array<{ text: string }>) => values.some((v) => phraseMatches(p, v.text, query.caseSensitive, query.diacriticSensitive));
  const holds = (c: Candidate, term: string) => (c.terms ? c.terms.has(term) : c.idKey !== undefined && index?.posting(prefixKey, term)?.has(c.idKey) === true);
  return (c) => {
    if (!exact && spec.languageOf(c.doc) === query.language && (c.terms || c.idKey !== undefined)) {
      for (const term of query.negatedTerms) if (holds(c, term)) return false;
      if (!phrases) return true;
    } else {
      let positive = !exact;
      for (const value of spec.values(c.doc)) {
        for (const term of tokens(value.text, value.language, options)) {
          if (query.negatedTerms.has(term)) return false;
          if (!positive && query.positiveTerms.has(term)) positive = true;
        }
      }
      if (!positive) return false;
    }
    const values = spec.values(c.doc);
    if (!query.positivePhrases.every((p) => phrase(p, values))) return false;
    return !query.negatedPhrases.some((p) => phrase(p, values));
  };
}

/** The equality a filter pins a prefix field with (top level or in a top-level $and), if any. */
function equalityOn(filter: Doc | undefined, path: string): { value: unknown } | undefined {
  if (!filter) return undefined;
  const direct = Object.hasOwn(filter, path) ? asEquality(filter[path]) : undefined;
  if (direct) return direct;
  if (Array.isArray(filter.$and)) {
    for (const clause of filter.$and) if (isPlainObject(clause)) {
      const found = equalityOn(clause, path);
      if (found) return found;
    }
  }
  return undefined;
}

function asEquality(cond: unknown): { value: unknown } | undefined {
  if (cond instanceof RegExp) return undefined;
  if (isPlainObject(cond) && Object.keys(cond).some((k) => k.startsWith('$'))) {
    const keys = Object.keys(cond);
    if (keys.length !== 1) return undefined;
    if (keys[0] === '$eq' && !(cond.$eq instanceof RegExp)) return { value: cond.$eq };
    // MongoDB rewrites a one-element $in into an equality before planning.
    if (keys[0] === '$in' && Array.isArray(cond.$in) && cond.$in.length === 1 && !(cond.$in[0] instanceof RegExp)) return { value: cond.$in[0] };
    return undefined;
  }
  return { value: cond };
}

/** Where a text search looks: the committed index and, in a transaction, the versions it does not reflect. */
export interface TextSource {
  spec: TextSpec;
  index?: TextIndex;
  /** The visible version of a document the index returned (undefined: not visible). */
  fetch(idKey: string): Doc | undefined;
  /** Id keys whose visible version the index does not reflect (they come through `extra`). */
  shadowed?(idKey: string): boolean;
  /** Visible documents to score directly instead of through the index. */
  extra?: Iterable<Doc>;
}

export interface TextSearchOptions {
  variables?: Doc;
  limit?: number;
  textScores?: Map<Doc, number>;
  stats?: TextSearchStats;
}

/** What a text search examined (explain's executionStats, and the tests' proof that no scan happened). */
export interface TextSearchStats {
  keysExamined: number;
  docsExamined: number;
  indexName?: string;
  indexPrefix?: Doc;
  query?: TextQuery;
}

const noPlan = () =>
  new MongoCommandError(291, 'NoQueryExecutionPlans', 'error processing query: planner returned error :: caused by :: failed to use text index to satisfy $text query (if text index is compound, are equality predicates given for all prefix fields?)');

/** Runs a `$text` filter against a text index: candidates from its postings, scores summed over the query's terms. */
export function textSearch(source: TextSource, found: TextFilter, options: TextSearchOptions = {}): Doc[] {
  const { spec } = source;
  const query = parseTextQuery(found.params, spec);
  const prefixValues: unknown[] = [];
  const indexPrefix: Doc = {};
  for (const { path } of spec.prefix) {
    const eq = equalityOn(found.rest, path);
    if (!eq) throw noPlan();
    prefixValues.push(eq.value);
    indexPrefix[path] = eq.value;
  }
  const prefixKey = spec.prefixKeyOfValues(prefixValues);
  const stats = options.stats;
  if (stats) Object.assign(stats, { indexName: spec.spec.name, indexPrefix, query });

  const candidates: Candidate[] = [];
  if (source.index) {
    const hits = new Map<string, number>();
    for (const term of query.termsForBounds) {
      const posting = source.index.posting(prefixKey, term);
      if (!posting) continue;
      if (stats) stats.keysExamined += posting.size;
      for (const [idKey, score] of posting) hits.set(idKey, (hits.get(idKey) ?? 0) + score);
    }
    for (const [idKey, score] of hits) {
      if (source.shadowed?.(idKey)) continue;
      const doc = source.fetch(idKey);
      if (stats) stats.docsExamined += 1;
      if (doc) candidates.push({ doc, score, idKey });
    }
  }
  for (const doc of source.extra ?? []) {
    if (stats) stats.docsExamined += 1;
    if (spec.prefixKeyOf(doc) !== prefixKey) continue;
    const scores = spec.scoreDocument(doc);
    let score = 0;
    let any = false;
    for (const term of query.termsForBounds) {
      const s = scores.get(term);
      if (s !== undefined) {
        score += s;
        any = true;
      }
    }
    if (any) candidates.push({ doc, score, terms: scores });
  }

  const matcher = textMatcher(query, spec, source.index, prefixKey);
  const rest = compileFilter(found.rest, options.variables);
  const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
  const out: Doc[] = [];
  for (const candidate of candidates) {
    const { doc, score } = candidate;
    if (matcher && !matcher(candidate)) continue;
    if (!rest.test(doc)) continue;
    out.push(doc);
    options.textScores?.set(doc, score);
    if (out.length >= limit) break;
  }
  return out;
}

/** explain's winning plan for a text search (the shape MongoDB 7 reports for the classic engine). */
export function textWinningPlan(stats: TextSearchStats, keyPattern: Doc): Doc {
  const q = stats.query!;
  const scans = [...q.termsForBounds].sort().map((term) => ({
    stage: 'IXSCAN',
    keyPattern,
    indexName: stats.indexName,
    isMultiKey: true,
    indexBounds: { term },
  }));
  const input = scans.length === 1 ? scans[0] : { stage: 'OR', inputStages: scans };
  return {
    stage: 'TEXT_MATCH',
    indexPrefix: stats.indexPrefix ?? {},
    indexName: stats.indexName,
    parsedTextQuery: {
      terms: [...q.positiveTerms].sort(),
      negatedTerms: [...q.negatedTerms].sort(),
      phrases: q.positivePhrases,
      negatedPhrases: q.negatedPhrases,
    },
    textIndexVersion: 3,
    inputStage: { stage: 'FETCH', inputStage: input },
  };
}

// ---- $meta: 'textScore' --------------------------------------------------------------------------

export const textScoreUnavailable = () => new MongoCommandError(40218, 'Location40218', 'query requires text score metadata, but it is not available');

/** `{ $meta: 'textScore' }`; other `$meta` arguments are left alone (the filter compiler refuses them). */
export const isTextScoreMeta = (v: unknown): boolean => isPlainObject(v) && Object.keys(v).length === 1 && v.$meta === 'textScore';

/** A find projection split into its `$meta: 'textScore'` fields and the rest. */
export function splitMetaProjection(projection: unknown): { rest: unknown; scoreFields: string[] } {
  if (!isPlainObject(projection)) return { rest: projection, scoreFields: [] };
  const scoreFields: string[] = [];
  const rest: Doc = {};
  for (const [k, v] of Object.entries(projection)) {
    if (isTextScoreMeta(v)) scoreFields.push(k);
    else rest[k] = v;
  }
  return { rest, scoreFields };
}

/** Copies of the documents with the score set at each field (appended, as MongoDB adds metadata). */
export function withScores(docs: Doc[], scoreFields: string[], scoreOf: (doc: Doc) => number | undefined, sources: Doc[]): Doc[] {
  if (!scoreFields.length) return docs;
  return docs.map((doc, i) => {
    const score = scoreOf(sources[i]) ?? 0;
    const out: Doc = { ...doc };
    for (const field of scoreFields) setPath(out, field.split('.'), score);
    return out;
  });
}

function setPath(doc: Doc, parts: string[], value: unknown) {
  let cur = doc;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    cur = cur[part] = isPlainObject(next) ? { ...next } : {};
  }
  cur[parts[parts.length - 1]] = value;
}

// ---- aggregation -----------------------------------------------------------------------------------

/** Carries each document's text score through mingo's stages; removed from the results. */
export const TEXT_SCORE_FIELD = '__troupe_textScore';

/** Stages after which MongoDB has no text score for the documents they output. */
const DROPS_TEXT_SCORE = new Set(['$group', '$bucket', '$bucketAuto', '$count', '$sortByCount', '$facet']);
/** Stages whose output keeps MongoDB's metadata but not the hidden field. */
const LOSES_FIELD = new Set(['$replaceRoot', '$replaceWith']);

function usesTextScore(v: unknown): boolean {
  if (isTextScoreMeta(v)) return true;
  if (Array.isArray(v)) return v.some(usesTextScore);
  if (isPlainObject(v)) return Object.values(v).some(usesTextScore);
  return false;
}

function referenceTextScore(v: unknown): unknown {
  if (isTextScoreMeta(v)) return `$${TEXT_SCORE_FIELD}`;
  if (Array.isArray(v)) return v.map(referenceTextScore);
  if (isPlainObject(v)) {
    const out: Doc = {};
    for (const [k, x] of Object.entries(v)) out[k] = referenceTextScore(x);
    return out;
  }
  return v;
}

const isInclusion = (projection: Doc) => Object.entries(projection).some(([k, v]) => k !== '_id' && v !== 0 && v !== false);

function rewriteStage(stage: Doc): Doc {
  const name = Object.keys(stage)[0];
  const arg = stage[name];
  if (name === '$sort' && isPlainObject(arg)) {
    const sort: Doc = {};
    for (const [k, v] of Object.entries(arg)) {
      if (isTextScoreMeta(v)) sort[TEXT_SCORE_FIELD] = -1;
      else sort[k] = v;
    }
    return { $sort: sort };
  }
  if (name === '$facet' && isPlainObject(arg)) {
    const facets: Doc = {};
    for (const [k, sub] of Object.entries(arg)) facets[k] = Array.isArray(sub) ? sub.map((s) => (isPlainObject(s) ? rewriteStage(s) : s)) : sub;
    return { $facet: facets };
  }
  const rewritten = referenceTextScore(stage) as Doc;
  // An inclusion projection keeps the hidden field, as MongoDB keeps metadata through $project.
  if (name === '$project' && isPlainObject(rewritten.$project) && isInclusion(rewritten.$project)) {
    return { $project: { ...rewritten.$project, [TEXT_SCORE_FIELD]: 1 } };
  }
  return rewritten;
}

/**
 * Checks a pipeline (after its first `$match`) for text-search rules and rewrites `{ $meta: 'textScore' }`
 * into a reference to the hidden score field. `$text` in a later `$match` fails (17313); a text score
 * asked for without a `$text` first stage, or after a stage that drops metadata, fails (40218).
 */
export function prepareTextPipeline(pipeline: Doc[], hasText: boolean): { pipeline: Doc[]; usesScore: boolean } {
  let available = hasText;
  let lostField = false;
  let used = false;
  for (const stage of pipeline) {
    const name = Object.keys(stage)[0];
    if (name === '$match' && isPlainObject(stage.$match) && splitTextFilter(stage.$match)) {
      throw new MongoCommandError(17313, 'Location17313', '$match with $text is only allowed as the first pipeline stage');
    }
    // Documents of another collection ($lookup / $unionWith sub-pipelines) have no text score.
    const foreign = name === '$lookup' || name === '$unionWith' ? (stage[name] as Doc | undefined)?.pipeline : undefined;
    if (isPlainObject(stage[name]) && usesTextScore(foreign)) throw textScoreUnavailable();
    if (usesTextScore(stage)) {
      if (!available) throw textScoreUnavailable();
      if (lostField) throw new MongoCommandError(2, 'BadValue', `{ $meta: 'textScore' } after ${[...LOSES_FIELD].join(' or ')} is not supported by troupe's embedded MongoDB-compatible server (use a real MongoDB via MONGODB_URI)`);
      used = true;
    }
    if (DROPS_TEXT_SCORE.has(name)) available = false;
    if (LOSES_FIELD.has(name)) lostField = true;
  }
  return { pipeline: used ? pipeline.map(rewriteStage) : pipeline, usesScore: used };
}

/** Removes the hidden score field from results (in place; results are the pipeline's own copies). */
export function stripTextScoreField(v: unknown): void {
  if (Array.isArray(v)) {
    for (const x of v) stripTextScoreField(x);
  } else if (isPlainObject(v)) {
    if (Object.hasOwn(v, TEXT_SCORE_FIELD)) delete v[TEXT_SCORE_FIELD];
    for (const x of Object.values(v)) if (x !== null && typeof x === 'object') stripTextScoreField(x);
  }
}
