/**
 * Deck-list text as people paste it (MTG Arena, Moxfield, MTGGoldfish, MTGO, hand-typed) turned into
 * entries: a quantity, the card name as typed and the section it sits in. Pure: names are not looked up
 * here (see card-matcher.ts), and lines that make no sense are reported rather than guessed at.
 */
import { cardLookupKey } from '../../models/mtg/card-lookup-key.js';

export type DeckSection = 'mainboard' | 'sideboard';

export interface DeckEntry {
  /** As typed, trimmed, with set code, collector number, foil marker and tags removed. */
  name: string;
  quantity: number;
  section: DeckSection;
  /** 1-based line of the text the entry came from (the first one after merging). */
  line: number;
}

export interface DeckTextProblem {
  /** 1-based. */
  line: number;
  /** The line, trimmed, runs of spaces and tabs made one space. */
  text: string;
  reason: string;
}

export interface ParsedDeck {
  entries: DeckEntry[];
  problems: DeckTextProblem[];
}

/**
 * maxLineChars: the longest card name is 141 characters; a longer line is reported, not parsed, which
 * also keeps every pattern below working on short strings.
 */
export const DECK_TEXT_LIMITS = { maxChars: 100_000, maxLines: 1_000, maxLineChars: 500, maxQuantity: 99 } as const;
/** A header is a word or two and a count. */
const MAX_HEADER_CHARS = 100;

/** Thrown for deck text too large to be a deck list; ordinary bad lines become problems instead. */
export class DeckTextError extends Error {
  override readonly name = 'DeckTextError';
}

/**
 * MTGO exports (and MTGGoldfish / .dek-as-text ones) put the sideboard after a blank line with no
 * header. When no explicit sideboard marker appears anywhere (a sideboard header or an `SB:` line),
 * the cards after the LAST blank line are the sideboard if they number at most 15, the cards before
 * them at least 40 (a constructed main deck), and that last group has no header of its own
 * ("Lands (12)", "Deck"). Otherwise every card is mainboard: a blank line mid-list is just layout.
 * Leading, trailing and repeated blank lines count as one separator or none.
 */
const IMPLICIT_SIDEBOARD = { maxCards: 15, minMainCards: 40 } as const;

/** Where the lines after a header go. `companion` cards are sideboard cards (that is where a companion sits). */
type Zone = 'mainboard' | 'commander' | 'sideboard' | 'companion' | 'maybeboard';

type HeaderKind = Zone | 'about' | 'category';

/** Header words, compared with spaces, hyphens and case dropped. */
const HEADER_WORDS: ReadonlyMap<string, HeaderKind> = new Map([
  ...['deck', 'main', 'maindeck', 'mainboard'].map((word) => [word, 'mainboard'] as const),
  ...['commander', 'commanders'].map((word) => [word, 'commander'] as const),
  ...['sideboard', 'side', 'sb'].map((word) => [word, 'sideboard'] as const),
  ...['companion', 'companions'].map((word) => [word, 'companion'] as const),
  ...['maybeboard', 'maybe', 'considering'].map((word) => [word, 'maybeboard'] as const),
  ['about', 'about'] as const,
  // Card-type groupings some sites print above their cards: layout, not sections.
  ...[
    'creature', 'creatures', 'land', 'lands', 'instant', 'instants', 'sorcery', 'sorceries', 'artifact',
    'artifacts', 'enchantment', 'enchantments', 'planeswalker', 'planeswalkers', 'battle', 'battles', 'spell',
    'spells', 'otherspells', 'noncreaturespells', 'other', 'others', 'kindred', 'tribal',
  ].map((word) => [word, 'category'] as const),
]);

type ClassifiedLine =
  | { kind: 'blank' }
  | { kind: 'comment' }
  | { kind: 'header'; header: HeaderKind }
  | { kind: 'card'; name: string; quantity: number; markedSideboard: boolean }
  | { kind: 'problem'; reason: string };

interface CardLine {
  name: string;
  quantity: number;
  line: number;
  zone: Zone;
  /** Blank-line-separated group the line is in (for the implicit sideboard rule). */
  group: number;
}

