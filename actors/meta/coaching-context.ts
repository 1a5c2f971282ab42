/**
 * What every coaching tool starts from: the user's deck resolved against the card data (quantities per
 * section, colours), and card adoption over a sample of deck lists, added up from the daily adoption
 * counts and, for one day, from lists. Pure apart from the catalogue lookup.
 */
import type { CardDetail } from './contract.js';
import type { CardCatalogue, CatalogueEntry } from './card-catalogue.js';
import type { ListSample } from './meta-queries.js';

const WUBRG = 'WUBRG';
const round1 = (value: number) => Math.round(value * 10) / 10;

export interface UserDeck {
  mainboard: Map<string, number>;
  sideboard: Map<string, number>;
  /** The main deck's colour identity (the whole deck's without a main deck), WUBRG order, "C" when colourless. Sideboard splashes such as a Phyrexian-mana card do not widen it. */
  colors: string;
  facts: Map<string, CatalogueEntry>;
  /** Names in card_details that match no card (left out of everything else). */
  unknown: string[];
}

export async function userDeck(catalogue: CardCatalogue, cards: CardDetail[]): Promise<UserDeck> {
  const matcher = await catalogue.matcher();
  const deck: UserDeck = { mainboard: new Map(), sideboard: new Map(), colors: 'C', facts: new Map(), unknown: [] };
  for (const detail of cards) {
    const card = matcher.find(detail.name);
    if (!card) {
      deck.unknown.push(detail.name);
      continue;
    }
    deck.facts.set(card.name, card);
    const section = deck[detail.section];
    section.set(card.name, (section.get(card.name) ?? 0) + detail.quantity);
  }
  const main = [...deck.facts.values()].filter((card) => deck.mainboard.has(card.name));
  deck.colors = colorsOf((main.length ? main : [...deck.facts.values()]).map((card) => card.color_identity));
  return deck;
}

export function colorsOf(identities: Iterable<readonly string[]>): string {
  const present = new Set<string>();
  for (const identity of identities) for (const color of identity) present.add(color);
  const colors = [...WUBRG].filter((c) => present.has(c)).join('');
  return colors === '' ? 'C' : colors;
}

/** A card fits a deck when its colour identity is inside the deck's (colourless cards fit every deck). */
export function fitsColors(identity: readonly string[], colors: string): boolean {
  return identity.every((color) => colors.includes(color));
}

export interface CardUse {
  /** Lists playing the card. */
  decks: number;
  /** Copies over those lists. */
  copies: number;
}

/** Per card: how many of `lists` play it in `board`, and how many copies in all. */
export function cardUse(lists: readonly ListSample[], board: 'mainboard' | 'sideboard'): Map<string, CardUse> {
  const uses = new Map<string, CardUse>();
  for (const list of lists) {
    for (const { card, count } of list[board]) {
      const use = uses.get(card) ?? uses.set(card, { decks: 0, copies: 0 }).get(card)!;
      use.decks += 1;
      use.copies += count;
    }
  }
  return uses;
}

/** Card adoption over a number of deck lists, per board. */
export interface ListsAdoption {
  lists: number;
  mainboard: Map<string, CardUse>;
  sideboard: Map<string, CardUse>;
}

export const emptyAdoption = (): ListsAdoption => ({ lists: 0, mainboard: new Map(), sideboard: new Map() });

export type Board = 'mainboard' | 'sideboard';
export const BOARDS: readonly Board[] = ['mainboard', 'sideboard'];

function addUse(uses: Map<string, CardUse>, card: string, decks: number, copies: number) {
  const use = uses.get(card);
  if (use) {
    use.decks += decks;
    use.copies += copies;
  } else uses.set(card, { decks, copies });
}

/** Adds `lists` lists' worth of per-card counts (a day's adoption document). */
export function addAdoption(adoption: ListsAdoption, lists: number, counts: Record<Board, ReadonlyArray<{ card: string; decks: number; copies: number }>>): void {
  adoption.lists += lists;
  for (const board of BOARDS) for (const { card, decks, copies } of counts[board]) addUse(adoption[board], card, decks, copies);
}

/** Adds deck lists themselves (only these boards of them). */
export function addLists(adoption: ListsAdoption, lists: readonly ListSample[], boards: readonly Board[] = BOARDS): void {
  adoption.lists += lists.length;
  for (const board of boards) for (const [card, use] of cardUse(lists, board)) addUse(adoption[board], card, use.decks, use.copies);
}

export interface Adoption {
  name: string;
  /** Percent of the lists that play the card, 1 decimal. */
  decks_pct: number;
  /** Copies per list that plays it, 1 decimal. */
  average_copies: number;
}

export function adoptionOf(name: string, use: CardUse | undefined, lists: number): Adoption {
  if (!use || lists === 0) return { name, decks_pct: 0, average_copies: 0 };
  return { name, decks_pct: round1((100 * use.decks) / lists), average_copies: round1(use.copies / use.decks) };
}

/** The most adopted cards, best first (ties by name), optionally only those `keep` accepts. */
export function topAdopted(uses: Map<string, CardUse>, lists: number, limit: number, keep: (name: string) => boolean = () => true): Adoption[] {
  return [...uses]
    .filter(([name]) => keep(name))
    .sort((a, b) => b[1].decks - a[1].decks || b[1].copies - a[1].copies || a[0].localeCompare(b[0]))
    .slice(0, limit)
    .map(([name, use]) => adoptionOf(name, use, lists));
}

/** Basic lands are played in any number and are never a recommendation. */
export const BASIC_LANDS = new Set(['Plains', 'Island', 'Swamp', 'Mountain', 'Forest', 'Wastes', 'Snow-Covered Plains', 'Snow-Covered Island', 'Snow-Covered Swamp', 'Snow-Covered Mountain', 'Snow-Covered Forest']);
