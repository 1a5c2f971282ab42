/**
 * The card table. Cards are small integers inside the engine (array indexes, so lookups in the hot loop
 * are plain array reads); names appear only at the API boundary. The ids are stored in saved games:
 * never reorder or renumber this table, only append.
 */

export type Edition = '1e' | '2e' | 'mixed';
export const EDITIONS: readonly Edition[] = ['2e', '1e', 'mixed'];

/** Which printed edition a kingdom card belongs to; basic cards are in every game. */
export type CardSet = 'basic' | 'both' | '1e' | '2e';

export const ACTION = 1;
export const TREASURE = 2;
export const VICTORY = 4;
export const CURSE_TYPE = 8;
export const ATTACK = 16;
export const REACTION = 32;

export const CARD_NAMES = [
  'Copper', 'Silver', 'Gold', 'Estate', 'Duchy', 'Province', 'Curse',
  'Adventurer', 'Artisan', 'Bandit', 'Bureaucrat', 'Cellar', 'Chancellor', 'Chapel', 'Council Room',
  'Feast', 'Festival', 'Gardens', 'Harbinger', 'Laboratory', 'Library', 'Market', 'Merchant', 'Militia',
  'Mine', 'Moat', 'Moneylender', 'Poacher', 'Remodel', 'Sentry', 'Smithy', 'Spy', 'Thief', 'Throne Room',
  'Vassal', 'Village', 'Witch', 'Woodcutter', 'Workshop',
] as const;
export type CardName = (typeof CARD_NAMES)[number];

export const COPPER = 0, SILVER = 1, GOLD = 2, ESTATE = 3, DUCHY = 4, PROVINCE = 5, CURSE = 6;
export const ADVENTURER = 7, ARTISAN = 8, BANDIT = 9, BUREAUCRAT = 10, CELLAR = 11, CHANCELLOR = 12;
export const CHAPEL = 13, COUNCIL_ROOM = 14, FEAST = 15, FESTIVAL = 16, GARDENS = 17, HARBINGER = 18;
export const LABORATORY = 19, LIBRARY = 20, MARKET = 21, MERCHANT = 22, MILITIA = 23, MINE = 24, MOAT = 25;
export const MONEYLENDER = 26, POACHER = 27, REMODEL = 28, SENTRY = 29, SMITHY = 30, SPY = 31, THIEF = 32;
export const THRONE_ROOM = 33, VASSAL = 34, VILLAGE = 35, WITCH = 36, WOODCUTTER = 37, WORKSHOP = 38;

export const CARD_COUNT = CARD_NAMES.length;
export const BASIC_CARDS: readonly number[] = [COPPER, SILVER, GOLD, ESTATE, DUCHY, PROVINCE, CURSE];

interface CardRow {
  cost: number;
  types: number;
  /** $ a Treasure produces when played. */
  coins: number;
  /** Fixed victory points (Gardens is computed at scoring). */
  vp: number;
  set: CardSet;
  text: string;
}