export function parseDeckText(text: string): ParsedDeck {
  const lines = splitLines(text);
  const problems: DeckTextProblem[] = [];
  const cards: CardLine[] = [];
  const groupsWithHeaders = new Set<number>();
  let zone: Zone = 'mainboard';
  let explicitSideboard = false;
  let inAbout = false;
  let group = 0;
  let previousWasBlank = true;

  lines.forEach((raw, index) => {
    const line = index + 1;
    const text = collapseSpaces(raw);
    const classified = classifyLine(text);
    if (classified.kind === 'blank') {
      if (!previousWasBlank) group++;
      previousWasBlank = true;
      inAbout = false;
      // A companion section holds one card; a list that goes on after it without a "Deck" header is the deck.
      if (zone === 'companion') zone = 'mainboard';
      return;
    }
    previousWasBlank = false;
    // Arena's "About" block: "Name <deck name>" is the deck's name, not a card.
    if (inAbout && /^name(\s|$)/i.test(text)) return;
    inAbout = false;
    switch (classified.kind) {
      case 'comment':
        return;
      case 'header':
        groupsWithHeaders.add(group);
        if (classified.header === 'about') inAbout = true;
        else if (classified.header !== 'category') {
          zone = classified.header;
          if (zone === 'sideboard') explicitSideboard = true;
        }
        return;
      case 'problem':
        if (zone !== 'maybeboard') problems.push({ line, text, reason: classified.reason });
        return;
      case 'card':
        if (zone === 'maybeboard') return;
        if (classified.markedSideboard) explicitSideboard = true;
        cards.push({
          name: classified.name,
          quantity: classified.quantity,
          line,
          zone: classified.markedSideboard ? 'sideboard' : zone,
          group,
        });
    }
  });

  const implicitSideboardGroup = explicitSideboard ? undefined : findImplicitSideboardGroup(cards, groupsWithHeaders);
  const entries = withoutRepeatedCompanion(cards).map(
    (card): DeckEntry => ({
      name: card.name,
      quantity: card.quantity,
      section: card.zone === 'sideboard' || card.zone === 'companion' || card.group === implicitSideboardGroup ? 'sideboard' : 'mainboard',
      line: card.line,
    }),
  );
  return { entries, problems };
}

/**
 * Merges entries that are the same card (same `keyOf`) in the same section: quantities are summed and
 * the first entry's name and line kept, in first-seen order. The caller does it after lookup, since only
 * the card index knows that "lightning bolt" and "Lightning Bolt // ..." are one card.
 */
export function mergeEntries<E extends DeckEntry>(entries: readonly E[], keyOf: (entry: E) => string): E[] {
  const merged = new Map<string, E>();
  for (const entry of entries) {
    const key = `${entry.section}\u0000${keyOf(entry)}`;
    const seen = merged.get(key);
    if (seen) seen.quantity += entry.quantity;
    else merged.set(key, { ...entry });
  }
  return [...merged.values()];
}

/**
 * A card name without the printing details deck exporters append or prepend: Arena / Moxfield
 * "(2XM) 141", "*F*" / "*E*" foil and etched markers, Moxfield "#tags", Archidekt "[Category]" and
 * "^Tag,#color^", "[2XM]" set codes (trailing, or leading as in MWS / XMage "[M10:146] Name"), Forge
 * "Name|2XM|1". Names with parentheses of their own ("B.F.M. (Big Furry Monster)") are kept.
 */
export function stripPrintingDetails(typed: string): string {
  let name = collapseSpaces(typed)
    .replace(/\s*\^[^^]*\^/g, '')
    .replace(/\s*#.*$/, '')
    .replace(/\s*\|.*$/, '')
    .replace(/^\[[A-Za-z0-9]{2,6}(?::[^\]]*)?\]\s*/, '');
  // Suffixes come in any order ("(2XM) 141 [Burn] *F*"); a few rounds peel them all.
  for (let round = 0; round < 4; round++) {
    name = withoutTrailingBrackets(name)
      .replace(/\s*\*[A-Za-z]{1,6}\*$/, '')
      .replace(/\s+\([A-Za-z0-9]{2,6}\)(?:\s+[^\s()[\]*]+)?$/, '');
  }
  return name.trim();
}

/** "Name [2XM]" -> "Name"; found by index, since a pattern would retry every "[" of "[[[[...". */
function withoutTrailingBrackets(name: string): string {
  const trimmed = name.trimEnd();
  const open = trimmed.lastIndexOf('[');
  return trimmed.endsWith(']') && open >= 0 ? trimmed.slice(0, open) : trimmed;
}

function splitLines(text: string): string[] {
  if (text.length > DECK_TEXT_LIMITS.maxChars) {
    throw new DeckTextError(
      `Deck text is too long: ${text.length.toLocaleString('en-US')} characters (at most ${DECK_TEXT_LIMITS.maxChars.toLocaleString('en-US')}).`,
    );
  }
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop(); // a final newline ends the last line
  if (lines.length > DECK_TEXT_LIMITS.maxLines) {
    throw new DeckTextError(
      `Deck text has too many lines: ${lines.length.toLocaleString('en-US')} (at most ${DECK_TEXT_LIMITS.maxLines.toLocaleString('en-US')}).`,
    );
  }
  return lines;
}

/** Tabs, non-breaking and other Unicode spaces become plain spaces; zero-width characters and BOMs go. */
function collapseSpaces(text: string): string {
  return text
    .replace(/[\u200B-\u200D\u2060\uFEFF]/g, '')
    .replace(/[\s\p{Zs}]+/gu, ' ')
    .trim();
}

