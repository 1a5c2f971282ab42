/**
 * Reading a scouting request without a model (spec FR-01): is it a scouting request, which player
 * does it name, and which sport does its wording suggest. The graph asks the user for the player when
 * no name is found, and falls back to `sportFromEvidence` when the request names no sport. Pure.
 */
import { LIMITS, type Sport } from './schemas.js';

export interface Intake {
  intent: 'scouting_report' | 'other';
  player_name: string | null;
  sport_guess: Sport;
}

const SCOUTING_INTENT =
  /\bscouting[- ]reports?\b|\bscout(?:s|ed|ing)?\b|\bplayer[- ](?:profile|analysis|report|breakdown|evaluation)s?\b|\banaly[sz](?:e|ing)\s+(?:(?:the|this|a|my)\s+)?player\b|\breports?\s+on\b|\bprofile\s+(?:of|for|on)\b/i;

/** The request as the graph's first node reads it. */
export function intakeRequest(text: string): Intake {
  const request = text.slice(0, 4000);
  return {
    intent: SCOUTING_INTENT.test(request) ? 'scouting_report' : 'other',
    player_name: playerNameIn(request),
    sport_guess: sportOf(request),
  };
}

/** Text as stored and shown: control and format characters gone, single spaces, trimmed. */
export function cleanText(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').replace(/\s+/g, ' ').trim();
}

/** A name as stored and shown: clean text of at most LIMITS.playerName characters. */
export function sanitizeName(name: string): string {
  return cleanText(name).slice(0, LIMITS.playerName).trim();
}

// Sport cues: words a basketball or an American-football text uses and the other does not.
const NBA_CUES =
  /\b(?:nba|wnba|basketball|hoops|point guard|shooting guard|small forward|power forward|combo guard|rebound(?:s|ing|er)?|assists?|three[- ]point(?:ers?)?|3-point(?:ers?)?|3pt|free[- ]throws?|dunk(?:s|ing)?|g[- ]league|jump ?shot|pick[- ]and[- ]roll|rim protect(?:or|ion)|shooting percentage|defensive rating|triple[- ]doubles?)\b/gi;
const FOOTBALL_CUES =
  /\b(?:nfl|american football|football|gridiron|quarterbacks?|qb|touchdowns?|passing yards|rushing yards|receiving yards|wide receivers?|running backs?|tight ends?|linebackers?|cornerbacks?|defensive ends?|offensive line(?:man|men)?|interceptions?|sacks?|pocket presence|red zone|super bowl|completion (?:rate|percentage)|end zone|passer rating)\b/gi;

function cueCount(pattern: RegExp, text: string): number {
  return text.match(pattern)?.length ?? 0;
}

/** The sport a text's wording points to, or `unknown` when it names neither or both equally. */
export function sportOf(text: string): Sport {
  const nba = cueCount(NBA_CUES, text);
  const football = cueCount(FOOTBALL_CUES, text);
  if (nba > football) return 'nba';
  if (football > nba) return 'football';
  return 'unknown';
}

/** The sport the retrieved evidence is about, for a request that named none. */
export function sportFromEvidence(texts: string[]): Sport {
  return sportOf(texts.join('\n'));
}

// Capitalised words a request starts sentences with, or that name the task, a sport, a position or a
// league: never part of a player's name.
const NOT_NAMES = new Set(
  (
    'generate create write make give build draft prepare produce run do get show tell find need want please can could would will should ' +
    'i i\'d i\'m we you me us hi hey hello thanks thank scout scouting report reports player players profile analysis analyze analyse ' +
    'evaluation evaluate breakdown summary a an the this that these those what who how is are my our his her their on for of about and or ' +
    'with new full quick detailed brief short nba wnba nfl ncaa g league basketball football quarterback qb guard forward center centre ' +
    'receiver linebacker cornerback safety tight end running back point shooting small power wide prospect rookie strengths weaknesses ' +
    'strength weakness stats season team pg sg sf pf c wr rb te lb cb de dt ol dl edge mvp pro bowl super college upload uploaded documents ' +
    'document based using from in at to by vs versus also include including focus then now some any his her him them it its ' +
    'play style role projection injury history height weight position positions'
  ).split(' '),
);
/** Lower-case words inside a name ("Rafael de la Torre", "Vincent van der Berg"). */
export const NAME_PARTICLES = new Set(['de', 'da', 'del', 'della', 'der', 'den', 'di', 'du', 'la', 'le', 'van', 'von', 'dos', 'das', 'ter', 'ten', 'st.', 'bin', 'al']);
const SUFFIXES = new Set(['jr', 'jr.', 'sr', 'sr.', 'ii', 'iii', 'iv']);
/** Words after which a request names its player ("report for X", "scout X", "Player: X"). */
const TRIGGERS = new Set(['for', 'on', 'of', 'about', 'scout', 'scouting', 'analyze', 'analyse', 'profile', 'evaluate', 'regarding', ':']);