const A = ACTION;
const ROWS: readonly CardRow[] = [
  { cost: 0, types: TREASURE, coins: 1, vp: 0, set: 'basic', text: '$1' },
  { cost: 3, types: TREASURE, coins: 2, vp: 0, set: 'basic', text: '$2' },
  { cost: 6, types: TREASURE, coins: 3, vp: 0, set: 'basic', text: '$3' },
  { cost: 2, types: VICTORY, coins: 0, vp: 1, set: 'basic', text: '1 VP' },
  { cost: 5, types: VICTORY, coins: 0, vp: 3, set: 'basic', text: '3 VP' },
  { cost: 8, types: VICTORY, coins: 0, vp: 6, set: 'basic', text: '6 VP' },
  { cost: 0, types: CURSE_TYPE, coins: 0, vp: -1, set: 'basic', text: '-1 VP' },
  { cost: 6, types: A, coins: 0, vp: 0, set: '1e', text: 'Reveal cards from your deck until you reveal 2 Treasures. Put them into your hand and discard the other revealed cards.' },
  { cost: 6, types: A, coins: 0, vp: 0, set: '2e', text: 'Gain a card to your hand costing up to $5. Put a card from your hand onto your deck.' },
  { cost: 5, types: A | ATTACK, coins: 0, vp: 0, set: '2e', text: 'Gain a Gold. Each other player reveals the top 2 cards of their deck, trashes a revealed Treasure other than Copper, and discards the rest.' },
  { cost: 4, types: A | ATTACK, coins: 0, vp: 0, set: 'both', text: 'Gain a Silver onto your deck. Each other player reveals a Victory card from their hand and puts it onto their deck (or reveals a hand with no Victory cards).' },
  { cost: 2, types: A, coins: 0, vp: 0, set: 'both', text: '+1 Action. Discard any number of cards, then draw that many.' },
  { cost: 3, types: A, coins: 0, vp: 0, set: '1e', text: '+$2. You may immediately put your deck into your discard pile.' },
  { cost: 2, types: A, coins: 0, vp: 0, set: 'both', text: 'Trash up to 4 cards from your hand.' },
  { cost: 5, types: A, coins: 0, vp: 0, set: 'both', text: '+4 Cards, +1 Buy. Each other player draws a card.' },
  { cost: 4, types: A, coins: 0, vp: 0, set: '1e', text: 'Trash this card. Gain a card costing up to $5.' },
  { cost: 5, types: A, coins: 0, vp: 0, set: 'both', text: '+2 Actions, +1 Buy, +$2.' },
  { cost: 4, types: VICTORY, coins: 0, vp: 0, set: 'both', text: 'Worth 1 VP per 10 cards you have (round down).' },
  { cost: 3, types: A, coins: 0, vp: 0, set: '2e', text: '+1 Card, +1 Action. Look through your discard pile. You may put a card from it onto your deck.' },
  { cost: 5, types: A, coins: 0, vp: 0, set: 'both', text: '+2 Cards, +1 Action.' },
  { cost: 5, types: A, coins: 0, vp: 0, set: 'both', text: 'Draw until you have 7 cards in hand, skipping any Action cards you choose to; set those aside, discarding them afterwards.' },
  { cost: 5, types: A, coins: 0, vp: 0, set: 'both', text: '+1 Card, +1 Action, +1 Buy, +$1.' },
  { cost: 3, types: A, coins: 0, vp: 0, set: '2e', text: '+1 Card, +1 Action. The first time you play a Silver this turn, +$1.' },
  { cost: 4, types: A | ATTACK, coins: 0, vp: 0, set: 'both', text: '+$2. Each other player discards down to 3 cards in hand.' },
  { cost: 5, types: A, coins: 0, vp: 0, set: 'both', text: 'You may trash a Treasure from your hand. Gain a Treasure to your hand costing up to $3 more than it.' },
  { cost: 2, types: A | REACTION, coins: 0, vp: 0, set: 'both', text: '+2 Cards. When another player plays an Attack card, you may first reveal this from your hand, to be unaffected by it.' },
  { cost: 4, types: A, coins: 0, vp: 0, set: 'both', text: 'You may trash a Copper from your hand for +$3.' },
  { cost: 4, types: A, coins: 0, vp: 0, set: '2e', text: '+1 Card, +1 Action, +$1. Discard a card per empty Supply pile.' },
  { cost: 4, types: A, coins: 0, vp: 0, set: 'both', text: 'Trash a card from your hand. Gain a card costing up to $2 more than it.' },
  { cost: 5, types: A, coins: 0, vp: 0, set: '2e', text: '+1 Card, +1 Action. Look at the top 2 cards of your deck. Trash and/or discard any number of them. Put the rest back on top in any order.' },
  { cost: 4, types: A, coins: 0, vp: 0, set: 'both', text: '+3 Cards.' },
  { cost: 4, types: A | ATTACK, coins: 0, vp: 0, set: '1e', text: '+1 Card, +1 Action. Each player (including you) reveals the top card of their deck and either discards it or puts it back, your choice.' },
  { cost: 4, types: A | ATTACK, coins: 0, vp: 0, set: '1e', text: 'Each other player reveals the top 2 cards of their deck. If they revealed any Treasure cards, they trash one of them that you choose. You may gain any or all of these trashed cards. They discard the other revealed cards.' },
  { cost: 4, types: A, coins: 0, vp: 0, set: 'both', text: 'You may play an Action card from your hand twice.' },
  { cost: 3, types: A, coins: 0, vp: 0, set: '2e', text: '+$2. Discard the top card of your deck. If it is an Action card, you may play it.' },
  { cost: 3, types: A, coins: 0, vp: 0, set: 'both', text: '+1 Card, +2 Actions.' },
  { cost: 5, types: A | ATTACK, coins: 0, vp: 0, set: 'both', text: '+2 Cards. Each other player gains a Curse.' },
  { cost: 3, types: A, coins: 0, vp: 0, set: '1e', text: '+1 Buy, +$2.' },
  { cost: 3, types: A, coins: 0, vp: 0, set: 'both', text: 'Gain a card costing up to $4.' },
];

