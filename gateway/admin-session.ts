/**
 * Browser sessions for the admin pages. A browser cannot put an API key on a navigation, so an admin
 * trades their key (POST /admin/session, Bearer) for a cookie. The cookie holds a random token, never
 * the key; Redis keeps only the token's sha256, with the user id, under REDIS_PREFIX, and its TTL ends
 * the session. Whether the user is still an active admin is checked on every request, not here.
 */
import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../queues/redis-client.js';
import type { Context } from 'koa';
import { z } from 'zod';
import { sha256 } from './users.js';

export const ADMIN_SESSION_COOKIE = 'troupe_admin';
/** Short: the cookie opens a dashboard that can retry, clean and pause every queue. */
export const ADMIN_SESSION_TTL_MS = 30 * 60 * 1000;
/** The cookie goes only to the admin routes, never to the API or the web client. */
export const ADMIN_COOKIE_PATH = '/admin';

/** 256 random bits, base64url. */
const SessionToken = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

export class AdminSessions {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    readonly ttlMs: number = ADMIN_SESSION_TTL_MS,
  ) {}

  /** A new session for `userId`; the token is returned once, for the cookie. */
  async start(userId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.redis.set(this.key(token), userId, 'PX', this.ttlMs);
    return token;
  }

  /** The user id of a live session, or undefined (no, malformed, unknown or expired token). */
  async userOf(token: string | undefined): Promise<string | undefined> {
    const parsed = SessionToken.safeParse(token);
    if (!parsed.success) return undefined;
    return (await this.redis.get(this.key(parsed.data))) ?? undefined;
  }

  async end(token: string | undefined): Promise<void> {
    const parsed = SessionToken.safeParse(token);
    if (parsed.success) await this.redis.del(this.key(parsed.data));
  }

  /** Hashed, so a Redis dump or `KEYS` listing holds no usable token. */
  key(token: string): string {
    return `${this.prefix}:admin-session:${sha256(token)}`;
  }
}

/**
 * Behind a TLS-terminating proxy `ctx.secure` is false; X-Forwarded-Proto may say https. Trusting it
 * is safe here: a forged `https` only makes the browser withhold the cookie on plain HTTP.
 */
function isHttps(ctx: Context): boolean {
  return ctx.secure || ctx.get('x-forwarded-proto').split(',')[0]!.trim().toLowerCase() === 'https';
}

/** Written by hand: Koa's cookies refuse `Secure` on a connection they do not see as TLS. */
function cookieHeader(ctx: Context, value: string, maxAgeSeconds: number): string {
  const attributes = [`${ADMIN_SESSION_COOKIE}=${value}`, `Path=${ADMIN_COOKIE_PATH}`, `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict'];
  if (isHttps(ctx)) attributes.push('Secure');
  return attributes.join('; ');
}

export function setSessionCookie(ctx: Context, token: string, ttlMs: number): void {
  ctx.append('Set-Cookie', cookieHeader(ctx, token, Math.floor(ttlMs / 1000)));
}

export function clearSessionCookie(ctx: Context): void {
  ctx.append('Set-Cookie', cookieHeader(ctx, '', 0));
}

export function sessionTokenOf(ctx: Context): string | undefined {
  return ctx.cookies.get(ADMIN_SESSION_COOKIE) || undefined;
}