const TOKEN = /(?:\p{Lu}\.){1,3}|\p{L}[\p{L}\p{M}'’-]*\.?|\p{N}[\p{N}.,]*|[^\s\p{L}\p{N}]/gu;

interface Token {
  text: string;
  /** Ends a name even when a name word follows (a possessive, a full stop). */
  closes: boolean;
}

function tokensOf(text: string): Token[] {
  return (text.match(TOKEN) ?? []).map((raw) => {
    const lower = raw.toLowerCase();
    if (/^(?:\p{Lu}\.)+$/u.test(raw) || SUFFIXES.has(lower) || lower === 'st.') return { text: raw, closes: false };
    const word = raw.replace(/\.$/, '');
    const possessive = /['’]s?$/.exec(word);
    if (possessive && /\p{L}/u.test(word.slice(0, possessive.index))) return { text: word.slice(0, possessive.index), closes: true };
    return { text: word, closes: word !== raw };
  });
}

function isNameWord(word: string): boolean {
  if (NOT_NAMES.has(word.toLowerCase())) return false;
  if (/^(?:\p{Lu}\.)+$/u.test(word)) return true;
  if (/^\p{Lu}{2}$/u.test(word)) return true;
  return /^\p{Lu}[\p{L}\p{M}'’-]*$/u.test(word) && /\p{Ll}/u.test(word);
}

const isParticle = (word: string): boolean => NAME_PARTICLES.has(word.toLowerCase()) && !/^\p{Lu}{2,}$/u.test(word);

interface NameRun {
  words: string[];
  /** Whether a trigger word comes shortly before the run. */
  triggered: boolean;
}

/** Runs of capitalised name words, particles between them and a suffix after them. */
function nameRuns(tokens: Token[]): NameRun[] {
  const runs: NameRun[] = [];
  let i = 0;
  while (i < tokens.length) {
    if (!isNameWord(tokens[i]!.text)) {
      i += 1;
      continue;
    }
    const start = i;
    const words = [tokens[i]!.text];
    let closed = tokens[i]!.closes;
    i += 1;
    while (!closed && i < tokens.length && words.length < 6) {
      const word = tokens[i]!.text;
      if (isNameWord(word)) {
        words.push(word);
        closed = tokens[i]!.closes;
        i += 1;
        continue;
      }
      let j = i;
      while (j < tokens.length && j - i < 2 && isParticle(tokens[j]!.text)) j += 1;
      if (j > i && j < tokens.length && isNameWord(tokens[j]!.text)) {
        words.push(...tokens.slice(i, j).map((t) => t.text), tokens[j]!.text);
        closed = tokens[j]!.closes;
        i = j + 1;
        continue;
      }
      const comma = word === ',' && i + 1 < tokens.length && SUFFIXES.has(tokens[i + 1]!.text.toLowerCase());
      const suffixAt = comma ? i + 1 : i;
      if (SUFFIXES.has(tokens[suffixAt]?.text.toLowerCase() ?? '')) {
        words.push(tokens[suffixAt]!.text);
        i = suffixAt + 1;
      }
      break;
    }
    const before = tokens.slice(Math.max(0, start - 3), start).map((t) => t.text.toLowerCase());
    runs.push({ words, triggered: before.some((word) => TRIGGERS.has(word)) });
  }
  return runs;
}

const QUOTED = /["“]([^"“”]{2,120})["”]|(?:^|\s)['‘]([^'‘’]{2,120})['’](?=[\s.,!?;:]|$)/u;

/** A name put in quotes, when it looks like one (a capitalised name word, at most six words). */
function quotedName(text: string): string | null {
  const match = QUOTED.exec(text);
  const quoted = sanitizeName(match?.[1] ?? match?.[2] ?? '');
  const words = quoted.split(' ');
  return words.length <= 6 && words.some(isNameWord) ? quoted : null;
}

/** A name typed in lower case right after a trigger ("scouting report for marcus ellery"): two or three plain words. */
function lowerCaseName(tokens: Token[]): string | null {
  for (let i = 0; i < tokens.length; i += 1) {
    if (!TRIGGERS.has(tokens[i]!.text.toLowerCase()) || tokens[i]!.text === ':') continue;
    const words: string[] = [];
    let j = i + 1;
    while (j < tokens.length && words.length < 4 && /^\p{Ll}[\p{L}'’-]*$/u.test(tokens[j]!.text) && !NOT_NAMES.has(tokens[j]!.text)) {
      words.push(tokens[j]!.text);
      j += 1;
    }
    if (words.length >= 2 && words.length <= 3) return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' ');
  }
  return null;
}

/** The player a request names, or null (the graph then asks). */
export function playerNameIn(text: string): string | null {
  const quoted = quotedName(text);
  if (quoted) return quoted;
  const tokens = tokensOf(text);
  const runs = nameRuns(tokens);
  const best =
    runs.find((run) => run.triggered && run.words.length > 1) ??
    runs.find((run) => run.triggered) ??
    runs.find((run) => run.words.length > 1);
  const name = best ? best.words.join(' ') : lowerCaseName(tokens);
  return name ? sanitizeName(name) || null : null;
}
