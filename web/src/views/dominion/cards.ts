/**
 * What the board prints on a card: its cost and types, from the rules' card table the API serves
 * (GET /dominion/cards), loaded once per page and handed down through a context.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { api } from '../../api.js';

export type CardKind = 'treasure' | 'victory' | 'curse' | 'action' | 'attack' | 'reaction';

/** A line of GET /dominion/cards. */
interface CardInfo {
  name: string;
  cost: number;
  types: Array<'Action' | 'Treasure' | 'Victory' | 'Curse' | 'Attack' | 'Reaction'>;
  text: string;
}

export interface CardFacts {
  cost: number;
  /** The colour the board gives it: its most telling type. */
  kind: CardKind;
  /** As printed: "Action – Attack". */
  types: string;
  text: string;
}

export type CardTable = ReadonlyMap<string, CardFacts>;

function kindOf(types: CardInfo['types']): CardKind {
  if (types.includes('Attack')) return 'attack';
  if (types.includes('Reaction')) return 'reaction';
  if (types.includes('Treasure')) return 'treasure';
  if (types.includes('Victory')) return 'victory';
  if (types.includes('Curse')) return 'curse';
  return 'action';
}

let table: Promise<CardTable> | undefined;

/** The card table, fetched on first use; a failed fetch is retried on the next call. */
export function loadCardTable(): Promise<CardTable> {
  table ??= api<{ cards: CardInfo[] }>('/dominion/cards').then(
    ({ cards }) => new Map(cards.map((c) => [c.name, { cost: c.cost, kind: kindOf(c.types), types: c.types.join(' – '), text: c.text }])),
    (error: unknown) => {
      table = undefined;
      throw error;
    },
  );
  return table;
}

export const CardTableContext = createContext<CardTable>(new Map());

const UNKNOWN: CardFacts = { cost: 0, kind: 'action', types: 'Card', text: '' };

export function useCardFacts(): (name: string) => CardFacts {
  const cards = useContext(CardTableContext);
  return (name) => cards.get(name) ?? UNKNOWN;
}

/** The basic piles, in the order the board shows them before the kingdom. */
export const BASIC_PILES = ['Copper', 'Silver', 'Gold', 'Estate', 'Duchy', 'Province', 'Curse'];
