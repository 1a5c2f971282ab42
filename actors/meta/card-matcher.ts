/**
 * Finds the catalogue card a typed deck-list name means, and suggests close names when none matches.
 * Pure and in memory: built once from the card catalogue (about 6,500 cards) and asked once per name.
 */
import { distance } from 'fastest-levenshtein';
import { cardLookupKey, cardLookupKeys } from '../../models/mtg/card-lookup-key.js';
import { stripPrintingDetails } from './deck-text.js';

/** What the matcher needs of a card (an MtgCard has it all). */
export interface CatalogueCard {
  /** As written in deck lists (the front face of a double-faced card). */
  name: string;
  /** "Front // Back" when it differs from `name`, else null. */
  full_name: string | null;
  /** cardLookupKeys(name, full_name). */
  lookup_keys: readonly string[];
}

export const SUGGESTION_DEFAULT_LIMIT = 3;

/**
 * cardLookupKey keeps "æ" as a letter of its own ("Æther Vial" -> "æthervial") while people type
 * "AEther Vial"; ligatures and letters NFKD does not decompose are spelled out on both sides.
 */
const SPELLED_OUT: ReadonlyArray<readonly [RegExp, string]> = [
  [/æ/g, 'ae'],
  [/œ/g, 'oe'],
  [/ø/g, 'o'],
  [/ß/g, 'ss'],
];

function matchKey(keyOrText: string): string {
  let key = cardLookupKey(keyOrText);
  for (const [letter, spelling] of SPELLED_OUT) key = key.replace(letter, spelling);
  return key;
}

// Suggestion costs, lower is better. An edit-distance match costs edits / typed length (at most 0.35
// unless the typed name is short); the rest are below.
/** What was typed is the name's first words: "sheoldred" -> "Sheoldred, the Apocalypse". */
const WORD_PREFIX_COST = 0.15;
/** Starts the same but mid-word: "fable" -> "Fabled Passage". */
const PREFIX_COST = 0.3;
const CONTAINS_COST = 0.5;
/** Prefix and contains matches cost up to this much more the less of the card's key the typed key covers. */
const UNCOVERED_COST = 0.2;
/** Shorter typed keys are prefixes or parts of too many names to say anything. */
const MIN_PREFIX_LENGTH = 3;
const MIN_CONTAINS_LENGTH = 4;

interface KeyedCard {
  key: string;
  card: number;
}

export class CardMatcher<C extends CatalogueCard = CatalogueCard> {
  private readonly cards: readonly C[];
  /** Match key -> index into `cards`. */
  private readonly byKey = new Map<string, number>();
  /** Every key of every card, by key length, for suggestions. */
  private readonly byLength = new Map<number, KeyedCard[]>();
  private readonly maxKeyLength: number;
  /** Keys of a name's first words ("Sheoldred", "Sheoldred, the") -> the cards whose name starts so. */
  private readonly byFirstWords = new Map<string, number[]>();

  constructor(cards: Iterable<C>) {
    this.cards = [...cards];
    // Earlier passes win a key shared by two cards: a card's own name beats another card's full
    // "Front // Back" name (the catalogue has both "Jadzi, Steward of Fate" and "Jadzi, Steward of
    // Fate // Oracle's Gift"), which beats the front face of a "Front // Back" name ("Bottomless Pool").
    const passes: Array<(card: C) => string[]> = [
      (card) => [card.name],
      (card) => [...card.lookup_keys, ...cardLookupKeys(card.name, card.full_name)],
      (card) => (card.name.includes('/') ? [frontFace(card.name)] : []),
    ];
    for (const keysOf of passes) {
      this.cards.forEach((card, index) => {
        for (const key of keysOf(card).map(matchKey)) {
          if (key !== '' && !this.byKey.has(key)) this.byKey.set(key, index);
        }
      });
    }
    for (const [key, card] of this.byKey) {
      const bucket = this.byLength.get(key.length) ?? [];
      bucket.push({ key, card });
      this.byLength.set(key.length, bucket);
    }
    this.maxKeyLength = Math.max(0, ...this.byLength.keys());
    this.cards.forEach((card, index) => {
      const words = card.name.split(' ');
      for (let count = 1; count < words.length; count++) {
        const key = matchKey(words.slice(0, count).join(' '));
        const holders = this.byFirstWords.get(key) ?? [];
        if (key !== '' && !holders.includes(index)) this.byFirstWords.set(key, [...holders, index]);
      }
    });
  }

