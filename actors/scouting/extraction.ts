/**
 * The offline, deterministic extraction (spec FR-05): player fields and atomic facts read from the
 * evidence with patterns, used when no model is configured and as the reference a model's output is
 * checked against. Only chunks that speak about the player count, every fact names the chunk it came
 * from, and a field without evidence is left out rather than guessed. The per-sentence detectors are
 * exported so the coverage report (evidence.ts) counts exactly what extraction can read. Pure.
 */
import { NAME_PARTICLES, sanitizeName } from './intake.js';
import { PlayerFields, type EvidenceChunk, type ExpectedField, type Extraction, type FactTopic, type RawFact, type Sport } from './schemas.js';

/** What a labelled line or heading says its content is ("Strengths:", "## Injury History"). */
export type Label = 'strengths' | 'weaknesses' | 'development' | 'style' | 'role' | 'risk' | 'positions' | 'teams' | 'league' | 'height' | 'weight';

/** One sentence (or list entry) of a chunk about the player. */
export interface PlayerSentence {
  text: string;
  /** The label of the list, line or section it stands under. */
  label: Label | null;
  /** `inline`: the content of "Label: a, b"; `bullet`: one entry of a list under a label; null: prose. */
  listed: 'inline' | 'bullet' | null;
  chunk: EvidenceChunk;
}

// --- Which chunks speak about the player -------------------------------------------------------

const SUFFIX = /^(?:jr\.?|sr\.?|ii|iii|iv)$/i;
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Recognises the player's full name (any case) or surname (capitalised) in a text. */
export function playerMatcher(player_name: string): (text: string) => boolean {
  const name = sanitizeName(player_name);
  const words = name.split(' ').filter(Boolean);
  while (words.length > 1 && SUFFIX.test(words[words.length - 1]!)) words.pop();
  const particleAt = words.findIndex((word, i) => i > 0 && NAME_PARTICLES.has(word.toLowerCase()));
  const surname = words.length > 1 ? words.slice(particleAt > 0 ? particleAt : words.length - 1).join(' ') : (words[0] ?? '');
  const pattern = (text: string): RegExp => new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(text).replace(/ /g, '\\s+')}(?![\\p{L}\\p{N}])`, 'giu');
  const full = pattern(name);
  const last = pattern(surname);
  const lastWord = surname.split(' ').pop() ?? '';
  return (text) => {
    if (!name) return false;
    full.lastIndex = 0;
    if (full.test(text)) return true;
    if (lastWord.length < 2) return false;
    // A surname counts only capitalised, so "Young" the player is not "young" the adjective.
    for (const match of text.matchAll(last)) {
      const word = match[0].split(/\s+/).pop() ?? '';
      if (/^\p{Lu}/u.test(word)) return true;
    }
    return false;
  };
}

/** Whether a chunk is about the player: its text or heading names them, or its document is named after them. */
export function chunkMentions(chunk: EvidenceChunk, mentions: (text: string) => boolean, player_name: string): boolean {
  if (mentions(chunk.text) || (chunk.heading !== null && mentions(chunk.heading))) return true;
  const documentWords = chunk.document_name.toLowerCase().replace(/\.[a-z0-9]+$/, '').replace(/[-_.\s]+/g, ' ');
  const nameWords = sanitizeName(player_name).toLowerCase().replace(/[-_.\s]+/g, ' ');
  return nameWords.length > 0 && ` ${documentWords} `.includes(` ${nameWords} `);
}

// --- Reading chunks into sentences -----------------------------------------------------------

const LABEL_WORDS: [RegExp, Label][] = [
  [/^(?:key |main |notable )?strengths?$/i, 'strengths'],
  [/^(?:key |main )?(?:weakness(?:es)?|limitations?|concerns?)$|^weaknesses?\s*(?:\/|and|&)\s*limitations?$/i, 'weaknesses'],
  [/^(?:areas? (?:for|of) (?:improvement|development)|development(?: focus| areas?)?)$/i, 'development'],
  [/^(?:style(?: tags)?|play(?:ing)? style(?: (?:and|&) tendencies)?|tendencies)$/i, 'style'],
  [/^(?:role(?: projection)?|projected role|projection)$/i, 'role'],
  [/^(?:injur(?:y|ies)(?: history)?|medical(?: history| notes)?|durability|health)$/i, 'risk'],
  [/^(?:positions?|primary position)$/i, 'positions'],
  [/^(?:teams?|current team|(?:previous|former) teams?|team history|club)$/i, 'teams'],
  [/^league$/i, 'league'],
  [/^(?:height|ht)$/i, 'height'],
  [/^(?:weight|wt)$/i, 'weight'],
];

/**
 * Label names that start a "Label: value" pair. Plain text and PDF lines are reflowed into one line by
 * chunking ("Height: 6-11 Weight: 245 lbs Team: …"), so a line is split again before each of them;
 * labels extraction does not read (College, Age…) are listed so that they end the previous value.
 */
const LABEL_NAMES =
  'Height|Ht|Weight|Wt|Positions?|Primary position|Teams?|Current team|Previous teams?|Former teams?|Team history|League|Strengths|Key strengths|' +
  'Weaknesses|Limitations|Concerns|Style|Style tags|Play style|Role|Role projection|Projected role|Projection|Injury history|Injuries|Medical|' +
  'Durability|Development focus|Areas for improvement|College|Age|Born|Draft|Drafted|Experience|Hometown|Contract|Status|Number|Jersey';
const LABEL_RUN = new RegExp(`\\s+(?=\\p{Lu})(?=(?:${LABEL_NAMES})\\s*:\\s)`, 'giu');

/** The label a heading's wording points to, read from its last part ("Player > Strengths"). */
function headingLabel(heading: string | null): Label | null {
  if (!heading) return null;
  const last = heading.split(' > ').pop() ?? heading;
  if (/strength/i.test(last)) return 'strengths';
  if (/weakness|limitation|concern/i.test(last)) return 'weaknesses';
  if (/development|improvement/i.test(last)) return 'development';
  if (/style|tendenc/i.test(last)) return 'style';
  if (/role|projection|outlook/i.test(last)) return 'role';
  if (/injur|medical|durability|health/i.test(last)) return 'risk';
  return null;
}

function exactLabel(text: string): Label | null {
  const words = text.trim().replace(/\s+/g, ' ');
  return LABEL_WORDS.find(([pattern]) => pattern.test(words))?.[1] ?? null;
}

/** Markdown marks removed: bold, italics, code, links; a table row becomes "first cell: other cells". */
function plainLine(line: string): string | null {
  let text = line.trim();
  if (text.startsWith('|')) {
    if (/^\|[\s:|-]+\|?$/.test(text)) return null;
    const cells = text.split('|').map((cell) => cell.trim()).filter(Boolean);
    text = cells.length > 1 ? `${cells[0]}: ${cells.slice(1).join(', ')}` : (cells[0] ?? '');
  }
  return text
    .replace(/^#{1,6}\s+/, '')
    .replace(/^(?:[-*•+]|\d{1,2}[.)])\s+/, '')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__|`)/g, '')
    .replace(/(^|\s)[*_](\S[^*_]*\S)[*_](?=\s|$|[.,;:])/g, '$1$2')
    .trim();
}

