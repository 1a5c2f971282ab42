/**
 * get_enriched_deck: deck text as pasted -> every card with its facts, merged by card and section, the
 * counts, and the names that match no card with close suggestions.
 */
import { RequestError } from '../runtime/contract.js';
import type { CardDetail } from './contract.js';
import type { CardCatalogue, CatalogueEntry } from './card-catalogue.js';
import { DeckTextError, mergeEntries, parseDeckText, type DeckEntry } from './deck-text.js';

export interface EnrichedDeck {
  card_details: Required<CardDetail>[];
  mainboard_count: number;
  sideboard_count: number;
  unmatched: Array<{ name: string; quantity: number; section: DeckEntry['section']; line: number; suggestions: string[] }>;
  errors: string[];
}

/**
 * The dataset's card list holds a few names its sources mis-parsed from deck lines ("4 Lightning Bolt",
 * "[EMN] Emrakul, the Promised End"); decks that used them still resolve, but they are never suggested.
 */
const isCardName = (name: string) => !/^(\d+x?\s|\[)/i.test(name);

export async function enrichedDeck(catalogue: CardCatalogue, deck: string): Promise<EnrichedDeck> {
  let parsed;
  try {
    parsed = parseDeckText(deck);
  } catch (e) {
    if (e instanceof DeckTextError) throw new RequestError('bad_request', e.message);
    throw e;
  }
  if (parsed.entries.length === 0) {
    const why = parsed.problems.length ? ` (${parsed.problems.length} line(s) could not be read, e.g. line ${parsed.problems[0].line}: ${parsed.problems[0].reason})` : '';
    throw new RequestError('bad_request', `the deck is empty: no card lines found${why}; paste lines like "4 Lightning Bolt"`);
  }
  const matcher = await catalogue.matcher();
  const found = parsed.entries.map((entry) => ({ ...entry, card: matcher.find(entry.name) }));

  const matched = mergeEntries(
    found.filter((e): e is typeof e & { card: CatalogueEntry } => e.card !== undefined),
    (e) => e.card.name,
  );
  const unmatched = mergeEntries(
    found.filter((e) => e.card === undefined),
    (e) => e.name.toLowerCase(),
  );

  const card_details = matched.map(({ card, quantity, section }) => ({
    name: card.name,
    quantity,
    section,
    mana_cost: card.mana_cost,
    mana_value: card.mana_value,
    type_line: card.type_line,
    colors: card.colors,
    color_identity: card.color_identity,
    oracle_text: card.oracle_text,
  }));
  const count = (section: DeckEntry['section']) => card_details.filter((c) => c.section === section).reduce((n, c) => n + c.quantity, 0);
  const errors = [
    ...parsed.problems.map((p) => `line ${p.line}: ${p.reason}: "${p.text}"`),
    ...unmatched.map((u) => `line ${u.line}: no card named "${u.name}"`),
  ];
  return {
    card_details,
    mainboard_count: count('mainboard'),
    sideboard_count: count('sideboard'),
    unmatched: unmatched.map(({ name, quantity, section, line }) => ({ name, quantity, section, line, suggestions: matcher.suggest(name, 6).filter(isCardName).slice(0, 3) })),
    errors,
  };
}