/** `line` has been through collapseSpaces. */
function classifyLine(line: string): ClassifiedLine {
  if (line === '') return { kind: 'blank' };
  if (line.length > DECK_TEXT_LIMITS.maxLineChars) {
    return { kind: 'problem', reason: `The line is over ${DECK_TEXT_LIMITS.maxLineChars} characters: too long for a card line.` };
  }
  const header = line.length <= MAX_HEADER_CHARS ? headerOf(line) : undefined;
  if (header) return { kind: 'header', header };
  if (line.startsWith('//') || line.startsWith('#')) return { kind: 'comment' };
  return parseCardLine(line);
}

/** "Sideboard", "SIDEBOARD:", "// Sideboard", "Sideboard (15)", "Creatures (12)", "// Lands"... */
function headerOf(line: string): HeaderKind | undefined {
  const match = /^(?:\/\/|#)?\s*(\p{L}[\p{L} -]*?)\s*:?\s*(\(\d+\)|\[\d+\]|\d+)?\s*:?$/u.exec(line);
  if (!match) return undefined;
  const [, label, count] = match;
  const known = HEADER_WORDS.get(label.toLowerCase().replace(/[\s-]/g, ''));
  if (known) return known;
  // An unknown label with a count in brackets is a site's own grouping ("Ramp (8)"); a bare
  // "Lightning Bolt" is a card, and "// anything" else is a comment.
  return count && /^[([]/.test(count) ? 'category' : undefined;
}

function parseCardLine(line: string): ClassifiedLine {
  const sideboardMark = /^SB:\s*/i.exec(line);
  const rest = sideboardMark ? line.slice(sideboardMark[0].length) : line;
  const counted = splitQuantity(rest);
  if ('reason' in counted) return { kind: 'problem', reason: counted.reason };
  if (counted.quantity < 1) return { kind: 'problem', reason: 'The quantity is 0: a card line needs at least 1 copy.' };
  if (counted.quantity > DECK_TEXT_LIMITS.maxQuantity) {
    return { kind: 'problem', reason: `The quantity ${counted.quantity} is over ${DECK_TEXT_LIMITS.maxQuantity}.` };
  }
  const name = stripPrintingDetails(counted.name);
  if (name === '') return { kind: 'problem', reason: 'There is a quantity but no card name.' };
  if (cardLookupKey(name) === '') return { kind: 'problem', reason: 'This is not a card name: it has no letters or digits.' };
  return { kind: 'card', name, quantity: counted.quantity, markedSideboard: sideboardMark !== null };
}

/**
 * "4 Name", "4x Name", "4X Name", "4 x Name", "4× Name", "Name x4", or a bare "Name" (1 copy).
 * "4 Xenagos, the Reveler" keeps its X: a separate x multiplier must be followed by a space.
 */
function splitQuantity(text: string): { quantity: number; name: string } | { reason: string } {
  if (/^[-−]\s*\d/.test(text)) return { reason: 'The quantity is negative.' };
  if (/^\d+\s*[xX×]?$/.test(text)) return { reason: 'There is a quantity but no card name.' };
  if (/^\d+[.,]\d/.test(text)) return { reason: 'The quantity is not a whole number.' };
  const leading = /^(\d+)(?:[xX×]\s*|\s+[xX×]\s+|\s+×?\s*)(.+)$/.exec(text);
  const trailing = /^(.+?)(?:\s[xX×]\s*|\s*×)(\d+)$/.exec(text);
  const counted = leading
    ? { quantity: Number.parseInt(leading[1], 10), name: leading[2] }
    : trailing
      ? { quantity: Number.parseInt(trailing[2], 10), name: trailing[1] }
      : { quantity: 1, name: text };
  if (/^[xX×]\s|(^|\s)[xX×]$/.test(counted.name)) return { reason: 'An "x" multiplier has no number.' };
  return counted;
}

function findImplicitSideboardGroup(cards: readonly CardLine[], groupsWithHeaders: ReadonlySet<number>): number | undefined {
  if (cards.length === 0) return undefined;
  const lastGroup = cards[cards.length - 1].group;
  if (groupsWithHeaders.has(lastGroup)) return undefined;
  let before = 0;
  let after = 0;
  for (const card of cards) {
    if (card.group === lastGroup) after += card.quantity;
    else before += card.quantity;
  }
  return after <= IMPLICIT_SIDEBOARD.maxCards && before >= IMPLICIT_SIDEBOARD.minMainCards ? lastGroup : undefined;
}

/**
 * Arena exports can list the companion under "Companion" and again under "Sideboard"; counting both
 * would put two copies in the sideboard, so a companion line is dropped when the sideboard names the
 * same card.
 */
function withoutRepeatedCompanion(cards: readonly CardLine[]): CardLine[] {
  const sideboardKeys = new Set(cards.filter((card) => card.zone === 'sideboard').map((card) => cardLookupKey(card.name)));
  return cards.filter((card) => card.zone !== 'companion' || !sideboardKeys.has(cardLookupKey(card.name)));
}
