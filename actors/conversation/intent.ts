/**
 * Reading a user's message without a model: which workflow it asks for, which tool, and what it
 * names (a format, a time window, an archetype, a deck list). The spec's routing keywords, plus what
 * a coach would recognise. Pure and deterministic.
 */
import type { MetaToolName } from './tool-prose.js';
import type { Workflow } from './state.js';

const DECK_LINE = /^\s*(?:SB:\s*)?\d{1,2}x?\s+\S/i;
/** A deck list: at least 8 lines like "4 Lightning Bolt" (MTGO, Arena and Moxfield exports). */
export function looksLikeDeck(text: string): boolean {
  return text.split(/\r?\n/).filter((line) => DECK_LINE.test(line)).length >= 8;
}

const COACHING = /\bmy (deck|list|sideboard|side ?board|main ?deck|mainboard|build|75)\b|\bsideboard|\bmain ?board|\boptimi[sz]|\bimprove\b|\bcoach|\bstrateg|\bgame ?plan|\bhow (do|can|should) i (beat|play)|\bplay(ing)? against\b|\bmulligan|\bside (in|out)\b|\bcuts?\b/i;
const META = /\bmeta\b|\b(top|best|strongest|leading)\b[^.?!]{0,40}?\b(decks?|archetypes?|lists?)\b|\bformat overview\b|\bbest decks?\b|\bmost (played|popular)\b|\bpopular\b|\btrending\b|\btier\b|\barchetypes\b|\bwhat('s| is) (good|winning|strong)\b|\bmatchups?\b|\bmatrix\b|\bwin rates?\b/i;

/**
 * The workflow a message asks for. A follow-up that names no workflow of its own ("what about Legacy?",
 * "and over 60 days?") continues the conversation's current one when it says what to change.
 */
export function routeIntent(message: string, deckGiven: boolean, current: Workflow | null = null, namesSomething = false): Workflow {
  if (deckGiven || COACHING.test(message)) return 'deck_coaching';
  if (META.test(message)) return 'meta_research';
  if (current && current !== 'unknown' && (namesSomething || FOLLOW_UP.test(message))) return current;
  return 'unknown';
}

const FOLLOW_UP = /^\s*(and|what about|how about|same|again|now)\b|\b(instead|again)\b/i;

/** The meta-research tool a message asks for. */
export function metaToolFor(message: string): MetaToolName {
  if (/\bmatchups?\b|\bmatrix\b|\bvs\.?\b|\bversus\b|\bagainst\b/i.test(message)) return 'get_format_matchup_stats';
  if (/\b(list|which|what) (of )?(the )?archetypes\b|\barchetypes (are there|exist)\b/i.test(message)) return 'get_format_archetypes';
  return 'get_format_meta_rankings';
}

/** The coaching tool a message asks for, if any (a pasted deck alone asks for none beyond parsing it). */
export function coachingToolFor(message: string): MetaToolName | undefined {
  if (/\bside ?board|\bside (in|out)\b/i.test(message)) return 'optimize_sideboard';
  if (/\bstrateg|\bgame ?plan|\bhow (do|can|should) i (beat|play)|\bplay(ing)? against\b|\b(vs\.?|versus|against)\s+\S/i.test(message)) return 'generate_deck_matchup_strategy';
  if (/\bmain ?(deck|board)|\boptimi[sz]|\bimprove\b|\bcuts?\b|\bswap/i.test(message)) return 'optimize_mainboard';
  if (/\bmatchups?\b|\brecord\b|\bhow (does|is) my deck (do|doing|perform)/i.test(message)) return 'get_deck_matchup_stats';
  return undefined;
}

const NUMBER_WORDS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12 };
const UNIT_DAYS: Record<string, number> = { day: 1, week: 7, fortnight: 14, month: 30 };

/** A time window the message names ("last two weeks" → 14, "past 30 days" → 30, "last month" → 30), in days. */
export function daysIn(message: string): number | undefined {
  const match = /\b(?:(\d{1,3})|(a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve))?\s*-?\s*(day|week|fortnight|month)s?\b/i.exec(message);
  if (!match) return undefined;
  const unit = UNIT_DAYS[match[3]!.toLowerCase()]!;
  const count = match[1] ? Number(match[1]) : match[2] ? NUMBER_WORDS[match[2].toLowerCase()]! : /\b(last|past|this|previous)\s+(day|week|fortnight|month)/i.test(message) ? 1 : undefined;
  if (count === undefined) return undefined;
  const days = count * unit;
  return days >= 1 && days <= 365 ? days : undefined;
}

/** A format the message names, as the data spells it. */
export function formatIn(message: string, formats: readonly string[]): string | undefined {
  return formats.find((format) => new RegExp(`\\b${escape(format)}\\b`, 'i').test(message));
}

/** Archetypes the message names (longest names first, so "Mono Red Aggro" wins over "Red Aggro"). */
export function archetypesIn(message: string, names: readonly string[]): string[] {
  const found: string[] = [];
  let rest = message;
  for (const name of [...names].sort((a, b) => b.length - a.length)) {
    const pattern = new RegExp(`\\b${escape(name)}\\b`, 'i');
    if (pattern.test(rest)) {
      found.push(name);
      rest = rest.replace(pattern, ' ');
    }
  }
  // In the order the message names them.
  return found.sort((a, b) => message.toLowerCase().indexOf(a.toLowerCase()) - message.toLowerCase().indexOf(b.toLowerCase()));
}

/** "the top archetype", "the best deck", "the most played deck": the opponent is #1 of the meta. */
export const namesTopArchetype = (message: string) => /\b(the )?(top|best|most (played|popular)|number one|#1|biggest)\s+(archetype|deck|threat)\b/i.test(message);

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
