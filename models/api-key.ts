/**
 * API keys, stored hashed. A key is `trp_<prefix>_<secret>`: the prefix is a public lookup id (shown in
 * listings, used to revoke one key), the secret 256 random bits. Only sha256(key) is stored.
 *
 * Why a plain sha256 and not bcrypt/scrypt/argon2: those are slow on purpose to protect guessable
 * passwords; a 256-bit random secret cannot be guessed however fast the hash is, so a slow hash would
 * only cost CPU on every authenticated request. A stolen database still yields no usable key.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Schema, type Connection, type Model, type Types } from 'mongoose';
import { modelOn } from './model-on.js';

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
  /** A delegated key (an agent acting for its user) stops working at this time and is then swept. */
  expiresAt?: Date;
}

const schema = new Schema<ApiKeyRecord>(
  {
    prefix: { type: String, required: true },
    hash: { type: String, required: true },
    userId: { type: Schema.Types.ObjectId, required: true },
    label: { type: String, required: true },
    createdAt: { type: Date, required: true, default: () => new Date() },
    revokedAt: { type: Date },
    expiresAt: { type: Date },
  },
  { collection: 'api_keys', versionKey: false },
);
schema.index({ prefix: 1 }, { unique: true });
schema.index({ userId: 1 });
schema.index({ expiresAt: 1 }, { expireAfterSeconds: 0, sparse: true });

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const isDuplicateKey = (error: unknown) => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;

/** Creates a key for `userId` and returns it in plaintext, the only time it exists; only its hash is stored. */
export async function createApiKey(
  records: Model<ApiKeyRecord>,
  userId: Types.ObjectId,
  label: string,
  expiresAt?: Date,
): Promise<{ key: string; prefix: string }> {
  // 48 random bits of prefix: a collision is unlikely but would only cost a retry.
  for (let attempt = 0; ; attempt++) {
    const prefix = `trp_${randomBytes(6).toString('hex')}`;
    const key = `${prefix}_${randomBytes(32).toString('base64url')}`;
    try {
      await records.create({ prefix, hash: sha256(key), userId, label, createdAt: new Date(), ...(expiresAt ? { expiresAt } : {}) });
      return { key, prefix };
    } catch (error) {
      if (!isDuplicateKey(error) || attempt >= 2) throw error;
    }
  }
}

export function apiKeyRecords(connection: Connection): Model<ApiKeyRecord> {
  return modelOn<ApiKeyRecord>(connection, 'ApiKey', schema);
}
