/**
 * generate_deck_matchup_strategy: the opponent's recent lists (what they play main and side), the
 * user's record against them and the user's key cards, computed from the data; then advice written by
 * the narrator from exactly those facts.
 */
import type { Narrator } from '../llm/narration.js';
import { RequestError, type Logger } from '../runtime/contract.js';
import type { CardCatalogue } from './card-catalogue.js';
import { BASIC_LANDS, adoptionOf, topAdopted, userDeck } from './coaching-context.js';
import type { MetaMessages } from './contract.js';
import { formatWindow, matchupOf, resolveArchetype } from './format-meta.js';
import { matchupMatrix } from './meta-stats.js';
import type { MetaQueries } from './meta-queries.js';
import { listing, narrate, percent } from './narrated.js';

const LIST_SAMPLE = 200;

export interface CoachingDeps {
  queries: MetaQueries;
  catalogue: CardCatalogue;
  narrator: Narrator;
  logger: Logger;
  signal?: AbortSignal;
}

/** The format both archetypes are played in (the given one, else the one with most decks of the opponent). */
async function matchupFormat(queries: MetaQueries, args: MetaMessages['generate_deck_matchup_strategy']): Promise<string> {
  if (args.format !== undefined) return queries.resolveFormat(args.format);
  const [mine, theirs] = await Promise.all([queries.formatsOfArchetype(args.archetype), queries.formatsOfArchetype(args.opponent_archetype)]);
  const shared = theirs.filter((t) => mine.some((m) => m.format === t.format));
  const pick = shared[0] ?? theirs[0];
  if (!pick) {
    throw new RequestError('not_found', `no format has an archetype named '${args.opponent_archetype}'; pass "format" and pick an archetype from get_format_archetypes`);
  }
  return pick.format;
}

export async function matchupStrategy(deps: CoachingDeps, args: MetaMessages['generate_deck_matchup_strategy']) {
  const { queries, catalogue } = deps;
  const { format, window, newest } = await formatWindow(queries, await matchupFormat(queries, args), args.days);
  const [archetype, opponent] = await Promise.all([resolveArchetype(queries, format, args.archetype), resolveArchetype(queries, format, args.opponent_archetype)]);
  const [deck, theirs, ours, [tallies]] = await Promise.all([
    userDeck(catalogue, args.card_details),
    queries.archetypeAdoption(format, opponent, window, LIST_SAMPLE),
    queries.archetypeAdoption(format, archetype, window, LIST_SAMPLE),
    args.matchup_stats?.match_count === undefined ? queries.matchTallies(format, [window]) : Promise.resolve([[]]),
  ]);

  const record = matchupMatrix(tallies).get(archetype)?.get(opponent);
  const matchup =
    args.matchup_stats?.match_count !== undefined
      ? { win_rate: args.matchup_stats.win_rate ?? null, match_count: args.matchup_stats.match_count, source: 'caller' as const }
      : { win_rate: matchupOf(record).win_rate, match_count: matchupOf(record).match_count, source: 'data' as const };

  const matcher = await catalogue.matcher();
  const isSpell = (name: string) => !BASIC_LANDS.has(name) && matcher.find(name)?.is_land !== true;
  const key_cards = topAdopted(theirs.mainboard, theirs.lists, 12, isSpell);
  const sideboard_cards = topAdopted(theirs.sideboard, theirs.lists, 10);

  const your_key_cards = [...deck.mainboard]
    .filter(([name]) => isSpell(name))
    .map(([name, quantity]) => ({ name, quantity, decks_pct: ours.lists ? adoptionOf(name, ours.mainboard.get(name), ours.lists).decks_pct : null }))
    .sort((a, b) => (b.decks_pct ?? 0) - (a.decks_pct ?? 0) || b.quantity - a.quantity || a.name.localeCompare(b.name))
    .slice(0, 10);

  const facts = { format, archetype, opponent_archetype: opponent, window, matchup, opponent_profile: { lists: theirs.lists, key_cards, sideboard_cards }, your_key_cards };
  const fallback = [
    `**${archetype} vs ${opponent}** (${format}, ${window.start} to ${window.end}).`,
    `Record: ${percent(matchup.win_rate)} over ${matchup.match_count} matches${matchup.source === 'caller' ? ' (as given)' : ''}.`,
    theirs.lists
      ? `Across ${theirs.lists} recent ${opponent} lists the main-deck staples are ${listing(key_cards.slice(0, 6).map((c) => `${c.name} (${c.decks_pct}%)`))}; expect ${listing(sideboard_cards.slice(0, 4).map((c) => c.name))} after sideboarding.`
      : `There are no ${opponent} lists in this window, so their cards cannot be described.`,
    your_key_cards.length ? `Your deck's most established cards here: ${listing(your_key_cards.slice(0, 5).map((c) => c.name))}.` : '',
    'Plan around their staples: keep answers for the threats listed above and respect the sideboard cards they bring in for games two and three.',
  ]
    .filter(Boolean)
    .join('\n\n');
  const advice = await narrate(
    deps.narrator,
    {
      task: 'matchup_strategy',
      instructions: `Write matchup advice for a ${archetype} player facing ${opponent} in ${format}: game plan, key threats to answer, mulligan and sideboarding thoughts. Use only the cards and numbers in the facts.`,
      facts,
      fallback,
    },
    deps,
  );
  return {
    archetype,
    opponent_archetype: opponent,
    format,
    matchup_stats: matchup,
    opponent_profile: facts.opponent_profile,
    your_key_cards,
    advice: advice.text,
    narrator: advice.narrator,
    metadata: { period: window, newest_tournament: newest },
  };
}