  /**
   * The card a typed name means, by exact lookup key (case, accents, punctuation and spaces ignored,
   * "AE" = "Æ"), else without a set / collector suffix the parser left ("Bolt (2XM) 141", "Bolt 2XM 141"),
   * else by the front face of a typed "Front // Back" or "Front/Back".
   */
  find(typed: string): C | undefined {
    for (const key of typedKeys(typed)) {
      const index = this.byKey.get(key);
      if (index !== undefined) return this.cards[index];
    }
    return undefined;
  }

  /**
   * Up to `limit` card names close to a name `find` did not match, best first: few edits away
   * (at most max(2, 35% of the typed key's length)), or starting with or containing what was typed
   * ("ragavan" -> "Ragavan, Nimble Pilferer"), a match of whole first words ranking above one that
   * stops mid-word. Ties go to the shorter key, then the name (by code point, so the order is the same everywhere).
   */
  suggest(typed: string, limit = SUGGESTION_DEFAULT_LIMIT): string[] {
    const costs = new Map<number, { cost: number; extra: number }>();
    const consider = (card: number, cost: number, extra: number): void => {
      const best = costs.get(card);
      if (!best || cost < best.cost || (cost === best.cost && extra < best.extra)) costs.set(card, { cost, extra });
    };
    // Not the raw text: "Bolt (2XM) 141" would be compared with its set code still on.
    for (const key of typedKeys(stripPrintingDetails(typed))) {
      const threshold = Math.max(2, Math.floor(key.length * 0.35));
      // Levenshtein distance is at least the length difference, so only nearby lengths can be close.
      for (let length = Math.max(1, key.length - threshold); length <= Math.min(this.maxKeyLength, key.length + threshold); length++) {
        for (const candidate of this.byLength.get(length) ?? []) {
          const edits = distance(key, candidate.key);
          if (edits <= threshold) consider(candidate.card, edits / key.length, Math.abs(candidate.key.length - key.length));
        }
      }
      if (key.length < MIN_PREFIX_LENGTH) continue;
      for (const card of this.byFirstWords.get(key) ?? []) {
        const length = matchKey(this.cards[card].name).length;
        consider(card, WORD_PREFIX_COST + UNCOVERED_COST * (1 - key.length / length), length - key.length);
      }
      for (let length = key.length + 1; length <= this.maxKeyLength; length++) {
        for (const candidate of this.byLength.get(length) ?? []) {
          const uncovered = UNCOVERED_COST * (1 - key.length / length);
          if (candidate.key.startsWith(key)) consider(candidate.card, PREFIX_COST + uncovered, length - key.length);
          else if (key.length >= MIN_CONTAINS_LENGTH && candidate.key.includes(key)) {
            consider(candidate.card, CONTAINS_COST + uncovered, length - key.length);
          }
        }
      }
    }
    const ranked = [...costs]
      .map(([card, { cost, extra }]) => ({ name: this.cards[card].name, cost, extra }))
      .sort((a, b) => a.cost - b.cost || a.extra - b.extra || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return [...new Set(ranked.map((suggestion) => suggestion.name))].slice(0, Math.max(0, limit));
  }
}

/** The keys a typed name is looked up by, most literal first, without repeats or empty keys. */
function typedKeys(typed: string): string[] {
  const printingless = stripPrintingDetails(typed);
  // Set code and collector number without the brackets the parser looks for: "Lightning Bolt 2XM 141".
  // (The lookahead keeps this linear: "[...]*\d[...]*" would try every split of a long run of digits.)
  const bareSuffixless = printingless.replace(/\s+[A-Z0-9]{2,6}\s+(?=[A-Za-z0-9-]*\d)[A-Za-z0-9-]+$/, '');
  const names = [typed, printingless, bareSuffixless];
  if (printingless.includes('/')) names.push(frontFace(printingless));
  return [...new Set(names.map(matchKey))].filter((key) => key !== '');
}

/** "Fire // Ice", "Fire/Ice" and "Fire / Ice" -> "Fire". */
function frontFace(name: string): string {
  return name.split('/')[0].trim();
}
