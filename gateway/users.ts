/**
 * Users, their API keys and single-use login tokens, in MongoDB. Plaintext keys and tokens exist only
 * in the value returned once to whoever created them; the database holds sha256 hashes (see
 * models/api-key.ts for why that hash is enough).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isValidObjectId, Types, type Connection, type Model } from 'mongoose';
import { z } from 'zod';
import { apiKeyRecords, createApiKey, sha256, type ApiKeyRecord } from '../models/api-key.js';
import { loginTokenRecords, type LoginTokenRecord } from '../models/login-token.js';
import { USER_ROLES, userRecords, type UserRecord, type UserRole } from '../models/user.js';
import { ApiError } from './error-response.js';

/** Who a request acts for (`ctx.state.user`); `id` is the `ownerId` of everything the user owns. */
export interface AuthenticatedUser {
  id: string;
  name: string;
}

export interface KeySummary {
  prefix: string;
  label: string;
  createdAt: Date;
  revokedAt?: Date;
}

export interface UserSummary extends AuthenticatedUser {
  roles: UserRole[];
  createdAt: Date;
  revokedAt?: Date;
  keys: KeySummary[];
}

export interface IssuedKey {
  /** The plaintext key: shown once, never stored. */
  key: string;
  prefix: string;
}

/** A role given or taken: `changed` is false when the user already had (or lacked) it. */
export interface RoleChange {
  name: string;
  role: UserRole;
  roles: UserRole[];
  changed: boolean;
}

export type RevokeOutcome =
  | { revoked: 'user'; name: string; keys: number; alreadyRevoked: boolean }
  | { revoked: 'key'; prefix: string; user: string; alreadyRevoked: boolean };

export const LOCAL_USER_NAME = 'local';
export const LOGIN_TOKEN_TTL_MS = 15 * 60 * 1000;

const KEY_PREFIX_PATTERN = /^trp_[0-9a-f]{12}$/;
/** `trp_<12 hex prefix>_<43 base64url chars = 256 bits>` */
const API_KEY_PATTERN = /^(trp_[0-9a-f]{12})_[A-Za-z0-9_-]{43}$/;
const LOGIN_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const UserName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, 'a user name is 1-64 letters, digits and . _ @ - (starting with a letter or digit)')
  .refine((name) => !name.startsWith('trp_'), 'a user name may not start with trp_ (that is how key prefixes look)');

export const Role = z.enum(USER_ROLES, { error: (issue) => `unknown role ${JSON.stringify(issue.input)}: the roles are ${USER_ROLES.join(', ')}` });

export { sha256 };

/** The key prefix of a whole key or of a prefix, or undefined if it is neither. */
export function keyPrefixOf(text: string): string | undefined {
  if (KEY_PREFIX_PATTERN.test(text)) return text;
  return API_KEY_PATTERN.exec(text)?.[1];
}

function isDuplicateKeyError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}

function toUser(record: Pick<UserRecord, '_id' | 'name'>): AuthenticatedUser {
  return { id: record._id.toHexString(), name: record.name };
}

function parseRole(role: string): UserRole {
  const parsed = Role.safeParse(role);
  if (!parsed.success) throw new ApiError(400, 'bad_request', parsed.error.issues[0]!.message, { role, roles: [...USER_ROLES] });
  return parsed.data;
}

/**
 * How long a gateway trusts a key it has verified before asking MongoDB again. Spares two reads per
 * request; a revocation reaches the revoking process at once and every other gateway within this long.
 */
export const AUTH_CACHE_TTL_MS = 10_000;
const AUTH_CACHE_MAX_ENTRIES = 10_000;

export class UserDirectory {
  private readonly verified = new Map<string, { user: AuthenticatedUser; until: number }>();

  private constructor(
    private readonly users: Model<UserRecord>,
    private readonly apiKeys: Model<ApiKeyRecord>,
    private readonly loginTokens: Model<LoginTokenRecord>,
    private readonly loginTokenTtlMs: number,
  ) {}

