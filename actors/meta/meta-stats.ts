/**
 * The arithmetic of meta answers, kept apart from the queries that feed it so it can be checked by hand
 * on small fixtures: meta shares, win rates and the archetype-by-archetype matchup matrix.
 *
 * Win rates are percentages of decided matches (draws count as played but neither won nor lost; byes
 * are not in the data) and are null below MIN_MATCHES matches, where a percentage says nothing.
 * A mirror match tells nothing about an archetype against the field, so it is left out of the
 * archetype's own win rate; in the matrix it is its own cell (one match, one win and one loss).
 */

export const MIN_MATCHES = 3;

export interface MatchRecord {
  matches: number;
  wins: number;
  losses: number;
  draws: number;
}

/** Matches grouped by both decks' archetypes and the result, as the match query returns them. */
export interface MatchTally {
  /** null: that player published no deck list. */
  deck1: string | null;
  deck2: string | null;
  result: 'p1' | 'p2' | 'draw';
  count: number;
}

/** Decks grouped by archetype and colour. */
export interface DeckTally {
  archetype: string;
  color: string;
  count: number;
}

export interface ArchetypeShare {
  archetype: string;
  id: string;
  /** The colours most of its decks play (WUBRG order, "C" for colourless). */
  color_identity: string;
  decks: number;
  /** Percent of all decks in the window, 2 decimals. */
  meta_share: number;
}

const emptyRecord = (): MatchRecord => ({ matches: 0, wins: 0, losses: 0, draws: 0 });
const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;

/** Win percentage of decided matches, 1 decimal; null below MIN_MATCHES matches or with none decided. */
export function winRate(record: MatchRecord): number | null {
  const decided = record.wins + record.losses;
  if (record.matches < MIN_MATCHES || decided === 0) return null;
  return round((100 * record.wins) / decided, 1);
}

/** A stable, URL-safe id for an archetype name: "Boros Energy" -> "boros-energy". */
export function archetypeId(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '');
}

function add(record: MatchRecord, outcome: 'win' | 'loss' | 'draw', count: number) {
  record.matches += count;
  if (outcome === 'win') record.wins += count;
  else if (outcome === 'loss') record.losses += count;
  else record.draws += count;
}

const outcomeFor = (side: 'p1' | 'p2', result: MatchTally['result']) => (result === 'draw' ? 'draw' : result === side ? 'win' : 'loss');

/** Each archetype's record against other archetypes (and players without a list); mirrors left out. */
export function archetypeRecords(tallies: Iterable<MatchTally>): Map<string, MatchRecord> {
  const records = new Map<string, MatchRecord>();
  const recordOf = (archetype: string) => records.get(archetype) ?? records.set(archetype, emptyRecord()).get(archetype)!;
  for (const tally of tallies) {
    if (tally.deck1 !== null && tally.deck1 === tally.deck2) continue;
    if (tally.deck1 !== null) add(recordOf(tally.deck1), outcomeFor('p1', tally.result), tally.count);
    if (tally.deck2 !== null) add(recordOf(tally.deck2), outcomeFor('p2', tally.result), tally.count);
  }
  return records;
}

/** row archetype -> column archetype -> the row's record against the column; only matches with both lists. */
export function matchupMatrix(tallies: Iterable<MatchTally>): Map<string, Map<string, MatchRecord>> {
  const matrix = new Map<string, Map<string, MatchRecord>>();
  const cell = (row: string, column: string) => {
    const cells = matrix.get(row) ?? matrix.set(row, new Map()).get(row)!;
    return cells.get(column) ?? cells.set(column, emptyRecord()).get(column)!;
  };
  for (const { deck1, deck2, result, count } of tallies) {
    if (deck1 === null || deck2 === null) continue;
    if (deck1 === deck2) {
      const mirror = cell(deck1, deck1);
      mirror.matches += count;
      if (result === 'draw') mirror.draws += count;
      else {
        mirror.wins += count;
        mirror.losses += count;
      }
      continue;
    }
    add(cell(deck1, deck2), outcomeFor('p1', result), count);
    add(cell(deck2, deck1), outcomeFor('p2', result), count);
  }
  return matrix;
}

/** Meta share per archetype, largest first (ties by name); colour identity is the archetype's most common colour. */
export function archetypeShares(tallies: Iterable<DeckTally>): ArchetypeShare[] {
  const byArchetype = new Map<string, { decks: number; colors: Map<string, number> }>();
  let total = 0;
  for (const { archetype, color, count } of tallies) {
    const entry = byArchetype.get(archetype) ?? byArchetype.set(archetype, { decks: 0, colors: new Map() }).get(archetype)!;
    entry.decks += count;
    entry.colors.set(color, (entry.colors.get(color) ?? 0) + count);
    total += count;
  }
  const shares = [...byArchetype].map(([archetype, { decks, colors }]) => ({
    archetype,
    id: archetypeId(archetype),
    color_identity: [...colors].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0][0],
    decks,
    meta_share: round((100 * decks) / total, 2),
  }));
  return shares.sort((a, b) => b.decks - a.decks || a.archetype.localeCompare(b.archetype));
}

const WUBRG = 'WUBRG';

/** "ur", "RU", "u/r" -> "UR"; "c" or "colorless" -> "C"; undefined when it is not a colour combination. */
export function normalizeColorIdentity(text: string): string | undefined {
  const t = text.trim().toUpperCase();
  if (t === 'C' || t === 'COLORLESS' || t === 'COLOURLESS') return 'C';
  const letters = t.replace(/[^A-Z]/g, '');
  if (letters === '' || [...letters].some((l) => !WUBRG.includes(l)) || new Set(letters).size !== letters.length) return undefined;
  return [...WUBRG].filter((l) => letters.includes(l)).join('');
}
