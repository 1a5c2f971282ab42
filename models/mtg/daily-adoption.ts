/**
 * Card adoption per archetype and colour on one day of one format: how many of those decks play each
 * card, and how many copies in all, main deck and sideboard apart. Built with the deck lists by the same
 * load. The coaching tools sum the newest days of these instead of reading hundreds of deck lists.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from '../model-on.js';

export interface MtgCardAdoption {
  card: string;
  /** Deck lists naming the card in this board (a list naming it twice counts twice, as its lines do). */
  decks: number;
  /** Copies over those lists. */
  copies: number;
}

export interface MtgDailyAdoption {
  /** "<format>/<YYYY-MM-DD>/<archetype>/<color>". */
  _id: string;
  format: string;
  /** The day at 00:00 UTC, for range queries. */
  date: Date;
  day: string;
  /** The decks' `archetype_name` and `archetype_color`. */
  archetype: string;
  color: string;
  decks: number;
  mainboard: MtgCardAdoption[];
  sideboard: MtgCardAdoption[];
}

const cardAdoption = new Schema<MtgCardAdoption>(
  { card: { type: String, required: true }, decks: { type: Number, required: true }, copies: { type: Number, required: true } },
  { _id: false },
);

const schema = new Schema<MtgDailyAdoption>(
  {
    _id: { type: String, required: true },
    format: { type: String, required: true },
    date: { type: Date, required: true },
    day: { type: String, required: true },
    archetype: { type: String, required: true },
    color: { type: String, required: true },
    decks: { type: Number, required: true },
    mainboard: { type: [cardAdoption], default: () => [] },
    sideboard: { type: [cardAdoption], default: () => [] },
  },
  { collection: 'mtg_daily_adoption', versionKey: false },
);
// One archetype's newest days; and the days of a set of colours (a deck's colour subsets).
schema.index({ format: 1, archetype: 1, date: 1 });
schema.index({ format: 1, color: 1, date: 1 });

export function mtgDailyAdoption(connection: Connection): Model<MtgDailyAdoption> {
  return modelOn<MtgDailyAdoption>(connection, 'MtgDailyAdoption', schema);
}
