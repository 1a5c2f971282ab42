/** One player's deck at one tournament of the MTG dataset, with its archetype and record. */
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from '../model-on.js';

export interface MtgDeckCard {
  /** The card's name as in `mtg_cards.name`. */
  card: string;
  count: number;
}

export interface MtgDecklist {
  /** The dataset's decklist id (matches refer to decks by it). */
  _id: number;
  tournament_id: number;
  format: string;
  /** The tournament's day at 00:00 UTC. */
  date: Date;
  /** The same day as YYYY-MM-DD. */
  day: string;
  player: string;
  /** "1st Place", "5-0", ... */
  result: string | null;
  rank: number | null;
  points: number | null;
  wins: number | null;
  losses: number | null;
  draws: number | null;
  /** "Unknown" when no rule matched: archetype_color then tells the colours. */
  archetype: string;
  /** A WUBRG subset, or "C". */
  archetype_color: string;
  archetype_method: string;
  /** What the meta tools call the deck's archetype: `archetype`, or "Unknown (UR)" by colour when no rule matched. */
  archetype_name: string;
  companion: string | null;
  mainboard: MtgDeckCard[];
  sideboard: MtgDeckCard[];
}

const deckCard = new Schema<MtgDeckCard>({ card: { type: String, required: true }, count: { type: Number, required: true } }, { _id: false });

const schema = new Schema<MtgDecklist>(
  {
    _id: { type: Number, required: true },
    tournament_id: { type: Number, required: true },
    format: { type: String, required: true },
    date: { type: Date, required: true },
    day: { type: String, required: true },
    player: { type: String, required: true },
    result: { type: String, default: null },
    rank: { type: Number, default: null },
    points: { type: Number, default: null },
    wins: { type: Number, default: null },
    losses: { type: Number, default: null },
    draws: { type: Number, default: null },
    archetype: { type: String, required: true },
    archetype_color: { type: String, required: true },
    archetype_method: { type: String, required: true },
    archetype_name: { type: String, required: true },
    companion: { type: String, default: null },
    mainboard: { type: [deckCard], default: () => [] },
    sideboard: { type: [deckCard], default: () => [] },
  },
  { collection: 'mtg_decklists', versionKey: false },
);
schema.index({ format: 1, date: 1 });
schema.index({ format: 1, archetype_name: 1, date: 1 });

export function mtgDecklists(connection: Connection): Model<MtgDecklist> {
  return modelOn<MtgDecklist>(connection, 'MtgDecklist', schema);
}
