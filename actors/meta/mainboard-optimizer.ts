/**
 * optimize_mainboard. Flex spots are the user's non-land cards that few recent lists of their archetype
 * play; replacements are non-land cards in the deck's colours that the archetype's lists and the top
 * archetypes' lists do play, ranked by adoption. The narrator then explains the swaps.
 */
import { RequestError } from '../runtime/contract.js';
import type { CatalogueEntry } from './card-catalogue.js';
import { BASIC_LANDS, adoptionOf, fitsColors, type CardUse, type ListsAdoption } from './coaching-context.js';
import type { MetaMessages } from './contract.js';
import type { CoachingDeps } from './matchup-strategy.js';
import { listing, narrate, percent } from './narrated.js';
import { optimizerInputs } from './optimizer-inputs.js';

/** Below this share of the archetype's lists a card is not core to the archetype. */
export const FLEX_BELOW_PCT = 50;
const MAX_FLEX_SPOTS = 8;

export interface TopArchetype {
  archetype: string;
  meta_share: number;
  /** Over its recent lists. */
  adoption: ListsAdoption;
}

export interface MainboardPlanInput {
  mainboard: Map<string, number>;
  colors: string;
  /** Over the archetype's recent lists. */
  archetypeAdoption: ListsAdoption;
  top: TopArchetype[];
  card: (name: string) => Pick<CatalogueEntry, 'color_identity' | 'is_land' | 'mana_cost' | 'type_line'> | undefined;
}

/** Share-weighted percent of the top archetypes' lists that play each card in `board`. */
export function topArchetypeAdoption(top: TopArchetype[], board: 'mainboard' | 'sideboard'): Map<string, number> {
  const weights = top.reduce((sum, t) => sum + (t.adoption.lists ? t.meta_share : 0), 0);
  const adoption = new Map<string, number>();
  if (weights === 0) return adoption;
  for (const { meta_share, adoption: theirs } of top) {
    if (theirs.lists === 0) continue;
    for (const [name, use] of theirs[board]) adoption.set(name, (adoption.get(name) ?? 0) + (meta_share / weights) * ((100 * use.decks) / theirs.lists));
  }
  for (const [name, value] of adoption) adoption.set(name, Math.round(value * 10) / 10);
  return adoption;
}

export function mainboardPlan(input: MainboardPlanInput) {
  const { mainboard, colors, archetypeAdoption, top, card } = input;
  const lists = archetypeAdoption.lists;
  const ours = archetypeAdoption.mainboard;
  const theirs = topArchetypeAdoption(top, 'mainboard');
  const isSpell = (name: string) => !BASIC_LANDS.has(name) && card(name)?.is_land !== true;

  const flex_spots = [...mainboard]
    .filter(([name]) => isSpell(name))
    .map(([name, quantity]) => ({ name, quantity, decks_pct: adoptionOf(name, ours.get(name), lists).decks_pct }))
    .filter((spot) => spot.decks_pct < FLEX_BELOW_PCT)
    .sort((a, b) => a.decks_pct - b.decks_pct || a.name.localeCompare(b.name))
    .slice(0, MAX_FLEX_SPOTS)
    .map((spot) => ({ ...spot, reason: `played in ${spot.decks_pct}% of ${lists} recent lists of the archetype` }));

  const candidates = new Map<string, { archetype: number; copies: number; top: number }>();
  const consider = (name: string, use: CardUse | undefined) => {
    const facts = card(name);
    if (!facts || mainboard.has(name) || !isSpell(name) || !fitsColors(facts.color_identity, colors)) return;
    const adoption = adoptionOf(name, use, lists);
    candidates.set(name, { archetype: adoption.decks_pct, copies: adoption.average_copies, top: theirs.get(name) ?? 0 });
  };
  for (const [name, use] of ours) consider(name, use);
  for (const name of theirs.keys()) if (!candidates.has(name)) consider(name, ours.get(name));
  // The archetype's own choices weigh most; what the top decks play breaks ties and fills in.
  const ranked = [...candidates].sort((a, b) => b[1].archetype + b[1].top / 2 - (a[1].archetype + a[1].top / 2) || a[0].localeCompare(b[0]));

  // Each flex spot's copies are refilled with the best remaining candidates at their usual copy counts,
  // so the main deck keeps its size as long as candidates last (a thin archetype may run out).
  const recommendations = [];
  let next = 0;
  for (const spot of flex_spots) {
    let open = spot.quantity;
    while (open > 0 && next < ranked.length) {
      const [name, score] = ranked[next++];
      const facts = card(name)!;
      const quantity = Math.min(open, Math.max(1, Math.round(score.copies)));
      open -= quantity;
      recommendations.push({
        add: name,
        quantity,
        replaces: spot.name,
        mana_cost: facts.mana_cost,
        type_line: facts.type_line,
        color_identity: facts.color_identity,
        archetype_decks_pct: score.archetype,
        top_archetypes_decks_pct: score.top,
        reason: `in ${score.archetype}% of the archetype's lists${score.copies ? ` (${score.copies} copies on average)` : ''} and ${score.top}% of the top archetypes' lists, against ${spot.decks_pct}% for ${spot.name}`,
      });
    }
  }
  return { flex_spots, recommendations };
}

