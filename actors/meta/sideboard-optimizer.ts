/**
 * optimize_sideboard. Candidates are sideboard cards in the deck's colours from the archetype's recent
 * lists (what its players bring) and from same-coloured lists of the format; the user's cards that few
 * of the archetype's players use make room for the most adopted ones, to exactly 15 cards. Per top
 * archetype, the plan names the sideboard cards that did best against it in the data: among the
 * archetype's decks that met it, the win rate of decks carrying the card against those without (from
 * the daily sideboard results and the matchup totals).
 */
import { RequestError } from '../runtime/contract.js';
import type { CatalogueEntry } from './card-catalogue.js';
import { adoptionOf, fitsColors, topAdopted, BASIC_LANDS, type ListsAdoption } from './coaching-context.js';
import type { MetaMessages } from './contract.js';
import { topArchetypeAdoption } from './mainboard-optimizer.js';
import { optimizerInputs } from './optimizer-inputs.js';
import type { MetaQueries } from './meta-queries.js';
import { matchupMatrix, winRate, type MatchRecord } from './meta-stats.js';
import type { CoachingDeps } from './matchup-strategy.js';
import { listing, narrate, percent } from './narrated.js';
import type { TimeWindow } from './time-window.js';

export const SIDEBOARD_SIZE = 15;
/** A card of the user's sideboard stays when at least this share of the archetype's lists side it. */
export const KEEP_AT_PCT = 10;
const COLOR_SAMPLE = 300;
/** Decided matches needed on each side (with and without the card) before a comparison is shown. */
const MIN_EVIDENCE = 5;

export interface SideboardPlanInput {
  sideboard: Map<string, number>;
  colors: string;
  /** Over the archetype's recent lists, and over recent lists of the format within the deck's colours. */
  archetypeAdoption: ListsAdoption;
  colorAdoption: ListsAdoption;
  topSideAdoption: Map<string, number>;
  card: (name: string) => Pick<CatalogueEntry, 'color_identity'> | undefined;
}

interface Scored {
  name: string;
  score: number;
  pct: number;
  copies: number;
}

