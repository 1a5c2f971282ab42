/** A Magic card as it appears in the MTG dataset's deck lists, with the facts the meta tools show. */
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from '../model-on.js';

export interface MtgCard {
  /** The card's index in the dataset's cards.json (deck lists refer to cards by it). */
  _id: number;
  /** As written in deck lists (the front face of a double-faced card). */
  name: string;
  /** "Front // Back" when it differs from `name`, else null. */
  full_name: string | null;
  /** null for the cards first printed in 2026 that the dataset has no facts for (also type_line, mana_value). */
  mana_cost: string | null;
  mana_value: number | null;
  type_line: string | null;
  colors: string[];
  color_identity: string[];
  /** true when color_identity was inferred from colors rather than known. */
  color_identity_approx: boolean;
  is_land: boolean;
  first_set: string | null;
  /** YYYY-MM-DD. */
  first_released: string | null;
  /** Only for legendary creatures, else null. */
  oracle_text: string | null;
  /** Format -> number of decks playing the card in the dataset's window. */
  decks_by_format: Record<string, number>;
  /** cardLookupKeys(name, full_name): what a typed card name is matched against. */
  lookup_keys: string[];
}

const schema = new Schema<MtgCard>(
  {
    _id: { type: Number, required: true },
    name: { type: String, required: true },
    full_name: { type: String, default: null },
    mana_cost: { type: String, default: null },
    mana_value: { type: Number, default: null },
    type_line: { type: String, default: null },
    colors: { type: [String], default: () => [] },
    color_identity: { type: [String], default: () => [] },
    color_identity_approx: { type: Boolean, default: false },
    is_land: { type: Boolean, required: true },
    first_set: { type: String, default: null },
    first_released: { type: String, default: null },
    oracle_text: { type: String, default: null },
    decks_by_format: { type: Schema.Types.Mixed, default: () => ({}) },
    lookup_keys: { type: [String], required: true },
  },
  { collection: 'mtg_cards', versionKey: false, minimize: false },
);
schema.index({ name: 1 }, { unique: true });
schema.index({ lookup_keys: 1 });

export function mtgCards(connection: Connection): Model<MtgCard> {
  return modelOn<MtgCard>(connection, 'MtgCard', schema);
}
