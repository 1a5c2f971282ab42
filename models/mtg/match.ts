/** One match between two decks (or a deck and a player without a list) in the MTG dataset. */
import { Schema, type Connection, type Model } from 'mongoose';
import { modelOn } from '../model-on.js';

export interface MtgMatch {
  /** The dataset's match id. */
  _id: number;
  tournament_id: number;
  /** Copied from the tournament so meta queries need no join. */
  format: string;
  /** The tournament's day at 00:00 UTC. */
  date: Date;
  /** The same day as YYYY-MM-DD. */
  day: string;
  /** "Round 3", "Quarterfinals", ... */
  round: string;
  /** Swiss round n; Quarterfinals 101, Semifinals 102, Final 103. */
  round_number: number;
  /** null when that player published no deck (then player1/player2 names them). */
  deck1_id: number | null;
  deck2_id: number | null;
  /** The decks' `archetype_name`, copied so matchup queries need no join; null without a deck. */
  deck1_archetype: string | null;
  deck2_archetype: string | null;
  player1?: string;
  player2?: string;
  /** "W-L-D" from player 1's side. */
  games: string;
  result: 'p1' | 'p2' | 'draw';
}

const schema = new Schema<MtgMatch>(
  {
    _id: { type: Number, required: true },
    tournament_id: { type: Number, required: true },
    format: { type: String, required: true },
    date: { type: Date, required: true },
    day: { type: String, required: true },
    round: { type: String, required: true },
    round_number: { type: Number, required: true },
    deck1_id: { type: Number, default: null },
    deck2_id: { type: Number, default: null },
    deck1_archetype: { type: String, default: null },
    deck2_archetype: { type: String, default: null },
    player1: { type: String },
    player2: { type: String },
    games: { type: String, required: true },
    result: { type: String, enum: ['p1', 'p2', 'draw'], required: true },
  },
  { collection: 'mtg_matches', versionKey: false },
);
schema.index({ format: 1, date: 1 });
schema.index({ deck1_id: 1 });
schema.index({ deck2_id: 1 });

export function mtgMatches(connection: Connection): Model<MtgMatch> {
  return modelOn<MtgMatch>(connection, 'MtgMatch', schema);
}
