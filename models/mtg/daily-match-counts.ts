/**
 * Matches per ordered pair of archetypes and result on one day of one format, built with the matches by
 * the same load. The matchup tools sum a window's days of these instead of grouping the matches.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from '../model-on.js';
import type { MtgMatch } from './match.js';

export interface MtgMatchCount {
  /** The matches' `deck1_archetype` and `deck2_archetype`; null where that player published no list. */
  deck1: string | null;
  deck2: string | null;
  result: MtgMatch['result'];
  matches: number;
}

export interface MtgDailyMatches {
  /** "<format>/<YYYY-MM-DD>": one document per format and day. */
  _id: string;
  format: string;
  /** The day at 00:00 UTC, for range queries. */
  date: Date;
  day: string;
  counts: MtgMatchCount[];
}

const matchCount = new Schema<MtgMatchCount>(
  {
    deck1: { type: String, default: null },
    deck2: { type: String, default: null },
    result: { type: String, enum: ['p1', 'p2', 'draw'], required: true },
    matches: { type: Number, required: true },
  },
  { _id: false },
);

const schema = new Schema<MtgDailyMatches>(
  {
    _id: { type: String, required: true },
    format: { type: String, required: true },
    date: { type: Date, required: true },
    day: { type: String, required: true },
    counts: { type: [matchCount], default: () => [] },
  },
  { collection: 'mtg_daily_matches', versionKey: false },
);
schema.index({ format: 1, date: 1 });

export function mtgDailyMatches(connection: Connection): Model<MtgDailyMatches> {
  return modelOn<MtgDailyMatches>(connection, 'MtgDailyMatches', schema);
}