/** The final 15 and the changes from the user's sideboard. */
export function sideboardPlan(input: SideboardPlanInput) {
  const { sideboard, colors, archetypeAdoption, colorAdoption, topSideAdoption, card } = input;
  const ours = archetypeAdoption.sideboard;
  const pool = colorAdoption.sideboard;
  const scoreOf = (name: string): Scored => {
    const own = adoptionOf(name, ours.get(name), archetypeAdoption.lists);
    const wide = adoptionOf(name, pool.get(name), colorAdoption.lists);
    // The archetype's own players decide; same-coloured lists and the top decks' sideboards break ties.
    return { name, score: own.decks_pct + wide.decks_pct / 4 + (topSideAdoption.get(name) ?? 0) / 8, pct: own.decks_pct, copies: own.average_copies || wide.average_copies };
  };
  const fits = (name: string) => !BASIC_LANDS.has(name) && card(name) !== undefined && fitsColors(card(name)!.color_identity, colors);
  const byScore = (a: Scored, b: Scored) => b.score - a.score || a.name.localeCompare(b.name);

  const final = new Map<string, number>();
  const total = () => [...final.values()].reduce((n, q) => n + q, 0);
  const current = [...sideboard.keys()].map(scoreOf).sort(byScore);
  for (const c of current) if (c.pct >= KEEP_AT_PCT) final.set(c.name, sideboard.get(c.name)!);
  // More than 15 kept: the least adopted go first.
  for (const c of [...current].reverse()) {
    if (total() <= SIDEBOARD_SIZE) break;
    if (!final.has(c.name)) continue;
    final.set(c.name, final.get(c.name)! - Math.min(final.get(c.name)!, total() - SIDEBOARD_SIZE));
    if (final.get(c.name) === 0) final.delete(c.name);
  }
  const candidates = [...new Set([...ours.keys(), ...pool.keys()])].filter((n) => !sideboard.has(n) && fits(n)).map(scoreOf).sort(byScore);
  const fill = (order: Scored[], copiesOf: (c: Scored) => number) => {
    for (const c of order) {
      if (total() >= SIDEBOARD_SIZE) return;
      const room = SIDEBOARD_SIZE - total();
      const have = final.get(c.name) ?? 0;
      const add = Math.min(room, Math.max(0, copiesOf(c) - have));
      if (add > 0) final.set(c.name, have + add);
    }
  };
  fill(candidates, (c) => Math.max(1, Math.min(4, Math.round(c.copies) || 1)));
  // Not enough cards in the data: the user's own cards come back, then copies go up to four.
  fill(current, (c) => sideboard.get(c.name)!);
  fill([...candidates, ...current], () => 4);
  if (total() !== SIDEBOARD_SIZE) {
    throw new RequestError('unavailable', `the data has too few sideboard cards in colours ${colors} to build a 15-card sideboard`);
  }

  const changes: Array<{ action: 'add' | 'remove' | 'adjust'; card: string; from: number; to: number; reason: string }> = [];
  for (const name of new Set([...sideboard.keys(), ...final.keys()])) {
    const from = sideboard.get(name) ?? 0;
    const to = final.get(name) ?? 0;
    if (from === to) continue;
    const s = scoreOf(name);
    const action = from === 0 ? 'add' : to === 0 ? 'remove' : 'adjust';
    const reason =
      action === 'remove'
        ? s.pct < KEEP_AT_PCT
          ? `sided by ${s.pct}% of recent lists of the archetype (under ${KEEP_AT_PCT}%)`
          : `sided by ${s.pct}% of recent lists of the archetype; cut to bring the sideboard down to ${SIDEBOARD_SIZE}`
        : `sided by ${s.pct}% of recent lists of the archetype${s.copies ? `, ${s.copies} copies on average` : ''}`;
    changes.push({ action, card: name, from, to, reason });
  }
  const order = { remove: 0, adjust: 1, add: 2 };
  changes.sort((a, b) => order[a.action] - order[b.action] || a.card.localeCompare(b.card));
  const final_sideboard = [...final].map(([name, quantity]) => ({ name, quantity })).sort((a, b) => b.quantity - a.quantity || a.name.localeCompare(b.name));
  return { sideboard_changes: changes, final_sideboard };
}

/**
 * Per opponent, each final card's record: among the archetype's decks that met the opponent in the
 * window, matches of decks that had the card in their sideboard, and of decks that did not (every match
 * of the pair less those).
 */
async function sideboardEvidence(queries: MetaQueries, format: string, archetype: string, opponents: string[], window: TimeWindow, cards: string[]) {
  const [results, [tallies]] = await Promise.all([queries.sideboardResults(format, archetype, window), queries.matchTallies(format, [window])]);
  const row = matchupMatrix(tallies).get(archetype);
  const evidence = new Map<string, Map<string, { with: MatchRecord; without: MatchRecord }>>();
  for (const opponent of opponents) {
    const all = row?.get(opponent) ?? empty();
    const byCard = new Map<string, { with: MatchRecord; without: MatchRecord }>();
    for (const card of cards) {
      const sided = results.get(opponent)?.get(card) ?? empty();
      byCard.set(card, {
        with: { ...sided },
        without: { matches: all.matches - sided.matches, wins: all.wins - sided.wins, losses: all.losses - sided.losses, draws: all.draws - sided.draws },
      });
    }
    evidence.set(opponent, byCard);
  }
  return evidence;
}

const empty = (): MatchRecord => ({ matches: 0, wins: 0, losses: 0, draws: 0 });
const decided = (r: MatchRecord) => r.wins + r.losses;