  /** Binds the models to `connection` and waits for their indexes (the unique name index must exist before the first insert). */
  static async open(connection: Connection, { loginTokenTtlMs = LOGIN_TOKEN_TTL_MS }: { loginTokenTtlMs?: number } = {}): Promise<UserDirectory> {
    const directory = new UserDirectory(userRecords(connection), apiKeyRecords(connection), loginTokenRecords(connection), loginTokenTtlMs);
    await Promise.all([directory.users.init(), directory.apiKeys.init(), directory.loginTokens.init()]);
    return directory;
  }

  /** A new user and their first key (printed once by the CLI). 409 if the name is taken. */
  async createUser(name: string, label = 'cli', roles: readonly string[] = []): Promise<{ user: AuthenticatedUser; roles: UserRole[]; key: string; prefix: string }> {
    const parsed = UserName.safeParse(name);
    if (!parsed.success) throw new ApiError(400, 'bad_request', parsed.error.issues[0]!.message, { name });
    const granted = [...new Set(roles.map(parseRole))];
    let record: UserRecord;
    try {
      record = (await this.users.create({ name: parsed.data, createdAt: new Date(), roles: granted })).toObject();
    } catch (error) {
      if (isDuplicateKeyError(error)) throw new ApiError(409, 'conflict', `a user named ${name} already exists`, { name });
      throw error;
    }
    const issued = await this.issueKeyFor(record._id, label);
    return { user: toUser(record), roles: granted, ...issued };
  }

  /** Another key for an existing, active user (e.g. when the first one was lost). */
  async issueKey(name: string, label = 'cli'): Promise<{ user: AuthenticatedUser } & IssuedKey> {
    const record = await this.users.findOne({ name }).lean().exec();
    if (!record) throw new ApiError(404, 'not_found', `no user named ${name}`, { name });
    if (record.revokedAt) throw new ApiError(409, 'conflict', `user ${name} is revoked`, { name });
    return { user: toUser(record), ...(await this.issueKeyFor(record._id, label)) };
  }

  async listUsers(): Promise<UserSummary[]> {
    const [users, keys] = await Promise.all([
      this.users.find({}).sort({ createdAt: 1, name: 1 }).lean().exec(),
      this.apiKeys.find({}, { hash: 0 }).sort({ createdAt: 1 }).lean().exec(),
    ]);
    const keysByUser = new Map<string, KeySummary[]>();
    for (const key of keys) {
      const list = keysByUser.get(key.userId.toHexString()) ?? [];
      list.push({ prefix: key.prefix, label: key.label, createdAt: key.createdAt, ...(key.revokedAt ? { revokedAt: key.revokedAt } : {}) });
      keysByUser.set(key.userId.toHexString(), list);
    }
    return users.map((user) => ({
      ...toUser(user),
      roles: user.roles ?? [],
      createdAt: user.createdAt,
      ...(user.revokedAt ? { revokedAt: user.revokedAt } : {}),
      keys: keysByUser.get(user._id.toHexString()) ?? [],
    }));
  }

  /** Revokes a whole user (by name: all their keys stop working) or one key (by its prefix, or the key itself). */
  async revoke(target: string): Promise<RevokeOutcome> {
    this.verified.clear();
    const now = new Date();
    const prefix = keyPrefixOf(target);
    if (prefix !== undefined) {
      const key = await this.apiKeys.findOne({ prefix }).lean().exec();
      if (!key) throw new ApiError(404, 'not_found', `no API key ${prefix}`, { prefix });
      const owner = await this.users.findById(key.userId).lean().exec();
      if (!key.revokedAt) await this.apiKeys.updateOne({ _id: key._id, revokedAt: { $exists: false } }, { $set: { revokedAt: now } }).exec();
      return { revoked: 'key', prefix, user: owner?.name ?? '(deleted)', alreadyRevoked: key.revokedAt !== undefined };
    }
    const user = await this.users.findOne({ name: target }).lean().exec();
    if (!user) throw new ApiError(404, 'not_found', `no user or API key prefix ${target}`, { target });
    if (!user.revokedAt) await this.users.updateOne({ _id: user._id, revokedAt: { $exists: false } }, { $set: { revokedAt: now } }).exec();
    const keys = await this.apiKeys.updateMany({ userId: user._id, revokedAt: { $exists: false } }, { $set: { revokedAt: now } }).exec();
    return { revoked: 'user', name: user.name, keys: keys.modifiedCount, alreadyRevoked: user.revokedAt !== undefined };
  }