// Flat typed arrays: the hot loop reads these instead of objects.
export const COST = Int8Array.from(ROWS, (r) => r.cost);
export const TYPES = Int8Array.from(ROWS, (r) => r.types);
export const COINS = Int8Array.from(ROWS, (r) => r.coins);
export const VP = Int8Array.from(ROWS, (r) => r.vp);

export const isAction = (c: number): boolean => (TYPES[c] & ACTION) !== 0;
export const isTreasure = (c: number): boolean => (TYPES[c] & TREASURE) !== 0;
export const isVictory = (c: number): boolean => (TYPES[c] & VICTORY) !== 0;
export const isAttack = (c: number): boolean => (TYPES[c] & ATTACK) !== 0;

const ID_BY_NAME = new Map<string, number>(CARD_NAMES.map((n, i) => [n, i]));
const ID_BY_LOWER_NAME = new Map<string, number>(CARD_NAMES.map((n, i) => [n.toLowerCase(), i]));

/** The id of a card name (exact spelling), or -1. */
export function cardId(name: string): number {
  const id = ID_BY_NAME.get(name);
  return id === undefined ? -1 : id;
}

/** Case- and space-insensitive lookup for typed input ("throne room", "ThroneRoom", "council_room"). */
export function cardIdLoose(text: string): number {
  const key = text.trim().toLowerCase().replace(/[_\s]+/g, ' ');
  const exact = ID_BY_LOWER_NAME.get(key);
  if (exact !== undefined) return exact;
  const squashed = key.replace(/ /g, '');
  for (let i = 0; i < CARD_COUNT; i++) if (CARD_NAMES[i].toLowerCase().replace(/ /g, '') === squashed) return i;
  return -1;
}

export const cardName = (c: number): CardName => CARD_NAMES[c];

export type CardType = 'Action' | 'Treasure' | 'Victory' | 'Curse' | 'Attack' | 'Reaction';

export interface CardInfo {
  name: CardName;
  cost: number;
  types: CardType[];
  set: CardSet;
  text: string;
}

export function cardInfo(name: CardName): CardInfo {
  const id = cardId(name);
  const row = ROWS[id];
  const types: CardType[] = [];
  if (row.types & ACTION) types.push('Action');
  if (row.types & TREASURE) types.push('Treasure');
  if (row.types & VICTORY) types.push('Victory');
  if (row.types & CURSE_TYPE) types.push('Curse');
  if (row.types & ATTACK) types.push('Attack');
  if (row.types & REACTION) types.push('Reaction');
  return { name, cost: row.cost, types, set: row.set, text: row.text };
}

export const cardSet = (c: number): CardSet => ROWS[c].set;

/** Kingdom cards (everything but the 7 basic cards), by name. */
export const KINGDOM_CARD_NAMES: readonly CardName[] = CARD_NAMES.slice(BASIC_CARDS.length);
