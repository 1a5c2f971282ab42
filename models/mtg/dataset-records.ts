/**
 * Turns the dataset's records into the documents stored in MongoDB: card indices become card names,
 * "YYYY-MM-DD" days become Dates (keeping the string), and matches get their tournament's format and day and their decks' archetypes.
 */
import type { MtgCard } from './card.js';
import { cardLookupKeys } from './card-lookup-key.js';
import type { RawCard, RawCardRef, RawDecklist, RawMatch, RawTournament } from './dataset-files.js';
import type { MtgDeckCard, MtgDecklist } from './decklist.js';
import type { MtgMatch } from './match.js';
import type { MtgTournament } from './tournament.js';

/** "2026-05-17" -> 2026-05-17T00:00:00.000Z */
export function dayToDate(day: string): Date {
  const date = new Date(`${day}T00:00:00.000Z`);
  if (!/^\d{4}-\d\d-\d\d$/.test(day) || Number.isNaN(date.getTime())) throw new Error(`not a YYYY-MM-DD day: ${JSON.stringify(day)}`);
  return date;
}

/**
 * The archetype name meta answers use. The dataset labels decks no rule matched "Unknown" (a third of
 * Standard): one "Unknown" bucket would top every ranking and say nothing, so they are split by colour.
 */
export function archetypeName(archetype: string, color: string): string {
  return archetype === 'Unknown' ? `Unknown (${color})` : archetype;
}

export function cardDocument(card: RawCard): MtgCard {
  return {
    _id: card.index,
    name: card.name,
    full_name: card.full_name ?? null,
    mana_cost: card.mana_cost,
    mana_value: card.mana_value,
    type_line: card.type_line,
    colors: card.colors,
    color_identity: card.color_identity,
    color_identity_approx: card.color_identity_approx === true,
    is_land: card.is_land,
    first_set: card.first_set ?? null,
    first_released: card.first_released ?? null,
    oracle_text: card.oracle_text,
    decks_by_format: card.decks_by_format,
    lookup_keys: cardLookupKeys(card.name, card.full_name),
  };
}

export function tournamentDocument(tournament: RawTournament): MtgTournament {
  return {
    _id: tournament.id,
    key: tournament.key,
    source: tournament.source,
    name: tournament.name,
    format: tournament.format,
    date: dayToDate(tournament.date),
    day: tournament.date,
    start_time: tournament.start_time ?? null,
    url: tournament.url ?? null,
    kind: tournament.kind,
    player_count: tournament.player_count ?? null,
    deck_count: tournament.deck_count ?? null,
    round_count: tournament.round_count ?? null,
    match_count: tournament.match_count ?? null,
    has_swiss_rounds: tournament.has_swiss_rounds,
  };
}

export function decklistDocument(decklist: RawDecklist, cardNames: readonly string[]): MtgDecklist {
  const named = (refs: RawCardRef[]): MtgDeckCard[] =>
    refs.map(([index, count]) => {
      const card = cardNames[index];
      if (card === undefined) throw new Error(`decklist ${decklist.id} refers to card ${index}, which cards.json does not have`);
      return { card, count };
    });
  return {
    _id: decklist.id,
    tournament_id: decklist.tournament_id,
    format: decklist.format,
    date: dayToDate(decklist.date),
    day: decklist.date,
    player: decklist.player,
    result: decklist.result ?? null,
    rank: decklist.rank ?? null,
    points: decklist.points ?? null,
    wins: decklist.wins ?? null,
    losses: decklist.losses ?? null,
    draws: decklist.draws ?? null,
    archetype: decklist.archetype,
    archetype_color: decklist.archetype_color,
    archetype_method: decklist.archetype_method,
    archetype_name: archetypeName(decklist.archetype, decklist.archetype_color),
    companion: decklist.companion ?? null,
    mainboard: named(decklist.mainboard),
    sideboard: named(decklist.sideboard),
  };
}

export function matchDocument(
  match: RawMatch,
  tournaments: ReadonlyMap<number, MtgTournament>,
  decklists: ReadonlyMap<number, Pick<MtgDecklist, 'archetype_name'>>,
): MtgMatch {
  const tournament = tournaments.get(match.tournament_id);
  if (tournament === undefined) throw new Error(`match ${match.id} refers to tournament ${match.tournament_id}, which tournaments.json does not have`);
  const document: MtgMatch = {
    _id: match.id,
    tournament_id: match.tournament_id,
    format: tournament.format,
    date: tournament.date,
    day: tournament.day,
    round: match.round,
    round_number: match.round_number,
    deck1_id: match.deck1_id,
    deck2_id: match.deck2_id,
    deck1_archetype: archetypeOf(match.deck1_id, decklists),
    deck2_archetype: archetypeOf(match.deck2_id, decklists),
    games: match.games,
    result: match.result,
  };
  if (match.player1 !== undefined) document.player1 = match.player1;
  if (match.player2 !== undefined) document.player2 = match.player2;
  return document;
}

function archetypeOf(deckId: number | null, decklists: ReadonlyMap<number, Pick<MtgDecklist, 'archetype_name'>>): string | null {
  return deckId === null ? null : (decklists.get(deckId)?.archetype_name ?? null);
}