export async function optimizeSideboard(deps: CoachingDeps, args: MetaMessages['optimize_sideboard']) {
  const { queries } = deps;
  const { format, window, archetype, newest, deck, sample, top, matcher } = await optimizerInputs(deps, args);
  if (deck.mainboard.size + deck.sideboard.size === 0) throw new RequestError('bad_request', 'card_details has no cards that match the card data; call get_enriched_deck first');
  const colorAdoption = await queries.colorSideboardAdoption(format, deck.colors, window, COLOR_SAMPLE);
  const plan = sideboardPlan({
    sideboard: deck.sideboard,
    colors: deck.colors,
    archetypeAdoption: sample.adoption,
    colorAdoption,
    topSideAdoption: topArchetypeAdoption(top, 'sideboard'),
    card: (name) => matcher.find(name),
  });

  const finalCards = plan.final_sideboard.map((c) => c.name);
  const evidence = await sideboardEvidence(queries, format, archetype, top.map((t) => t.archetype), window, finalCards);
  const sideboard_plans = top.map((t) => {
    const byCard = evidence.get(t.archetype) ?? new Map<string, { with: MatchRecord; without: MatchRecord }>();
    const shown = finalCards
      .map((card) => ({ card, ...(byCard.get(card) ?? { with: empty(), without: empty() }) }))
      .filter((e) => decided(e.with) >= MIN_EVIDENCE && decided(e.without) >= MIN_EVIDENCE)
      .map((e) => ({ card: e.card, matches_with: e.with.matches, win_rate_with: winRate(e.with), matches_without: e.without.matches, win_rate_without: winRate(e.without) }))
      .sort((a, b) => (b.win_rate_with ?? 0) - (b.win_rate_without ?? 0) - ((a.win_rate_with ?? 0) - (a.win_rate_without ?? 0)) || a.card.localeCompare(b.card));
    return {
      opponent_archetype: t.archetype,
      meta_share: t.meta_share,
      matchup: t.matchup,
      their_key_cards: topAdopted(t.adoption.mainboard, t.adoption.lists, 8, (n) => !BASIC_LANDS.has(n) && matcher.find(n)?.is_land !== true),
      their_sideboard_cards: topAdopted(t.adoption.sideboard, t.adoption.lists, 6),
      bring_in: shown.filter((e) => (e.win_rate_with ?? 0) > (e.win_rate_without ?? 0)).map((e) => e.card),
      evidence: shown,
    };
  });

  const facts = { format, archetype, deck_colors: deck.colors, window: sample.window, archetype_lists: sample.adoption.lists, sideboard_changes: plan.sideboard_changes, final_sideboard: plan.final_sideboard, sideboard_plans };
  const fallback = [
    `**${archetype} sideboard** for ${format} against ${listing(top.map((t) => `${t.archetype} (${t.meta_share}%)`))}, from ${sample.adoption.lists} recent ${archetype} lists.`,
    plan.sideboard_changes.length
      ? plan.sideboard_changes.map((c) => `- ${c.action === 'add' ? `Add ${c.to} ${c.card}` : c.action === 'remove' ? `Cut ${c.from} ${c.card}` : `${c.card}: ${c.from} → ${c.to}`} (${c.reason}).`).join('\n')
      : 'Your sideboard already matches what the archetype\'s players bring: no change.',
    `Final sideboard (15): ${listing(plan.final_sideboard.map((c) => `${c.quantity} ${c.name}`))}.`,
    ...sideboard_plans.map(
      (p) =>
        `- vs ${p.opponent_archetype}: ${percent(p.matchup.win_rate)} over ${p.matchup.match_count} matches; they play ${listing(p.their_key_cards.slice(0, 3).map((c) => c.name))}${p.bring_in.length ? `; decks with ${listing(p.bring_in.slice(0, 3))} did better against them` : ''}.`,
    ),
  ].join('\n\n');
  const explanation = await narrate(
    deps.narrator,
    {
      task: 'optimize_sideboard',
      instructions: `Explain these sideboard changes to a ${archetype} player in ${format}, and for each top archetype what to bring in and why, given their key cards and what they side in. Use only the cards in the facts.`,
      facts,
      fallback,
    },
    deps,
  );
  return {
    archetype,
    format,
    deck_colors: deck.colors,
    sideboard_changes: plan.sideboard_changes,
    sideboard_plans,
    final_sideboard: plan.final_sideboard,
    explanation: explanation.text,
    narrator: explanation.narrator,
    metadata: { period: sample.window, archetype_lists: sample.adoption.lists, newest_tournament: newest },
  };
}
