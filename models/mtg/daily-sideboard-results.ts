/**
 * One archetype's match results on one day of one format, per opponent archetype and per card in its
 * sideboard: the matches its decks that sided the card played against that opponent, won, lost and
 * drew. With the matchup totals (mtg_daily_matches) this gives optimize_sideboard's evidence, decks with
 * a card against decks without it, without reading matches or deck lists.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from '../model-on.js';

export interface MtgSideboardResult {
  opponent: string;
  card: string;
  matches: number;
  wins: number;
  losses: number;
  draws: number;
}

export interface MtgDailySideboardResults {
  /** "<format>/<YYYY-MM-DD>/<archetype>". */
  _id: string;
  format: string;
  /** The day at 00:00 UTC, for range queries. */
  date: Date;
  day: string;
  /** The sideboard's archetype (`archetype_name`); opponents are other archetypes, mirrors are left out. */
  archetype: string;
  results: MtgSideboardResult[];
}

const result = new Schema<MtgSideboardResult>(
  {
    opponent: { type: String, required: true },
    card: { type: String, required: true },
    matches: { type: Number, required: true },
    wins: { type: Number, required: true },
    losses: { type: Number, required: true },
    draws: { type: Number, required: true },
  },
  { _id: false },
);

const schema = new Schema<MtgDailySideboardResults>(
  {
    _id: { type: String, required: true },
    format: { type: String, required: true },
    date: { type: Date, required: true },
    day: { type: String, required: true },
    archetype: { type: String, required: true },
    results: { type: [result], default: () => [] },
  },
  { collection: 'mtg_daily_sideboard_results', versionKey: false },
);
schema.index({ format: 1, archetype: 1, date: 1 });

export function mtgDailySideboardResults(connection: Connection): Model<MtgDailySideboardResults> {
  return modelOn<MtgDailySideboardResults>(connection, 'MtgDailySideboardResults', schema);
}