  /** Gives a user a role (`troupe users grant`); a revoked user cannot be given one. */
  async grantRole(name: string, role: string): Promise<RoleChange> {
    const granted = parseRole(role);
    const user = await this.users.findOne({ name }).lean().exec();
    if (!user) throw new ApiError(404, 'not_found', `no user named ${name}`, { name });
    if (user.revokedAt) throw new ApiError(409, 'conflict', `user ${name} is revoked`, { name });
    const updated = await this.users.findOneAndUpdate({ _id: user._id }, { $addToSet: { roles: granted } }, { returnDocument: 'after' }).lean().exec();
    const roles = updated?.roles ?? [];
    return { name: user.name, role: granted, roles, changed: !(user.roles ?? []).includes(granted) };
  }

  /** Takes a role from a user (`troupe users revoke-role`); takes effect on the user's next request. */
  async revokeRole(name: string, role: string): Promise<RoleChange> {
    const taken = parseRole(role);
    const user = await this.users.findOne({ name }).lean().exec();
    if (!user) throw new ApiError(404, 'not_found', `no user named ${name}`, { name });
    const updated = await this.users.findOneAndUpdate({ _id: user._id }, { $pull: { roles: taken } }, { returnDocument: 'after' }).lean().exec();
    const roles = updated?.roles ?? [];
    return { name: user.name, role: taken, roles, changed: (user.roles ?? []).includes(taken) };
  }

  /**
   * The user, if active and an admin. Read from MongoDB on every call (not cached like keys), so
   * revoking the role or the user closes the dashboard at once, on every gateway.
   */
  async activeAdmin(userId: string): Promise<AuthenticatedUser | undefined> {
    if (!isValidObjectId(userId)) return undefined;
    const record = await this.users.findOne({ _id: new Types.ObjectId(userId), roles: 'admin', revokedAt: { $exists: false } }).lean().exec();
    return record ? toUser(record) : undefined;
  }

