/** One tournament of the MTG dataset (an MTGO challenge, a melee.gg or CardsRealm event, ...). */
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from '../model-on.js';

export interface MtgTournament {
  /** The dataset's tournament id. */
  _id: number;
  /** "<source>:<file-stem>", unique in the dataset. */
  key: string;
  source: string;
  name: string;
  format: string;
  /** The tournament's day at 00:00 UTC, for range queries. */
  date: Date;
  /** The same day as YYYY-MM-DD, as the dataset writes it. */
  day: string;
  start_time: string | null;
  url: string | null;
  kind: string;
  player_count: number | null;
  deck_count: number | null;
  round_count: number | null;
  match_count: number | null;
  /** false for MTGO events, which publish only the top-8 bracket. */
  has_swiss_rounds: boolean;
}

const schema = new Schema<MtgTournament>(
  {
    _id: { type: Number, required: true },
    key: { type: String, required: true },
    source: { type: String, required: true },
    name: { type: String, required: true },
    format: { type: String, required: true },
    date: { type: Date, required: true },
    day: { type: String, required: true },
    start_time: { type: String, default: null },
    url: { type: String, default: null },
    kind: { type: String, required: true },
    player_count: { type: Number, default: null },
    deck_count: { type: Number, default: null },
    round_count: { type: Number, default: null },
    match_count: { type: Number, default: null },
    has_swiss_rounds: { type: Boolean, required: true },
  },
  { collection: 'mtg_tournaments', versionKey: false },
);
schema.index({ format: 1, date: 1 });
// The newest tournament of any format: read from the end of this index, not by sorting them all.
schema.index({ date: 1 });

export function mtgTournaments(connection: Connection): Model<MtgTournament> {
  return modelOn<MtgTournament>(connection, 'MtgTournament', schema);
}
