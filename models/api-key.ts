/**
 * API keys, stored hashed. A key is `trp_<prefix>_<secret>`: the prefix is a public lookup id (shown in
 * listings, used to revoke one key), the secret 256 random bits. Only sha256(key) is stored.
 *
 * Why a plain sha256 and not bcrypt/scrypt/argon2: those are slow on purpose to protect guessable
 * passwords; a 256-bit random secret cannot be guessed however fast the hash is, so a slow hash would
 * only cost CPU on every authenticated request. A stolen database still yields no usable key.
 */
import { Schema, type Connection, type Model, type Types } from 'mongoose';

export interface ApiKeyRecord {
  _id: Types.ObjectId;
  /** Public, unique: `trp_<12 hex>`. */
  prefix: string;
  /** Hex sha256 of the whole key. */
  hash: string;
  userId: Types.ObjectId;
  /** Where the key came from (cli, local, web-login), for listings. */
  label: string;
  createdAt: Date;
  revokedAt?: Date;
}

const schema = new Schema<ApiKeyRecord>(
  {
    prefix: { type: String, required: true },
    hash: { type: String, required: true },
    userId: { type: Schema.Types.ObjectId, required: true },
    label: { type: String, required: true },
    createdAt: { type: Date, required: true, default: () => new Date() },
    revokedAt: { type: Date },
  },
  { collection: 'api_keys', versionKey: false },
);
schema.index({ prefix: 1 }, { unique: true });
schema.index({ userId: 1 });

export function apiKeyRecords(connection: Connection): Model<ApiKeyRecord> {
  return (connection.models.ApiKey as Model<ApiKeyRecord> | undefined) ?? connection.model<ApiKeyRecord>('ApiKey', schema);
}
