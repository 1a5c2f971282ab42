/**
 * Decks per archetype and format over the whole data: the archetype names a format has (largest first)
 * and the formats an archetype is played in, without reading every day's counts.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from '../model-on.js';

export interface MtgArchetypeTotal {
  /** "<format>/<archetype>". */
  _id: string;
  format: string;
  /** The decks' `archetype_name`. */
  archetype: string;
  decks: number;
}

const schema = new Schema<MtgArchetypeTotal>(
  {
    _id: { type: String, required: true },
    format: { type: String, required: true },
    archetype: { type: String, required: true },
    decks: { type: Number, required: true },
  },
  { collection: 'mtg_archetype_totals', versionKey: false },
);
schema.index({ format: 1 });

export function mtgArchetypeTotals(connection: Connection): Model<MtgArchetypeTotal> {
  return modelOn<MtgArchetypeTotal>(connection, 'MtgArchetypeTotal', schema);
}
