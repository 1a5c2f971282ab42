/**
 * Deck-text parsing and card matching, timed in this process on the shipped card catalogue: what
 * get_enriched_deck spends before any database work. Moved here from the unit tests, which check the
 * answers but assert no times (the machine is shared); the bounds are reported, not asserted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CardMatcher } from '../../actors/meta/card-matcher.js';
import { DECK_TEXT_LIMITS, parseDeckText } from '../../actors/meta/deck-text.js';
import { cardLookupKeys } from '../../models/mtg/card-lookup-key.js';
import { MTG_DATA_DIR } from '../../models/mtg/dataset-files.js';

const SUGGEST_BOUND_MS = 5;
const HOSTILE_BOUND_MS = 1_000;
const round = (n: number) => Math.round(n * 100) / 100;

function timed(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

/** Typed card names built to make a matcher backtrack or allocate (the unit tests check their answers). */
export const HOSTILE_NAMES = [`a 2XM ${'1'.repeat(50_000)}!`, '['.repeat(100_000), ' 2XM 1'.repeat(15_000), `${'a / '.repeat(20_000)}`, ' *F*'.repeat(20_000)];

/** Deck texts at the size limits, built the same way. */
export const HOSTILE_DECK_TEXTS = [
  '['.repeat(DECK_TEXT_LIMITS.maxChars - 10),
  Array.from({ length: 199 }, () => `1 ${'['.repeat(490)}`).join('\n'),
  Array.from({ length: 199 }, () => `1 Bolt${' *F*'.repeat(120)}`).join('\n'),
  Array.from({ length: 199 }, () => `${'a '.repeat(245)}!`).join('\n'),
  Array.from({ length: 199 }, () => `${'x1 '.repeat(160)}x`).join('\n'),
  Array.from({ length: 199 }, () => `1 Bolt ${'^a'.repeat(240)}`).join('\n'),
];

export function measureDeckParsing() {
  const raw = JSON.parse(gunzipSync(readFileSync(join(MTG_DATA_DIR, 'cards.json.gz'))).toString('utf8')) as Array<{ name: string; full_name?: string | null }>;
  const catalogue = raw.map((each) => ({ name: each.name, full_name: each.full_name ?? null, lookup_keys: cardLookupKeys(each.name, each.full_name) }));
  const matcher = new CardMatcher(catalogue);
  const typos = Array.from({ length: 100 }, (_, index) => `${catalogue[(index * 61) % catalogue.length]!.name.slice(0, -2)}qz`);
  for (const typo of typos.slice(0, 10)) matcher.suggest(typo);
  const suggestMs = timed(() => typos.forEach((typo) => matcher.suggest(typo))) / typos.length;

  const hostileNamesMs = timed(() => HOSTILE_NAMES.forEach((typed) => (matcher.find(typed), matcher.suggest(typed))));
  const hostileTextsMs = timed(() => HOSTILE_DECK_TEXTS.forEach((text) => parseDeckText(text)));
  return {
    catalogue_cards: catalogue.length,
    suggest_ms_per_unmatched_name: round(suggestMs),
    hostile_names_ms: round(hostileNamesMs),
    hostile_deck_texts_ms: round(hostileTextsMs),
    bounds: {
      suggest_under_5ms: suggestMs < SUGGEST_BOUND_MS,
      hostile_names_under_1s: hostileNamesMs < HOSTILE_BOUND_MS,
      hostile_deck_texts_under_1s: hostileTextsMs < HOSTILE_BOUND_MS,
    },
  };
}
