/**
 * Decks per archetype and colour on one day of one format, built with the deck lists by the same load.
 * The format-wide meta tools sum a window's days of these instead of grouping thousands of deck lists.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from '../model-on.js';

export interface MtgDeckCount {
  /** The decks' `archetype_name`. */
  archetype: string;
  /** Their `archetype_color`. */
  color: string;
  decks: number;
}

export interface MtgDailyDecks {
  /** "<format>/<YYYY-MM-DD>": one document per format and day. */
  _id: string;
  format: string;
  /** The day at 00:00 UTC, for range queries. */
  date: Date;
  day: string;
  counts: MtgDeckCount[];
}

const deckCount = new Schema<MtgDeckCount>(
  { archetype: { type: String, required: true }, color: { type: String, required: true }, decks: { type: Number, required: true } },
  { _id: false },
);

const schema = new Schema<MtgDailyDecks>(
  {
    _id: { type: String, required: true },
    format: { type: String, required: true },
    date: { type: Date, required: true },
    day: { type: String, required: true },
    counts: { type: [deckCount], default: () => [] },
  },
  { collection: 'mtg_daily_decks', versionKey: false },
);
schema.index({ format: 1, date: 1 });

export function mtgDailyDecks(connection: Connection): Model<MtgDailyDecks> {
  return modelOn<MtgDailyDecks>(connection, 'MtgDailyDecks', schema);
}
