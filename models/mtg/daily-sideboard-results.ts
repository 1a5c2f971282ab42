/**
 * One archetype's match results on one day of one format, per sideboard its decks brought (as a set of
 * cards; decks with the same one add up) and per opponent archetype: matches, wins, losses, draws.
 * With the matchup totals (mtg_daily_matches) this gives optimize_sideboard's evidence, decks with a
 * card against decks without it, without reading matches or deck lists.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from '../model-on.js';

export interface MtgOpponentResult {
  opponent: string;
  matches: number;
  wins: number;
  losses: number;
  draws: number;
}

export interface MtgSideboardResults {
  /** The distinct cards of the sideboard, sorted. */
  cards: string[];
  /** Against each other archetype met (mirrors are left out). */
  results: MtgOpponentResult[];
}

export interface MtgDailySideboardResults {
  /** "<format>/<YYYY-MM-DD>/<archetype>". */
  _id: string;
  format: string;
  /** The day at 00:00 UTC, for range queries. */
  date: Date;
  day: string;
  /** The decks' `archetype_name`. */
  archetype: string;
  sideboards: MtgSideboardResults[];
}

const opponentResult = new Schema<MtgOpponentResult>(
  {
    opponent: { type: String, required: true },
    matches: { type: Number, required: true },
    wins: { type: Number, required: true },
    losses: { type: Number, required: true },
    draws: { type: Number, required: true },
  },
  { _id: false },
);

const sideboardResults = new Schema<MtgSideboardResults>({ cards: { type: [String], default: () => [] }, results: { type: [opponentResult], default: () => [] } }, { _id: false });

const schema = new Schema<MtgDailySideboardResults>(
  {
    _id: { type: String, required: true },
    format: { type: String, required: true },
    date: { type: Date, required: true },
    day: { type: String, required: true },
    archetype: { type: String, required: true },
    sideboards: { type: [sideboardResults], default: () => [] },
  },
  { collection: 'mtg_daily_sideboard_results', versionKey: false },
);
schema.index({ format: 1, archetype: 1, date: 1 });

export function mtgDailySideboardResults(connection: Connection): Model<MtgDailySideboardResults> {
  return modelOn<MtgDailySideboardResults>(connection, 'MtgDailySideboardResults', schema);
}
