/** Kingdom choice: the rulebooks' preset kingdoms, the card pool of each edition, and random picks. */
import { cardId, cardIdLoose, cardSet, CARD_NAMES, BASIC_CARDS, COST, type CardName, type Edition } from './cards.js';

export const DEFAULT_PRESET = 'First Game';

/** Preset kingdoms from the 2E and 1E rulebooks (1E ones carry a "(1E)" suffix where names collide). */
export const KINGDOM_PRESETS: Readonly<Record<string, { edition: Edition; cards: readonly CardName[] }>> = {
  'First Game': { edition: '2e', cards: ['Cellar', 'Market', 'Merchant', 'Militia', 'Mine', 'Moat', 'Remodel', 'Smithy', 'Village', 'Workshop'] },
  'Size Distortion': { edition: '2e', cards: ['Artisan', 'Bandit', 'Bureaucrat', 'Chapel', 'Festival', 'Gardens', 'Sentry', 'Throne Room', 'Witch', 'Workshop'] },
  'Deck Top': { edition: '2e', cards: ['Artisan', 'Bureaucrat', 'Council Room', 'Festival', 'Harbinger', 'Laboratory', 'Moneylender', 'Sentry', 'Vassal', 'Village'] },
  'Sleight of Hand': { edition: '2e', cards: ['Cellar', 'Council Room', 'Festival', 'Gardens', 'Library', 'Harbinger', 'Militia', 'Poacher', 'Smithy', 'Throne Room'] },
  Improvements: { edition: '2e', cards: ['Artisan', 'Cellar', 'Market', 'Merchant', 'Mine', 'Moat', 'Moneylender', 'Poacher', 'Remodel', 'Witch'] },
  'Silver & Gold': { edition: '2e', cards: ['Bandit', 'Bureaucrat', 'Chapel', 'Harbinger', 'Laboratory', 'Merchant', 'Mine', 'Moneylender', 'Throne Room', 'Vassal'] },
  'First Game (1E)': { edition: '1e', cards: ['Cellar', 'Market', 'Militia', 'Mine', 'Moat', 'Remodel', 'Smithy', 'Village', 'Woodcutter', 'Workshop'] },
  'Big Money (1E)': { edition: '1e', cards: ['Adventurer', 'Bureaucrat', 'Chancellor', 'Chapel', 'Feast', 'Laboratory', 'Market', 'Mine', 'Moneylender', 'Throne Room'] },
  'Interaction (1E)': { edition: '1e', cards: ['Bureaucrat', 'Chancellor', 'Council Room', 'Festival', 'Library', 'Militia', 'Moat', 'Spy', 'Thief', 'Village'] },
  'Size Distortion (1E)': { edition: '1e', cards: ['Cellar', 'Chapel', 'Feast', 'Gardens', 'Laboratory', 'Thief', 'Village', 'Witch', 'Woodcutter', 'Workshop'] },
  'Village Square (1E)': { edition: '1e', cards: ['Bureaucrat', 'Cellar', 'Festival', 'Library', 'Market', 'Remodel', 'Smithy', 'Throne Room', 'Village', 'Woodcutter'] },
};
export const PRESET_NAMES: readonly string[] = Object.keys(KINGDOM_PRESETS);

/** Case-insensitive preset lookup; returns the canonical name or null. */
export function presetName(text: string): string | null {
  const key = text.trim().toLowerCase();
  return PRESET_NAMES.find((n) => n.toLowerCase() === key) ?? null;
}

/** Kingdom cards an edition may use: 2E's 26, 1E's 25, or all 32 for "mixed". */
export function editionPool(edition: Edition): number[] {
  const pool: number[] = [];
  for (let c = BASIC_CARDS.length; c < CARD_NAMES.length; c++) {
    const set = cardSet(c);
    if (edition === 'mixed' || set === 'both' || set === edition) pool.push(c);
  }
  return pool;
}

export const EDITION_CARD_NAMES: Readonly<Record<Edition, readonly CardName[]>> = {
  '2e': editionPool('2e').map((c) => CARD_NAMES[c]),
  '1e': editionPool('1e').map((c) => CARD_NAMES[c]),
  mixed: editionPool('mixed').map((c) => CARD_NAMES[c]),
};

/** Supply display order for kingdom piles: by cost, then name. */
export function sortKingdom(cards: number[]): number[] {
  return cards.sort((a, b) => COST[a] - COST[b] || (CARD_NAMES[a] < CARD_NAMES[b] ? -1 : 1));
}

export type KingdomChoice =
  | { ok: true; cards: number[]; edition: Edition; preset: string | null }
  | { ok: false; code: 'unknown_preset' | 'unknown_card' | 'bad_kingdom'; message: string };

/** Validates an explicit list of 10 distinct kingdom cards against an edition ("mixed" when none is given). */
export function kingdomFromList(names: readonly string[], edition: Edition | undefined): KingdomChoice {
  const allowed = new Set(editionPool(edition ?? 'mixed'));
  const cards: number[] = [];
  for (const name of names) {
    const id = cardId(name) >= 0 ? cardId(name) : cardIdLoose(name);
    if (id < 0) return { ok: false, code: 'unknown_card', message: `Unknown card: ${name}` };
    if (id < BASIC_CARDS.length) return { ok: false, code: 'bad_kingdom', message: `${CARD_NAMES[id]} is a basic card, not a kingdom card` };
    if (!allowed.has(id)) return { ok: false, code: 'bad_kingdom', message: `${CARD_NAMES[id]} is not in the ${edition} card pool` };
    if (cards.includes(id)) return { ok: false, code: 'bad_kingdom', message: `${CARD_NAMES[id]} is listed twice` };
    cards.push(id);
  }
  if (cards.length !== 10) return { ok: false, code: 'bad_kingdom', message: `A kingdom has exactly 10 cards, got ${cards.length}` };
  return { ok: true, cards: sortKingdom(cards), edition: edition ?? 'mixed', preset: null };
}

export function kingdomFromPreset(name: string): KingdomChoice {
  const canonical = presetName(name);
  if (canonical === null) return { ok: false, code: 'unknown_preset', message: `Unknown kingdom preset: ${name}. Known presets: ${PRESET_NAMES.join(', ')}` };
  const preset = KINGDOM_PRESETS[canonical];
  return { ok: true, cards: sortKingdom(preset.cards.map(cardId)), edition: preset.edition, preset: canonical };
}

/** 10 distinct cards drawn from the edition's pool with `randomIndex` (the game's own PRNG). */
export function randomKingdom(edition: Edition, randomIndex: (n: number) => number): number[] {
  const pool = editionPool(edition);
  for (let i = 0; i < 10; i++) {
    const j = i + randomIndex(pool.length - i);
    const t = pool[i];
    pool[i] = pool[j];
    pool[j] = t;
  }
  return sortKingdom(pool.slice(0, 10));
}