  /** The user a key belongs to, if the key is well-formed, known, not revoked, and its user not revoked. */
  async authenticate(key: string): Promise<AuthenticatedUser | undefined> {
    const prefix = API_KEY_PATTERN.exec(key)?.[1];
    if (prefix === undefined) return undefined;
    const hash = sha256(key);
    const cached = this.verified.get(hash);
    if (cached && cached.until > Date.now()) return cached.user;
    const record = await this.apiKeys.findOne({ prefix }).lean().exec();
    if (!record || record.revokedAt || (record.expiresAt && record.expiresAt.getTime() <= Date.now())) return undefined;
    // Constant-time comparison: the prefix lookup is public, the hash comparison must not leak.
    if (!timingSafeEqual(Buffer.from(record.hash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
    const user = await this.users.findById(record.userId).lean().exec();
    if (!user || user.revokedAt) return undefined;
    if (this.verified.size >= AUTH_CACHE_MAX_ENTRIES) this.verified.clear();
    this.verified.set(hash, { user: toUser(user), until: Date.now() + AUTH_CACHE_TTL_MS });
    return toUser(user);
  }

  /**
   * The `local` user `troupe start` offers a login link for. Created (with a key, returned once) only
   * when there are no users at all, so a deployment whose operator manages users is left alone.
   * Undefined when other users exist but `local` does not, or `local` was revoked.
   */
  async ensureLocalUser(): Promise<{ user: AuthenticatedUser; key?: string } | undefined> {
    const existing = await this.users.findOne({ name: LOCAL_USER_NAME }).lean().exec();
    if (existing) return existing.revokedAt ? undefined : { user: toUser(existing) };
    if ((await this.users.countDocuments({}).exec()) > 0) return undefined;
    try {
      const { user, key } = await this.createUser(LOCAL_USER_NAME, 'local');
      return { user, key };
    } catch (error) {
      // Another process created it at the same moment.
      if (!(error instanceof ApiError && error.status === 409)) throw error;
      const created = await this.users.findOne({ name: LOCAL_USER_NAME }).lean().exec();
      return created && !created.revokedAt ? { user: toUser(created) } : undefined;
    }
  }

  /** A single-use token the web UI exchanges for an API key of `userId` within the TTL (15 minutes). */
  async createLoginToken(userId: string): Promise<{ token: string; expiresAt: Date }> {
    if (!isValidObjectId(userId)) throw new ApiError(404, 'not_found', `no user ${userId}`);
    const user = await this.users.findById(userId).lean().exec();
    if (!user || user.revokedAt) throw new ApiError(404, 'not_found', `no active user ${userId}`);
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    const expiresAt = new Date(now.getTime() + this.loginTokenTtlMs);
    await this.loginTokens.create({ _id: sha256(token), userId: user._id, createdAt: now, expiresAt });
    return { token, expiresAt };
  }

  /**
   * Spends a login token: deleted in the same operation that reads it, so it works once even when two
   * requests race. Returns a new API key (labelled web-login) — the user's existing keys are stored
   * hashed and cannot be handed out. Undefined for an unknown, used or expired token or a revoked user.
   */
  async exchangeLoginToken(token: string): Promise<{ user: AuthenticatedUser; apiKey: string } | undefined> {
    if (!LOGIN_TOKEN_PATTERN.test(token)) return undefined;
    const record = await this.loginTokens.findOneAndDelete({ _id: sha256(token) }).lean().exec();
    if (!record || record.expiresAt.getTime() <= Date.now()) return undefined;
    const user = await this.users.findById(record.userId).lean().exec();
    if (!user || user.revokedAt) return undefined;
    const { key } = await this.issueKeyFor(user._id, 'web-login');
    return { user: toUser(user), apiKey: key };
  }

  /** A user's own keys, newest first, without secrets (GET /me/keys). */
  async keysOf(userId: string): Promise<Array<KeySummary & { expiresAt?: Date }>> {
    if (!isValidObjectId(userId)) return [];
    const keys = await this.apiKeys.find({ userId: new Types.ObjectId(userId) }, { hash: 0 }).sort({ createdAt: -1 }).lean().exec();
    return keys.map((key) => ({
      prefix: key.prefix,
      label: key.label,
      createdAt: key.createdAt,
      ...(key.revokedAt ? { revokedAt: key.revokedAt } : {}),
      ...(key.expiresAt ? { expiresAt: key.expiresAt } : {}),
    }));
  }

  /** Another key for the signed-in user (POST /me/keys). */
  async createKeyFor(userId: string, label: string): Promise<IssuedKey> {
    if (!isValidObjectId(userId)) throw new ApiError(404, 'not_found', `no user ${userId}`);
    return this.issueKeyFor(new Types.ObjectId(userId), label);
  }

  /** Revokes one of the user's own keys by its prefix; another user's key is not found (DELETE /me/keys/:prefix). */
  async revokeKeyOf(userId: string, prefix: string): Promise<{ prefix: string; alreadyRevoked: boolean }> {
    const key = isValidObjectId(userId) ? await this.apiKeys.findOne({ prefix, userId: new Types.ObjectId(userId) }).lean().exec() : null;
    if (!key) throw new ApiError(404, 'not_found', `no API key ${prefix}`, { prefix });
    this.verified.clear();
    if (!key.revokedAt) await this.apiKeys.updateOne({ _id: key._id, revokedAt: { $exists: false } }, { $set: { revokedAt: new Date() } }).exec();
    return { prefix, alreadyRevoked: key.revokedAt !== undefined };
  }

  /** The user by name, if active (troupe login-link). */
  async activeUserNamed(name: string): Promise<AuthenticatedUser | undefined> {
    const record = await this.users.findOne({ name }).lean().exec();
    return record && !record.revokedAt ? toUser(record) : undefined;
  }

  /** When a user was created (GET /me). */
  async createdAt(userId: string): Promise<Date | undefined> {
    if (!isValidObjectId(userId)) return undefined;
    return (await this.users.findById(userId, { createdAt: 1 }).lean().exec())?.createdAt;
  }

  private issueKeyFor(userId: Types.ObjectId, label: string): Promise<IssuedKey> {
    return createApiKey(this.apiKeys, userId, label);
  }
}
