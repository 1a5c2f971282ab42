/**
 * Single-use login tokens: `troupe start` prints a URL with one; the web UI exchanges it once for an
 * API key (POST /auth/login). Stored as sha256(token) (a 256-bit random token, see api-key.ts for why a
 * fast hash suffices); a TTL index removes expired ones, and the exchange also checks the expiry
 * because the TTL monitor only sweeps periodically.
 */
import { Schema, type Connection, type Model, type Types } from 'mongoose';
import { modelOn } from './model-on.js';

export interface LoginTokenRecord {
  /** Hex sha256 of the token. */
  _id: string;
  userId: Types.ObjectId;
  createdAt: Date;
  expiresAt: Date;
}

const schema = new Schema<LoginTokenRecord>(
  {
    _id: { type: String, required: true },
    userId: { type: Schema.Types.ObjectId, required: true },
    createdAt: { type: Date, required: true, default: () => new Date() },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'login_tokens', versionKey: false },
);
schema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

export function loginTokenRecords(connection: Connection): Model<LoginTokenRecord> {
  return modelOn<LoginTokenRecord>(connection, 'LoginToken', schema);
}
