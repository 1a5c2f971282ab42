/**
 * The naive peers' API-key check, as one writes it without troupe: keys made by `troupe users create`
 * are read straight from the `api_keys` collection by their sha256 hash, and a valid one is trusted for
 * a minute (a revocation takes that long to bite). No troupe code: the peers are what someone would
 * write without it.
 */
import { createHash } from 'node:crypto';
import { Schema, type Connection } from 'mongoose';

/** How long a verified key is trusted before MongoDB is asked again. */
const KEY_CACHE_TTL_MS = 60_000;
const KEY_CACHE_MAX_ENTRIES = 10_000;

interface ApiKeyDoc {
  hash: string;
  revokedAt?: Date;
  expiresAt?: Date;
}

/**
 * A key check on `connection`'s `api_keys` collection: for a key that is known, unrevoked and unexpired,
 * its sha256 hash (which names the caller); undefined for any other.
 */
export function apiKeyCheck(connection: Connection): (key: string) => Promise<string | undefined> {
  const apiKeys = connection.model<ApiKeyDoc>(
    'NaivePeerApiKey',
    // Only the fields the check reads; troupe owns the collection and its indexes.
    new Schema<ApiKeyDoc>({ hash: String, revokedAt: Date, expiresAt: Date }, { collection: 'api_keys', autoIndex: false, autoCreate: false }),
  );
  /** sha256 hex of a valid key → until when it is trusted. */
  const verifiedKeys = new Map<string, number>();
  return async (key) => {
    const hash = createHash('sha256').update(key, 'utf8').digest('hex');
    const now = Date.now();
    const until = verifiedKeys.get(hash);
    if (until !== undefined && until > now) return hash;
    const record = await apiKeys.findOne({ hash }, { revokedAt: 1, expiresAt: 1 }).lean().exec();
    if (!record || record.revokedAt || (record.expiresAt && record.expiresAt.getTime() <= now)) return undefined;
    if (verifiedKeys.size >= KEY_CACHE_MAX_ENTRIES) verifiedKeys.clear();
    verifiedKeys.set(hash, Math.min(now + KEY_CACHE_TTL_MS, record.expiresAt?.getTime() ?? Infinity));
    return hash;
  };
}

/** The key a request carries: `Authorization: Bearer <key>`, else `X-API-Key`. */
export function requestKey(authorization: string | undefined, xApiKey: string | undefined): string | undefined {
  return /^Bearer (\S+)$/.exec(authorization ?? '')?.[1] ?? (xApiKey || undefined);
}