export async function optimizeMainboard(deps: CoachingDeps, args: MetaMessages['optimize_mainboard']) {
  const { format, archetype, newest, deck, sample, top, matcher } = await optimizerInputs(deps, args);
  if (deck.mainboard.size === 0) throw new RequestError('bad_request', 'card_details has no mainboard cards that match the card data; call get_enriched_deck first');
  const plan = mainboardPlan({ mainboard: deck.mainboard, colors: deck.colors, archetypeAdoption: sample.adoption, top, card: (name) => matcher.find(name) });
  const top_archetypes = top.map(({ archetype: a, meta_share, matchup }) => ({ archetype: a, meta_share, matchup }));

  const facts = { format, archetype, deck_colors: deck.colors, window: sample.window, archetype_lists: sample.adoption.lists, top_archetypes, flex_spots: plan.flex_spots, recommendations: plan.recommendations };
  const fallback = [
    `**${archetype} main deck** against the top ${top.length} ${format} archetypes (${listing(top_archetypes.map((t) => `${t.archetype} ${t.meta_share}%`))}), from ${sample.adoption.lists} recent ${archetype} lists.`,
    plan.flex_spots.length
      ? `Flex spots (cards under ${FLEX_BELOW_PCT}% of those lists play): ${listing(plan.flex_spots.map((f) => `${f.quantity} ${f.name} (${f.decks_pct}%)`))}.`
      : `Every non-land card of your main deck is played by at least ${FLEX_BELOW_PCT}% of recent ${archetype} lists: there is no flex spot to change.`,
    ...plan.recommendations.map((r) => `- Swap ${r.replaces} for ${r.quantity} ${r.add}: ${r.reason}.`),
    top_archetypes.length ? `Your record against them: ${listing(top_archetypes.map((t) => `${t.archetype} ${percent(t.matchup.win_rate)} (${t.matchup.match_count} matches)`))}.` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  const explanation = await narrate(
    deps.narrator,
    {
      task: 'optimize_mainboard',
      instructions: `Explain these main-deck changes to a ${archetype} player in ${format}: why each flex spot is flexible, why each recommended card helps against the top archetypes, and what the matchup records suggest. Recommend only the cards in the facts.`,
      facts,
      fallback,
    },
    deps,
  );
  return {
    archetype,
    format,
    deck_colors: deck.colors,
    top_archetypes,
    flex_spots: plan.flex_spots,
    recommendations: plan.recommendations,
    explanation: explanation.text,
    narrator: explanation.narrator,
    metadata: { period: sample.window, archetype_lists: sample.adoption.lists, newest_tournament: newest },
  };
}