const SENTENCE_BREAK = /(?<=[.!?])(?<!\b\p{Lu}\.)(?<!\b(?:Jr|Sr|St|Mr|Dr|vs|No)\.)\s+(?=["“(]?[\p{Lu}\p{N}])/u;

function sentencesOf(text: string): string[] {
  return text
    .split(SENTENCE_BREAK)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

const NAME_RUN = /\p{Lu}[\p{Ll}'’-]+(?:\s+(?:(?:de|da|del|der|di|du|la|le|van|von)\s+)*\p{Lu}[\p{L}'’-]+)+/gu;

/**
 * Surnames of other people in the player's documents: the last word of a capitalised name ("Theo
 * Vance") that the text also uses on its own, not after "the" ("Vance struggles…", unlike "the Comets").
 */
function otherSurnames(chunks: EvidenceChunk[], player_name: string): Map<string, Set<string>> {
  const own = new Set(sanitizeName(player_name).split(' '));
  const texts = new Map<string, string>();
  for (const chunk of chunks) texts.set(chunk.doc_id, `${texts.get(chunk.doc_id) ?? ''}\n${chunk.heading ?? ''}\n${chunk.text}`);
  const byDocument = new Map<string, Set<string>>();
  for (const [doc, text] of texts) {
    const surnames = new Set<string>();
    for (const run of text.match(NAME_RUN) ?? []) {
      const last = run.split(/\s+/).pop()!;
      if (own.has(last) || surnames.has(last)) continue;
      const alone = new RegExp(`(?<!\\p{Lu}[\\p{L}'’-]*\\s+|\\b[Tt]he\\s+)(?<![\\p{L}])${escapeRegExp(last)}(?![\\p{L}])`, 'u');
      if (alone.test(text)) surnames.add(last);
    }
    byDocument.set(doc, surnames);
  }
  return byDocument;
}

/** Whether a text starts with another person's surname or full name ("Ellery's…", "Theo Vance is…"). */
function startsWithOther(text: string, surnames: Set<string>): boolean {
  const first = /^[\p{L}'’-]+/u.exec(text)?.[0].replace(/['’]s?$/, '') ?? '';
  if (surnames.has(first)) return true;
  const run = /^\p{Lu}[\p{Ll}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+)+/u.exec(text)?.[0];
  return run !== undefined && surnames.has(run.split(/\s+/).pop()!.replace(/['’]s?$/, ''));
}

/**
 * The sentences of the chunks about the player, in chunk order, each with the label it stands under.
 * Within a chunk, a sentence belongs to whoever was last named: a sentence that starts with another
 * person's name, and the pronoun sentences after it, are that person's until the player is named again.
 */
export function playerSentences(chunks: EvidenceChunk[], player_name: string): PlayerSentence[] {
  const mentions = playerMatcher(player_name);
  const others = otherSurnames(chunks, player_name);
  const out: PlayerSentence[] = [];
  for (const chunk of chunks) {
    if (!chunkMentions(chunk, mentions, player_name)) continue;
    const surnames = others.get(chunk.doc_id) ?? new Set<string>();
    const headingPart = chunk.heading?.split(' > ').pop() ?? '';
    let aboutPlayer = mentions(headingPart) || !startsWithOther(headingPart, surnames);
    const keep = (text: string): boolean => {
      if (mentions(text)) aboutPlayer = true;
      else if (startsWithOther(text, surnames)) aboutPlayer = false;
      return aboutPlayer;
    };
    let sectionLabel = headingLabel(chunk.heading);
    let lineLabel: Label | null = null;
    for (const raw of chunk.text.split(/\r?\n/)) {
      const line = raw.trim();
      if (/^#{1,6}\s/.test(line)) {
        const title = plainLine(line) ?? '';
        sectionLabel = exactLabel(title) ?? headingLabel(title);
        lineLabel = null;
        if (mentions(title)) aboutPlayer = true;
        else if (startsWithOther(title, surnames)) aboutPlayer = false;
        continue;
      }
      const bullet = /^(?:[-*•+]|\d{1,2}[.)])\s+/.test(line);
      for (const part of (plainLine(line) ?? '').split(LABEL_RUN)) {
        const text = part.trim();
        if (!text) continue;
        const labelled = /^([A-Za-z][A-Za-z /&]{1,40}?)\s*(?::|\s[—–]\s)\s*(.*)$/.exec(text);
        const label = exactLabel(labelled ? labelled[1]! : text.replace(/:$/, ''));
        if (label) {
          const content = labelled?.[2]?.trim();
          // A bare "Strengths:" heads the list below it; "Team: X" is a value of its own.
          lineLabel = content ? null : label;
          if (content && keep(content)) out.push({ text: content, label, listed: 'inline', chunk });
          continue;
        }
        const under = lineLabel ?? sectionLabel;
        const sentences = sentencesOf(text);
        if (bullet && under) {
          // Reflowed text (plain text, PDF) can run the next paragraph onto a list entry's line.
          const [entry, ...rest] = sentences;
          if (entry && keep(entry)) out.push({ text: entry.replace(/\.$/, ''), label: under, listed: 'bullet', chunk });
          for (const sentence of rest) if (keep(sentence)) out.push({ text: sentence, label: sectionLabel, listed: null, chunk });
          continue;
        }
        if (!bullet) lineLabel = null;
        for (const sentence of sentences) if (keep(sentence)) out.push({ text: sentence, label: sectionLabel, listed: null, chunk });
      }
    }
  }
  return out;
}

// --- Detectors: what one sentence says -------------------------------------------------------

const NEAR_REACH = /wingspan|reach|vertical|jump/i;

function notAboutReach(text: string, index: number, length: number): boolean {
  return !NEAR_REACH.test(text.slice(Math.max(0, index - 20), index)) && !NEAR_REACH.test(text.slice(index + length, index + length + 16));
}

const FEET_INCHES = /\b([4-7])\s*(?:'|’|′|-foot-?|\s?(?:ft\.?|feet|foot)\s*)\s*(\d{1,2})(?:\s*(?:"|”|″|''|’’|in\.?(?!\w)|inches|inch)|\b)/gi;
const HYPHEN_HEIGHT = /\b([5-7])-(\d{1,2})\b/g;
const CENTIMETRES = /\b(1[2-9]\d|2[0-4]\d)\s?(?:cm|centimet(?:er|re)s?)\b/gi;
const METRES = /\b([12][.,]\d{2})\s?m\b/g;
const HEIGHT_CUE = /\b(?:height|tall|stands?|listed|measur\w*|size|frame)\b/i;
const POSITION_AFTER = /^(?:\s+[\w-]+){0,2}\s+(?:forward|guard|center|centre|wing|big|quarterback|receiver|end|back|linebacker|tackle|cornerback|safety)\b/i;

export interface Measured {
  value: number;
  /** As written in the evidence. */
  written: string;
}

/** Heights in centimetres (120–250), wingspans and reaches excluded. */
export function heightsIn(sentence: PlayerSentence): Measured[] {
  const text = sentence.text;
  const out: Measured[] = [];
  const add = (cm: number, written: string): void => {
    if (cm >= 120 && cm <= 250) out.push({ value: Math.round(cm), written: written.trim() });
  };
  for (const match of text.matchAll(FEET_INCHES)) {
    const inches = Number(match[2]);
    if (inches < 12 && notAboutReach(text, match.index, match[0].length)) add((Number(match[1]) * 12 + inches) * 2.54, match[0]);
  }
  const cued = sentence.label === 'height' || HEIGHT_CUE.test(text);
  for (const match of text.matchAll(HYPHEN_HEIGHT)) {
    const inches = Number(match[2]);
    const describesPlayer = cued || POSITION_AFTER.test(text.slice(match.index + match[0].length));
    if (inches < 12 && describesPlayer && notAboutReach(text, match.index, match[0].length)) add((Number(match[1]) * 12 + inches) * 2.54, match[0]);
  }
  for (const match of text.matchAll(CENTIMETRES)) if (notAboutReach(text, match.index, match[0].length)) add(Number(match[1]), match[0]);
  for (const match of text.matchAll(METRES)) if (notAboutReach(text, match.index, match[0].length)) add(Number(match[1]!.replace(',', '.')) * 100, match[0]);
  return out;
}

const POUNDS = /\b(\d{2,3})\s?(?:lbs?\.?|pounds)(?!\w)/gi;
const KILOGRAMS = /\b(\d{2,3})\s?(?:kg|kilograms?|kilos)\b/gi;
const LIFTING = /\b(?:bench(?:ed|es|ing)?|squat(?:s|ted|ting)?|deadlift(?:s|ed)?|lift(?:ed|s|ing)?|press(?:ed|es)?|clean(?:ed|s)?)\b/i;

/** Body weights in kilograms (40–200); lifting numbers are not weights. */
export function weightsIn(sentence: PlayerSentence): Measured[] {
  if (LIFTING.test(sentence.text)) return [];
  const out: Measured[] = [];
  for (const match of sentence.text.matchAll(POUNDS)) out.push({ value: Math.round(Number(match[1]) * 0.45359237), written: match[0].trim() });
  for (const match of sentence.text.matchAll(KILOGRAMS)) out.push({ value: Number(match[1]), written: match[0].trim() });
  return out.filter((m) => m.value >= 40 && m.value <= 200);
}

interface PositionWord {
  pattern: RegExp;
  codes: string[];
  sports: Sport[];
}

const position = (words: string, codes: string[], sports: Sport[]): PositionWord => ({
  pattern: new RegExp(`\\b(?:${words})\\b`, 'gi'),
  codes,
  sports,
});
const NBA: Sport[] = ['nba'];
const FOOTBALL: Sport[] = ['football'];

/** Position names and their short codes, per sport; "center" is a position in both. */
export const POSITION_WORDS: PositionWord[] = [
  position('point guard', ['PG'], NBA),
  position('shooting guard', ['SG'], NBA),
  position('combo guard', ['PG', 'SG'], NBA),
  position('small forward', ['SF'], NBA),
  position('power forward', ['PF'], NBA),
  position('cent(?:er|re)', ['C'], ['nba', 'football']),
  position('quarterback', ['QB'], FOOTBALL),
  position('running back|halfback|tailback', ['RB'], FOOTBALL),
  position('fullback', ['FB'], FOOTBALL),
  position('(?:wide|slot|outside) receiver|receiver', ['WR'], FOOTBALL),
  position('tight end', ['TE'], FOOTBALL),
  position('(?:offensive|left|right) tackle', ['OT'], FOOTBALL),
  position('offensive guard', ['OG'], FOOTBALL),
  position('offensive lineman', ['OL'], FOOTBALL),
  position('defensive end', ['DE'], FOOTBALL),
  position('defensive tackle|nose tackle', ['DT'], FOOTBALL),
  position('edge rusher', ['EDGE'], FOOTBALL),
  position('(?:inside |outside |middle )?linebacker', ['LB'], FOOTBALL),
  position('cornerback|nickel corner', ['CB'], FOOTBALL),
  position('(?:free |strong )?safety', ['S'], FOOTBALL),
  position('place ?kicker|kicker', ['K'], FOOTBALL),
  position('punter', ['P'], FOOTBALL),
];
const CODES: Record<string, { code: string; sports: Sport[] }> = {
  PG: { code: 'PG', sports: NBA },
  SG: { code: 'SG', sports: NBA },
  SF: { code: 'SF', sports: NBA },
  PF: { code: 'PF', sports: NBA },
  C: { code: 'C', sports: ['nba', 'football'] },
  QB: { code: 'QB', sports: FOOTBALL },
  RB: { code: 'RB', sports: FOOTBALL },
  FB: { code: 'FB', sports: FOOTBALL },
  WR: { code: 'WR', sports: FOOTBALL },
  TE: { code: 'TE', sports: FOOTBALL },
  OT: { code: 'OT', sports: FOOTBALL },
  OG: { code: 'OG', sports: FOOTBALL },
  OL: { code: 'OL', sports: FOOTBALL },
  DE: { code: 'DE', sports: FOOTBALL },
  DT: { code: 'DT', sports: FOOTBALL },
  EDGE: { code: 'EDGE', sports: FOOTBALL },
  LB: { code: 'LB', sports: FOOTBALL },
  ILB: { code: 'LB', sports: FOOTBALL },
  OLB: { code: 'LB', sports: FOOTBALL },
  CB: { code: 'CB', sports: FOOTBALL },
  S: { code: 'S', sports: FOOTBALL },
  FS: { code: 'S', sports: FOOTBALL },
  SS: { code: 'S', sports: FOOTBALL },
  K: { code: 'K', sports: FOOTBALL },
  P: { code: 'P', sports: FOOTBALL },
};
const CODE_NAMES = Object.keys(CODES)
  .sort((a, b) => b.length - a.length)
  .join('|');
const CODE_LIST = new RegExp(`\\b(?:${CODE_NAMES})(?:\\s*\\/\\s*(?:${CODE_NAMES}))*\\b`, 'g');
const CODES_IN_PARENTHESES = new RegExp(`\\(\\s*((?:${CODE_NAMES})(?:\\s*[/,]\\s*(?:${CODE_NAMES}))*)\\s*\\)`, 'g');
/** Words before a position name that say the player plays it ("plays", "is a", "at", "projects as"). */
const POSITION_CUE =
  /\b(?:plays?|playing|played|position|lines?\s+up|listed|starting|starter|starts|natural|primary|backup|moved\s+to|converted\s+to|projects?\s+as|profiles?\s+as|is|was|as|at|an?)(?:\s+(?!player\b|one\b|guy\b|man\b)[\w'"’”/.-]+){0,2}\s+$/i;
/** Words that make a position someone else's ("against a physical cornerback"). */
const OTHER_PLAYER = /\b(?:against|vs\.?|versus|than|like|unlike|with|from|by|for|opposing|covers?|covering|cover|facing|faced|guards?|guarding|needs?|looking)\b/i;

const fits = (sports: Sport[], sport: Sport): boolean => sport === 'unknown' || sports.includes(sport);

export interface PositionMention {
  code: string;
  written: string;
}

/** Positions the player plays: from a "Position:" label, codes in parentheses, or a name after a cue. */
export function positionsIn(sentence: PlayerSentence, sport: Sport): PositionMention[] {
  const text = sentence.text;
  const labelled = sentence.label === 'positions' && sentence.listed !== null;
  const out: PositionMention[] = [];
  const found: { at: number; mention: PositionMention }[] = [];
  for (const word of POSITION_WORDS) {
    if (!fits(word.sports, sport)) continue;
    for (const match of text.matchAll(word.pattern)) {
      const before = text.slice(Math.max(0, match.index - 45), match.index);
      const cued = labelled || (POSITION_CUE.test(before) && !OTHER_PLAYER.test(before.slice(-28)));
      if (cued) for (const code of word.codes) found.push({ at: match.index, mention: { code, written: match[0] } });
    }
  }
  const codeGroups = labelled
    ? [...text.matchAll(CODE_LIST)].map((match) => ({ at: match.index, codes: match[0] }))
    : [...text.matchAll(CODES_IN_PARENTHESES)].map((match) => ({ at: match.index, codes: match[1]! }));
  for (const group of codeGroups) {
    for (const raw of group.codes.split(/\s*[/,]\s*/)) {
      const code = CODES[raw];
      if (code && fits(code.sports, sport)) found.push({ at: group.at, mention: { code: code.code, written: raw } });
    }
  }
  found.sort((a, b) => a.at - b.at);
  for (const { mention } of found) if (!out.some((m) => m.code === mention.code)) out.push(mention);
  return out;
}

const TEAM_NAME = "(\\p{Lu}[\\p{L}\\p{M}'’.&-]*(?:\\s+(?:of\\s+)?\\p{Lu}[\\p{L}\\p{M}'’.&-]*){0,4})";
const TEAM_CUE = new RegExp(
  [
    `\\b(?:plays?|played|playing|starts?|started|starting|suits?\\s+up)\\s+(?:[\\w-]+\\s+){0,3}?for\\s+(?:the\\s+)?${TEAM_NAME}`,
    `\\b(?:signed|re-signed|signs|re-signs)\\s+(?:with|by)\\s+(?:the\\s+)?${TEAM_NAME}`,
    `\\bdrafted\\s+(?:[\\w-]+\\s+){0,4}?by\\s+(?:the\\s+)?${TEAM_NAME}`,
    `\\btraded\\s+(?:[\\w-]+\\s+){0,2}?to\\s+(?:the\\s+)?${TEAM_NAME}`,
    `\\b(?:joined|joins)\\s+(?:the\\s+)?${TEAM_NAME}`,
    `\\bmember\\s+of\\s+(?:the\\s+)?${TEAM_NAME}`,
    `\\b(?:acquired|claimed|waived|released)\\s+by\\s+(?:the\\s+)?${TEAM_NAME}`,
    `\\b(?:committed|transferred)\\s+to\\s+(?:the\\s+)?${TEAM_NAME}`,
  ].join('|'),
  'gu',
);
const NOT_TEAMS = /^(?:NBA|WNBA|NFL|NCAA|CFL|UFL|XFL|G League|EuroLeague|The|He|She|They|His|Her|Summer League|Draft|Combine)$/i;

/** Team names after "plays for", "signed with", "drafted by"… or in a "Team(s):" label. */
export function teamsIn(sentence: PlayerSentence, player_name: string): string[] {
  const names: string[] = [];
  if (sentence.label === 'teams' && sentence.listed !== null) {
    for (const part of sentence.text.split(/[,;/()]|\s+and\s+|\s+[—–-]\s+/)) {
      const name = part.trim().replace(/^the\s+/i, '');
      if (/^\p{Lu}/u.test(name)) names.push(name);
    }
  } else {
    for (const match of sentence.text.matchAll(TEAM_CUE)) {
      const name = match.slice(1).find((group) => group !== undefined);
      if (name) names.push(name);
    }
  }
  const player = sanitizeName(player_name).toLowerCase();
  return [...new Set(names.map((name) => name.replace(/[.’']+$/, '').trim()))].filter(
    (name) => name.length >= 2 && name.length <= 80 && !NOT_TEAMS.test(name) && name.toLowerCase() !== player,
  );
}

const LEAGUES: { name: string; pattern: RegExp; sports: Sport[] }[] = [
  { name: 'NBA', pattern: /\bNBA\b/g, sports: NBA },
  { name: 'WNBA', pattern: /\bWNBA\b/g, sports: NBA },
  { name: 'G League', pattern: /\bG[- ]League\b/gi, sports: NBA },
  { name: 'EuroLeague', pattern: /\bEuroLeague\b/gi, sports: NBA },
  { name: 'NCAA', pattern: /\bNCAA\b/g, sports: ['nba', 'football'] },
  { name: 'NFL', pattern: /\bNFL\b/g, sports: FOOTBALL },
  { name: 'CFL', pattern: /\bCFL\b/g, sports: FOOTBALL },
  { name: 'UFL', pattern: /\bUFL\b/g, sports: FOOTBALL },
  { name: 'XFL', pattern: /\bXFL\b/g, sports: FOOTBALL },
];

/** Leagues a sentence names (each mention counts); a "League:" label names the player's own. */
export function leaguesIn(sentence: PlayerSentence, sport: Sport): { name: string; labelled: boolean }[] {
  const labelled = sentence.label === 'league' && sentence.listed !== null;
  const out: { name: string; labelled: boolean }[] = [];
  for (const league of LEAGUES) {
    if (!fits(league.sports, sport)) continue;
    for (const _match of sentence.text.matchAll(league.pattern)) out.push({ name: league.name, labelled });
  }
  return out;
}

/** A phrase the player is good or bad at, with the evidence text it came from. */
export interface Trait {
  item: string;
  fact: string;
}

const CLAUSE_END =
  /,\s*(?:but|although|though|which|while|who|where|when|so|because|and (?:he|she|his|her|the|they|it))\b|\s+(?:but|although|though|while|whereas|because)\s|\s+[—–]\s|[.;:!?(]/iu;
const LEADING_FILLER = /^(?:(?:his|her|their|its|the|a|an|some|very|really|\p{Lu}[\p{L}'’-]*['’]s)\s+)+/iu;
const TRAILING_FILLER = /(?:\s+(?:the|a|an|to|of|on|onto|in|at|for|with|when|while|he|she|is|are|was|and|or|his|her|their|by|from))+$/i;

/** A short item: the clause up to a break, without leading possessives, at most twelve words, capitalised. */
function itemOf(phrase: string): string {
  const clause = phrase.split(CLAUSE_END)[0]!.trim().replace(LEADING_FILLER, '');
  const words = clause.split(/\s+/).slice(0, 12).join(' ').replace(/[\s,;:]+$/, '').replace(TRAILING_FILLER, '').replace(/[\s,;:]+$/, '');
  return (words.charAt(0).toUpperCase() + words.slice(1)).slice(0, 200);
}

/** A list entry's item: the part before "Item: explanation", else its first clause. */
function listItemOf(text: string): string {
  const named = /^(.{2,60}?)\s*(?::|\s[—–-]\s)\s+\S/.exec(text);
  return itemOf(named ? named[1]! : text);
}

function listedItems(sentence: PlayerSentence): Trait[] {
  const parts = sentence.listed === 'inline' ? sentence.text.split(/[;,]\s*(?:and\s+)?|\s+and\s+(?=[^,]*$)/) : [sentence.text];
  return parts
    .map((part) => part.trim())
    .filter((part) => part.length >= 2)
    .map((part) => ({ item: sentence.listed === 'inline' ? itemOf(part) : listItemOf(part), fact: sentence.listed === 'inline' ? part : sentence.text }))
    .filter((trait) => trait.item.length >= 2);
}

const NEGATED = /\b(?:not|never|n't|lacks?|lacking|without|no longer|far from|hardly)\W+(?:\w+\W+){0,2}$/i;

/** Cue patterns; `whole` keeps the cue in the item ("Struggles with…"), else the captured phrase is the item. */
interface Cue {
  pattern: RegExp;
  whole?: boolean;
}

const STRENGTH_CUES: Cue[] = [
  { pattern: /\bexcels?\s+(?:at|in|as|when)\s+([^.;!?]+)/gi },
  { pattern: /\b(?:best|greatest|biggest|top|main|primary|standout)\s+(?:skill|strength|asset|trait|tool|quality)\s+(?:is|are|remains)\s+([^.;!?]+)/gi },
  { pattern: /\bstrengths?\s+(?:include|includes|are|is)\s+([^.;!?]+)/gi },
  { pattern: /\b(elite\s+[^.;!?]+)/gi },
  { pattern: /\b((?:exceptional|outstanding|excellent)\s+[^.;!?]+)/gi },
  { pattern: /([^.;!?,]+?)\s+(?:is|are|remains)\s+(?:his|her|their)\s+(?:best|greatest|biggest|top|main)\s+(?:skill|strength|asset|trait|tool|quality)/gi },
];
const WEAKNESS_CUES: Cue[] = [
  { pattern: /\bstruggles?\s+(?:with|against|to|at|when|in)\s+[^.;!?]+/gi, whole: true },
  { pattern: /\b(?:biggest|main|primary|glaring|major|chief|clear)?\s*(?:weakness(?:es)?|limitations?|concerns?|flaws?)\s+(?:is|are|include|includes|remains?)\s+([^.;!?]+)/gi },
  { pattern: /([^.;!?,]+?)\s+(?:is|are|remains?|has been)\s+(?:his|her|their)\s+(?:biggest|main|primary|greatest|major|clear)\s+(?:weakness|limitation|concern|flaw)/gi },
  { pattern: /\bneeds?\s+to\s+(?:improve|work on|develop|get better at|clean up|tighten(?: up)?|add)\s+([^.;!?]+)/gi },
  { pattern: /\b(limited\s+[^.;!?]+)/gi },
  { pattern: /\b(inconsistent\s+(?!from|in|at|on|and|with|when|to|over|during|between)[^.;!?]+)/gi },
  { pattern: /(?:^|,\s*)((?:his|her|their|\p{Lu}[\p{L}'’-]*['’]s)\s+[^.;!?,]+?\s+(?:is|are|remains?|has been|have been)\s+inconsistent)\b/giu },
  { pattern: /\bprone\s+to\s+[^.;!?]+/gi, whole: true },
  { pattern: /\black(?:s|ing)\s+[^.;!?]+/gi, whole: true },
];

function cueTraits(sentence: PlayerSentence, cues: Cue[], checkNegation: boolean): Trait[] {
  const out: Trait[] = [];
  for (const cue of cues) {
    for (const match of sentence.text.matchAll(cue.pattern)) {
      if (checkNegation && NEGATED.test(sentence.text.slice(0, match.index))) continue;
      const phrase = cue.whole ? match[0] : (match[1] ?? match[0]);
      const parts = /\bstrengths?\s+(?:include|includes|are|is)\b/i.test(match[0]) ? phrase.split(/,\s*(?:and\s+)?|\s+and\s+/) : [phrase];
      for (const part of parts) {
        const item = itemOf(part);
        if (item.length >= 3) out.push({ item, fact: sentence.text });
      }
    }
  }
  return out;
}

/** Strengths: entries of a "Strengths" list, or sentences with a strength cue ("excels at", "elite", "best skill"). */
export function strengthsIn(sentence: PlayerSentence): Trait[] {
  if (sentence.listed && sentence.label === 'strengths') return listedItems(sentence);
  if (sentence.listed && (sentence.label === 'weaknesses' || sentence.label === 'development')) return [];
  return cueTraits(sentence, STRENGTH_CUES, true);
}

/** Weaknesses: entries of a "Weaknesses"/"Areas for improvement" list, or sentences with a weakness cue. */
export function weaknessesIn(sentence: PlayerSentence): Trait[] {
  if (sentence.listed && (sentence.label === 'weaknesses' || sentence.label === 'development')) return listedItems(sentence);
  if (sentence.listed && sentence.label === 'strengths') return [];
  return cueTraits(sentence, WEAKNESS_CUES, false);
}

const DEVELOPMENT_CUE = /\bneeds?\s+to\s+(?:improve|work on|develop|get better|clean up|tighten|add)\b|\b(?:should|must)\s+(?:focus on|improve|work on|develop)\b|\bdevelopment (?:focus|priority|priorities|plan)\b|\bwork(?:ing)?\s+on\s+(?:his|her|their)\b|\bnext step\b/i;

/** An improvement area: a development list entry or a sentence that says what to work on. */
export function isDevelopment(sentence: PlayerSentence): boolean {
  return (sentence.label === 'development' && sentence.listed !== null) || DEVELOPMENT_CUE.test(sentence.text);
}

const RISK_CUE =
  /\b(?:injur(?:y|ies|ed)|surger(?:y|ies)|sprain(?:ed|s)?|torn|tear|fractur(?:e|ed)|concussions?|missed\s+\d+\s+(?:games|starts|weeks)|durability|rehab(?:ilitation)?|setbacks?|strain(?:ed|s)?|ACL|MCL|hamstring|labrum|soreness|stress reaction)\b/i;

/** An injury or durability note: an entry of an injury list, or a sentence with an injury cue. */
export function isRisk(sentence: PlayerSentence): boolean {
  return (sentence.label === 'risk' && sentence.listed !== null) || RISK_CUE.test(sentence.text);
}

const STAT_CUE =
  /\d+(?:\.\d+)?\s?%|\b\d{1,2}(?:\.\d)?\s+(?:points|rebounds|assists|steals|blocks|turnovers)\b|\b\d{1,2}(?:,\d{3}|\d{2,3})\s+(?:passing|rushing|receiving|scrimmage)?\s*yards\b|\b\d{1,3}\s+(?:touchdowns?|touchdown passes|interceptions?|sacks?|receptions|catches)\b|\bdefensive rating\b|\bcompletion (?:rate|percentage)\b|\bpasser rating\b/i;

/** A sentence that carries a statistic (percentages, per-game numbers, yards, touchdowns, ratings). */
export function isStat(sentence: PlayerSentence): boolean {
  return sentence.listed === null && STAT_CUE.test(sentence.text);
}

/** Play-style vocabulary recognised in prose; a "Style:" list may name anything. */
export const STYLE_WORDS = [
  'pick-and-roll ball handler', 'pick-and-roll', '3-and-D', 'rim protector', 'rim runner', 'stretch four', 'stretch big', 'point forward',
  'floor general', 'shot creator', 'two-way', 'slasher', 'spot-up shooter', 'isolation scorer', 'post scorer', 'transition', 'lob threat',
  'switchable defender', 'connector', 'pocket passer', 'dual-threat', 'gunslinger', 'game manager', 'deep threat', 'slot receiver',
  'possession receiver', 'yards after catch', 'downhill runner', 'pass rusher', 'run stopper', 'ball hawk', 'press corner', 'vertical threat',
  'red-zone target', 'play-action', 'off-ball mover',
];
const STYLE_PATTERN = new RegExp(`\\b(?:${STYLE_WORDS.map(escapeRegExp).sort((a, b) => b.length - a.length).join('|')})\\b`, 'gi');

/** Style tags: a "Style" list's entries, or known style words in prose that is not about a weakness. */
export function styleTagsIn(sentence: PlayerSentence): string[] {
  if (sentence.listed && sentence.label === 'style') return listedItems(sentence).map((trait) => trait.item.slice(0, 80));
  if (sentence.listed && sentence.label !== 'role') return [];
  if (weaknessesIn(sentence).length > 0 || /\b(?:not|never|n't|unlike)\b/i.test(sentence.text)) return [];
  const tags: string[] = [];
  for (const match of sentence.text.matchAll(STYLE_PATTERN)) {
    const canonical = STYLE_WORDS.find((word) => word.toLowerCase() === match[0].toLowerCase()) ?? match[0];
    tags.push(canonical.charAt(0).toUpperCase() + canonical.slice(1));
  }
  return tags;
}

const ROLE_CUE = /\b((?:projects?|profiles?)\s+(?:as|to be|into)\s+[^.;!?]+|projected\s+(?:role|to be|as)\s+[^.;!?]+|(?:best|likely|realistic)\s+(?:role|outcome|projection)\s+(?:is|as)\s+[^.;!?]+|(?:ceiling|floor)\s+(?:is|as)\s+[^.;!?]+)/i;

/** A role projection: a "Role:" entry, or the clause after "projects as", "profiles as", "ceiling is"… */
export function roleIn(sentence: PlayerSentence): string | null {
  if (sentence.label === 'role' && sentence.listed !== null) return sentence.text.slice(0, 500);
  const match = ROLE_CUE.exec(sentence.text);
  if (!match) return null;
  const clause = match[1]!.trim();
  return (clause.charAt(0).toUpperCase() + clause.slice(1)).slice(0, 500);
}

/** Whether a sentence holds evidence for one of the spec's expected fields: shared with the coverage report. */
export const FIELD_DETECTORS: Record<ExpectedField, (sentence: PlayerSentence, sport: Sport, player_name: string) => boolean> = {
  positions: (sentence, sport) => positionsIn(sentence, sport).length > 0,
  teams: (sentence, _sport, player_name) => teamsIn(sentence, player_name).length > 0,
  height: (sentence) => heightsIn(sentence).length > 0,
  weight: (sentence) => weightsIn(sentence).length > 0,
  strengths: (sentence) => strengthsIn(sentence).length > 0,
  weaknesses: (sentence) => weaknessesIn(sentence).length > 0,
};

// --- Extraction ------------------------------------------------------------------------------

/** The most frequent value (first seen wins a tie). */
function mostFrequent<T>(values: T[]): T | undefined {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  let best: T | undefined;
  let bestCount = 0;
  for (const [value, count] of counts) {
    if (count > bestCount) {
      best = value;
      bestCount = count;
    }
  }
  return best;
}

/** Unique by lower case, first kept, at most `max`. */
function uniqueItems(items: string[], max: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of items) {
    const key = item.toLowerCase().replace(/\W+/g, ' ').trim();
    if (!key || seen.has(key)) continue;
    seen.add(key);
    out.push(item);
  }
  return out.slice(0, max);
}

/** Teams without the short forms of names also given in full ("the Sentinels" for "Silver Lake Sentinels"). */
function fullTeamNames(teams: string[]): string[] {
  return teams.filter((team) => !teams.some((other) => other !== team && other.toLowerCase().endsWith(` ${team.toLowerCase()}`)));
}

/** A height in feet and inches, as North American scouting writes it. */
export const feetAndInches = (cm: number): string => {
  const inches = Math.round(cm / 2.54);
  return `${Math.floor(inches / 12)}'${inches % 12}"`;
};

/** Player fields and facts from the chunks about the player, in chunk order (best evidence first). */
export function extractOffline(chunks: EvidenceChunk[], player: { player_name: string; sport: Sport }): Extraction {
  const name = sanitizeName(player.player_name);
  const sentences = playerSentences(chunks, name);
  const facts: RawFact[] = [];
  const factKeys = new Set<string>();
  const addFact = (sentence: PlayerSentence, field: RawFact['field'], text: string, topic?: FactTopic): void => {
    const key = `${field}|${topic ?? ''}|${text.toLowerCase()}`;
    if (factKeys.has(key)) return;
    factKeys.add(key);
    facts.push({ text, field, ...(topic ? { topic } : {}), doc_id: sentence.chunk.doc_id, chunk_id: sentence.chunk.chunk_id });
  };

  const heights: number[] = [];
  const weights: number[] = [];
  const positions: string[] = [];
  const teams: string[] = [];
  const leagues: { name: string; labelled: boolean }[] = [];
  const strengths: string[] = [];
  const weaknesses: string[] = [];
  const styleTags: string[] = [];
  const roles: string[] = [];

  for (const sentence of sentences) {
    for (const height of heightsIn(sentence)) {
      heights.push(height.value);
      addFact(sentence, 'height', /cm|m$/.test(height.written) ? `Height: ${height.value} cm (${feetAndInches(height.value)})` : `Height: ${height.written} (${height.value} cm)`);
    }
    for (const weight of weightsIn(sentence)) {
      weights.push(weight.value);
      addFact(sentence, 'weight', /kg|kilo/i.test(weight.written) ? `Weight: ${weight.value} kg` : `Weight: ${weight.written} (${weight.value} kg)`);
    }
    for (const mention of positionsIn(sentence, player.sport)) {
      positions.push(mention.code);
      addFact(sentence, 'positions', mention.written === mention.code ? `Position: ${mention.code}` : `Position: ${mention.written.toLowerCase()} (${mention.code})`);
    }
    for (const team of teamsIn(sentence, name)) {
      teams.push(team);
      addFact(sentence, 'teams', `Team: ${team}`);
    }
    for (const league of leaguesIn(sentence, player.sport)) leagues.push(league);
    for (const trait of strengthsIn(sentence)) {
      strengths.push(trait.item);
      addFact(sentence, 'strengths', trait.fact);
    }
    for (const trait of weaknessesIn(sentence)) {
      weaknesses.push(trait.item);
      addFact(sentence, 'weaknesses', trait.fact);
    }
    for (const tag of styleTagsIn(sentence)) {
      styleTags.push(tag);
      addFact(sentence, 'other', `Style: ${tag}`, 'style');
    }
    const role = roleIn(sentence);
    if (role) {
      roles.push(role);
      addFact(sentence, 'other', sentence.listed ? role : sentence.text, 'role');
    }
    if (isRisk(sentence)) addFact(sentence, 'other', sentence.text, 'risk');
    if (isDevelopment(sentence)) addFact(sentence, 'other', sentence.text, 'development');
    if (isStat(sentence)) addFact(sentence, 'other', sentence.text, 'stat');
  }

  const labelledLeague = leagues.find((league) => league.labelled)?.name;
  const league = labelledLeague ?? mostFrequent(leagues.map((l) => l.name));
  if (league) {
    const source = sentences.find((sentence) => leaguesIn(sentence, player.sport).some((l) => l.name === league));
    if (source) addFact(source, 'other', `League: ${league}`, 'league');
  }

  const height_cm = mostFrequent(heights);
  const weight_kg = mostFrequent(weights);
  const scouting = {
    ...(strengths.length ? { strengths: uniqueItems(strengths, 10) } : {}),
    ...(weaknesses.length ? { weaknesses: uniqueItems(weaknesses, 10) } : {}),
    ...(styleTags.length ? { style_tags: uniqueItems(styleTags, 10) } : {}),
    ...(roles.length ? { role_projection: roles[0]! } : {}),
  };
  const player_fields = PlayerFields.parse({
    display_name: name,
    sport: player.sport,
    ...(positions.length ? { positions: uniqueItems(positions, 6) } : {}),
    ...(teams.length ? { teams: fullTeamNames(uniqueItems(teams, 24)).slice(0, 12) } : {}),
    ...(league ? { league } : {}),
    ...(height_cm !== undefined || weight_kg !== undefined
      ? { physical: { ...(height_cm !== undefined ? { height_cm } : {}), ...(weight_kg !== undefined ? { weight_kg } : {}) } }
      : {}),
    ...(Object.keys(scouting).length ? { scouting } : {}),
  });
  return { raw_facts: facts, player_fields };
}
