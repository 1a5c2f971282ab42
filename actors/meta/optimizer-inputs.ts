/**
 * What both optimisers start from: the format and window, the user's archetype and deck, a sample of
 * the archetype's recent lists, and the top-N other archetypes with their lists and the user's record
 * against each.
 */
import { RequestError } from '../runtime/contract.js';
import type { MetaMessages } from './contract.js';
import { userDeck } from './coaching-context.js';
import { formatWindow, matchupOf, resolveArchetype } from './format-meta.js';
import type { CoachingDeps } from './matchup-strategy.js';
import { archetypeShares, matchupMatrix } from './meta-stats.js';
import type { MetaQueries } from './meta-queries.js';
import { currentWindow, type TimeWindow } from './time-window.js';

const ARCHETYPE_SAMPLE = 300;
const OPPONENT_SAMPLE = 60;
/** Fewer recent lists than this and the archetype is read over the whole data instead. */
const MIN_ARCHETYPE_LISTS = 5;

/** Card adoption over the archetype's recent lists in the window, or over the whole data when the window has too few. */
export async function archetypeSample(queries: MetaQueries, format: string, archetype: string, window: TimeWindow, newest: string) {
  const recent = await queries.archetypeAdoption(format, archetype, window, ARCHETYPE_SAMPLE);
  if (recent.lists >= MIN_ARCHETYPE_LISTS) return { adoption: recent, window };
  const all = currentWindow(newest, 365);
  return { adoption: await queries.archetypeAdoption(format, archetype, all, ARCHETYPE_SAMPLE), window: all };
}

/** The top-N archetypes by share in the window other than the user's, with card adoption over their recent lists and the user's record against them. */
export async function topArchetypes(queries: MetaQueries, format: string, archetype: string, window: TimeWindow, topN: number) {
  const [[decks], [tallies]] = await Promise.all([queries.deckTallies(format, [window]), queries.matchTallies(format, [window])]);
  const shares = archetypeShares(decks).filter((s) => s.archetype !== archetype).slice(0, topN);
  if (shares.length === 0) throw new RequestError('unavailable', `no ${format} decks in ${window.start}..${window.end} to compare against; try more days`);
  const row = matchupMatrix(tallies).get(archetype);
  return Promise.all(
    shares.map(async (s) => ({
      archetype: s.archetype,
      meta_share: s.meta_share,
      matchup: matchupOf(row?.get(s.archetype)),
      adoption: await queries.archetypeAdoption(format, s.archetype, window, OPPONENT_SAMPLE),
    })),
  );
}


export async function optimizerInputs(deps: CoachingDeps, args: MetaMessages['optimize_mainboard']) {
  const { queries, catalogue } = deps;
  const { format, window, newest } = await formatWindow(queries, args.format, args.days);
  const archetype = await resolveArchetype(queries, format, args.archetype);
  const [deck, sample, top, matcher] = await Promise.all([
    userDeck(catalogue, args.card_details),
    archetypeSample(queries, format, archetype, window, newest),
    topArchetypes(queries, format, archetype, window, args.top_n),
    catalogue.matcher(),
  ]);
  return { format, window, newest, archetype, deck, sample, top, matcher };
}
