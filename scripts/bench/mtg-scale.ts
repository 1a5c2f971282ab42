/**
 * `bench:meta --scale N`: the shipped MTG dataset plus N-1 synthetic copies of its tournaments, each
 * shifted back in time by a whole multiple of the real data's span, so the newest day (the anchor of
 * every window) stays the real newest day and every copy keeps the real distributions: the same decks,
 * archetypes, cards and results, on other days, under new ids. Loaded by seedMtg's `extraRecords`, so
 * the daily counts and the marker include them exactly as they would real tournaments.
 */
import mongoose from 'mongoose';
import type { MtgDataset, RawDecklist, RawMatch, RawTournament } from '../../models/mtg/dataset-files.js';
import { seedMtg } from '../../models/mtg/seed.js';

const DAY_MS = 86_400_000;
const dayNumber = (day: string) => Date.parse(`${day}T00:00:00.000Z`) / DAY_MS;
const shiftDay = (day: string, days: number) => new Date((dayNumber(day) - days) * DAY_MS).toISOString().slice(0, 10);

export type ExtraRecords = Pick<MtgDataset, 'tournaments' | 'decklists' | 'matches'>;

/** Days from the oldest to the newest day of the dataset, both counted. */
export function datasetSpanDays(dataset: Pick<MtgDataset, 'tournaments' | 'decklists'>): number {
  let oldest = Infinity;
  let newest = -Infinity;
  for (const { date } of [...dataset.tournaments, ...dataset.decklists]) {
    const n = dayNumber(date);
    if (n < oldest) oldest = n;
    if (n > newest) newest = n;
  }
  return newest - oldest + 1;
}

/**
 * `scale - 1` copies of the tournaments, their deck lists and matches; copy k (1…scale-1) is k spans
 * older. Ids become id + k × (the largest id + 1) of their collection in `loaded` (the records loaded
 * with the copies; default: the same records), and references follow.
 */
export function synthesizeOlderCopies(dataset: ExtraRecords, scale: number, loaded: ExtraRecords = dataset): ExtraRecords {
  const span = datasetSpanDays(dataset);
  const stride = (records: Array<{ id: number }>) => records.reduce((max, r) => Math.max(max, r.id), 0) + 1;
  const [tStride, dStride, mStride] = [stride(loaded.tournaments), stride(loaded.decklists), stride(loaded.matches)];
  const out: ExtraRecords = { tournaments: [], decklists: [], matches: [] };
  for (let k = 1; k < scale; k++) {
    const shift = k * span;
    const deckId = (id: number | null) => (id === null ? null : id + k * dStride);
    for (const t of dataset.tournaments) {
      const copy: RawTournament = { ...t, id: t.id + k * tStride, key: `${t.key}#synthetic-${k}`, date: shiftDay(t.date, shift) };
      if (typeof t.start_time === 'string' && /^\d{4}-\d\d-\d\d/.test(t.start_time)) copy.start_time = shiftDay(t.start_time.slice(0, 10), shift) + t.start_time.slice(10);
      out.tournaments.push(copy);
    }
    for (const d of dataset.decklists) {
      out.decklists.push({ ...d, id: d.id + k * dStride, tournament_id: d.tournament_id + k * tStride, date: shiftDay(d.date, shift) } satisfies RawDecklist);
    }
    for (const m of dataset.matches) {
      out.matches.push({ ...m, id: m.id + k * mStride, tournament_id: m.tournament_id + k * tStride, deck1_id: deckId(m.deck1_id), deck2_id: deckId(m.deck2_id) } satisfies RawMatch);
    }
  }
  return out;
}

export interface ScaledLoad {
  scale: number;
  span_days: number;
  counts: Record<string, number>;
  load_seconds: number;
}

/** Reloads the bench's own MongoDB (never a user's) with the shipped data plus `scale - 1` older copies. */
export async function loadScaledDataset(mongo: { uri: string; dbName: string }, scale: number): Promise<ScaledLoad> {
  const connection = await mongoose.createConnection(mongo.uri, { dbName: mongo.dbName }).asPromise();
  try {
    let span = 0;
    const result = await seedMtg(connection, {
      batchSize: 5000,
      extraRecords: (dataset) => {
        span = datasetSpanDays(dataset);
        return synthesizeOlderCopies(dataset, scale);
      },
    });
    return { scale, span_days: span, counts: result.counts, load_seconds: result.seconds };
  } finally {
    await connection.close();
  }
}
