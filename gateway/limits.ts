/**
 * Per-user limits per actor kind, checked at the gateway before anything is enqueued:
 *
 * - a **rate limit** (rate-limiter-flexible's RateLimiterRedis: POINTS messages per SECONDS window);
 * - a **concurrency cap**: turns a user may have queued or running at once, as a Redis lease semaphore.
 *   One sorted set per (kind, user): members are lease ids, scores their expiry in ms (Redis clock).
 *   Acquiring is one Lua script (drop expired members, admit if fewer than the cap, add the lease), so
 *   the cap holds across any number of gateway processes. The runtime's worker gives the lease back
 *   with exactly `ZREM lease.key lease.id` when the turn ends; a lease whose holder crashed is dropped
 *   by the next acquire once it has expired (that is the crash recovery, hence the TTL).
 *
 * Contract for callers: `admit()` before enqueueing; pass the lease with the message (SendInput.lease);
 * if the enqueue throws, or enqueues nothing (an idempotency-key duplicate), call `release(lease)` —
 * no turn will ever release it otherwise, and the slot would stay taken until the TTL. `enqueueAdmitted`
 * does exactly that.
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../queues/redis-client.js';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { AnyKind } from '../actors/runtime/contract.js';
import type { Lease } from '../queues/envelope.js';
import { DEFAULT_PREFIX } from '../queues/keys.js';
import type { KindLimitOverrides, RateLimit } from './kind-limits.js';
import { ApiError } from './error-response.js';

export type { Lease } from '../queues/envelope.js';

export interface UserLimitsOptions {
  /** Limits of kinds that declare none themselves. */
  defaults?: { rate?: RateLimit; concurrent?: number };
  /** Per-kind overrides (KIND_LIMITS); they win over the kind's own `limits`. `null` = no limit. */
  kinds?: KindLimitOverrides;
  /** A lease not released within this long counts as abandoned (crashed holder). Default 10 minutes. */
  leaseTtlMs?: number;
  /**
   * Retry-After for a refused concurrent turn, unless the oldest lease expires sooner. Leases are
   * normally released when a turn ends, long before they expire, so the expiry itself is no useful hint.
   */
  concurrencyRetryAfterSeconds?: number;
  /** Redis key prefix (tests use a unique one per run). Default `troupe`. */
  keyPrefix?: string;
  /** Told of every refusal, by kind and the limit that refused (metrics). */
  onRefusal?: (kind: string, limit: 'rate' | 'concurrency') => void;
}

/** The limits in force for one kind. */
export interface EffectiveLimits {
  rate: RateLimit | null;
  concurrent: number | null;
}

export interface KindUsage {
  kind: string;
  rate: { points: number; windowSeconds: number; counts: string; used: number; remaining: number; resetsInSeconds: number } | null;
  concurrent: { limit: number; inUse: number } | null;
}

export interface Admission {
  /** Present when the kind has a concurrency cap: send it with the message, release it if nothing is enqueued. */
  lease?: Lease;
}

export const DEFAULT_LEASE_TTL_MS = 10 * 60 * 1000;

/**
 * KEYS[1] lease set; ARGV: lease id, cap, ttl ms. Returns {1, expiry} when admitted, {0, ms until the
 * oldest lease expires} when full. The Redis clock is used so gateways with skewed clocks agree.
 */
const ACQUIRE_LEASE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
  -- the newest lease expires last: the set need not outlive it
  redis.call('PEXPIRE', KEYS[1], ttl)
  return {1, now + ttl}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tonumber(oldest[2]) - now}
`;

interface LeaseCommands {
  troupeAcquireLease(key: string, id: string, cap: number, ttlMs: number): Promise<[number, number]>;
}

export class UserLimits {
  private readonly redis: RedisClient & LeaseCommands;
  private readonly defaults: { rate: RateLimit | null; concurrent: number | null };
  private readonly overrides: KindLimitOverrides;
  private readonly leaseTtlMs: number;
  private readonly concurrencyRetryAfterSeconds: number;
  private readonly keyPrefix: string;
  private readonly onRefusal: NonNullable<UserLimitsOptions['onRefusal']>;
  private readonly rateLimiters = new Map<string, RateLimiterRedis>();

  constructor(redis: RedisClient, options: UserLimitsOptions = {}) {
    // defineCommand sends the script once and then calls it by SHA (reloading it after a Redis restart).
    redis.defineCommand('troupeAcquireLease', { numberOfKeys: 1, lua: ACQUIRE_LEASE });
    // A RateLimiterRedis defines its script command on the client when it is made. Made lazily, in a
    // tick whose commands ioredis is already auto-pipelining, that pipeline lacks the command and
    // ioredis throws (redis/ioredis#1931, fixed upstream after 6.0.0). Making one now defines it first.
    new RateLimiterRedis({ storeClient: redis, points: 1, duration: 1 });
    this.redis = redis as RedisClient & LeaseCommands;
    this.defaults = { rate: options.defaults?.rate ?? null, concurrent: options.defaults?.concurrent ?? null };
    this.overrides = options.kinds ?? {};
    this.leaseTtlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
    this.concurrencyRetryAfterSeconds = options.concurrencyRetryAfterSeconds ?? 5;
    this.keyPrefix = options.keyPrefix ?? DEFAULT_PREFIX;
    this.onRefusal = options.onRefusal ?? (() => undefined);
  }

  /** Override, else the kind's own limit, else the default; per setting. */
  limitsOf(kind: Pick<AnyKind, 'kind' | 'limits'>): EffectiveLimits {
    const override = Object.hasOwn(this.overrides, kind.kind) ? this.overrides[kind.kind]! : {};
    return {
      rate: override.rate !== undefined ? override.rate : (kind.limits?.rate ?? this.defaults.rate),
      concurrent: override.concurrent !== undefined ? override.concurrent : (kind.limits?.concurrent ?? this.defaults.concurrent),
    };
  }

  /** The lease set of one user for one kind. A user's limit keys share a hash tag: one cluster slot per user. */
  leaseKey(kindName: string, userId: string): string {
    return `${this.keyPrefix}:lease:${this.userTag(userId)}:${kindName}`;
  }

  private userTag(userId: string): string {
    return `{${this.keyPrefix}:u:${userId}}`;
  }

  /**
   * Takes a concurrency slot (if the kind is capped) and a rate-limit point, together. Throws ApiError 429
   * `too_many_concurrent` or `rate_limited` with `retryAfterSeconds` and a Retry-After header; on a
   * refusal nothing is held. `holdLease: false` checks only the rate limit (bulk work holding no slot).
   */
  async admit(
    userId: string,
    kind: Pick<AnyKind, 'kind' | 'limits'>,
    { holdLease = true, type, points = 1 }: { holdLease?: boolean; type?: string; points?: number } = {},
  ): Promise<Admission> {
    const limits = this.limitsOf(kind);
    const counts = kind.limits?.rateCounts;
    // A message type the kind's rate limit does not count (a run's approvals) passes the rate limit.
    if (counts && type !== undefined && !counts.types.includes(type)) limits.rate = null;
    // Both checks go out together (one Redis write); whichever refuses, the other is undone.
    const [leased, rated] = await Promise.allSettled([
      holdLease && limits.concurrent !== null ? this.acquireLease(userId, kind.kind, limits.concurrent) : undefined,
      limits.rate !== null ? this.consumeRatePoints(userId, kind.kind, limits.rate, points, counts?.noun) : undefined,
    ]);
    if (leased.status === 'rejected') {
      if (rated.status === 'fulfilled' && limits.rate !== null) await this.refundRatePoints(userId, kind.kind, limits.rate, points);
      throw this.refused(kind.kind, 'concurrency', leased.reason);
    }
    if (rated.status === 'rejected') {
      if (leased.value) await this.release(leased.value);
      throw this.refused(kind.kind, 'rate', rated.reason);
    }
    return leased.value ? { lease: leased.value } : {};
  }

  /** Reports a refusal by the limit (a Redis failure is no refusal) and hands back what to throw. */
  private refused(kindName: string, limit: 'rate' | 'concurrency', reason: unknown): unknown {
    if (reason instanceof ApiError && reason.status === 429) this.onRefusal(kindName, limit);
    return reason;
  }

  /** Gives a slot back; the runtime does the same (`ZREM key id`) when a turn ends. Idempotent. */
  async release(lease: Lease): Promise<void> {
    await this.redis.zrem(lease.key, lease.id);
  }

  /**
   * admit -> enqueue(lease) -> release the lease if the enqueue threw or enqueued nothing (`duplicate`).
   * The one place the "caller releases on a failed enqueue" contract is written out.
   */
  async enqueueAdmitted<T extends { duplicate?: boolean }>(
    userId: string,
    kind: Pick<AnyKind, 'kind' | 'limits'>,
    enqueue: (lease: Lease | undefined) => Promise<T>,
    type?: string,
  ): Promise<T> {
    const { lease } = await this.admit(userId, kind, { type });
    let result: T;
    try {
      result = await enqueue(lease);
    } catch (error) {
      if (lease) await this.release(lease);
      throw error;
    }
    if (result.duplicate === true && lease) await this.release(lease);
    return result;
  }

  /** A user's standing against a kind's limits now (GET /me/usage): what is used, and what remains. */
  async usage(userId: string, kind: Pick<AnyKind, 'kind' | 'limits'>): Promise<KindUsage> {
    const limits = this.limitsOf(kind);
    const [rate, leases] = await Promise.all([
      limits.rate ? this.rateLimiter(kind.kind, limits.rate).get(this.userTag(userId)) : null,
      limits.concurrent !== null ? this.leasesHeld(userId, kind.kind) : 0,
    ]);
    return {
      kind: kind.kind,
      rate: limits.rate
        ? {
            points: limits.rate.points,
            windowSeconds: limits.rate.durationSeconds,
            counts: kind.limits?.rateCounts?.noun ?? 'messages',
            used: rate?.consumedPoints ?? 0,
            remaining: Math.max(0, limits.rate.points - (rate?.consumedPoints ?? 0)),
            resetsInSeconds: rate ? Math.ceil(rate.msBeforeNext / 1000) : 0,
          }
        : null,
      concurrent: limits.concurrent !== null ? { limit: limits.concurrent, inUse: leases } : null,
    };
  }

  /** Leases a user currently holds for a kind (expired ones excluded), for diagnostics and tests. */
  async leasesHeld(userId: string, kindName: string): Promise<number> {
    const [seconds, micros] = await this.redis.time();
    const nowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    return this.redis.zcount(this.leaseKey(kindName, userId), `(${nowMs}`, '+inf');
  }

  private async acquireLease(userId: string, kindName: string, cap: number): Promise<Lease> {
    const lease = { key: this.leaseKey(kindName, userId), id: randomUUID() };
    const [admitted, value] = await this.redis.troupeAcquireLease(lease.key, lease.id, cap, this.leaseTtlMs);
    if (admitted === 1) return lease;
    const untilOldestExpires = Math.max(1, Math.ceil(Number(value) / 1000));
    throw tooMany(
      'too_many_concurrent',
      `at most ${cap} ${kindName} turns may be queued or running at once per user; wait for one to finish`,
      Math.min(untilOldestExpires, this.concurrencyRetryAfterSeconds),
      { kind: kindName, limit: cap },
    );
  }

  private async consumeRatePoints(userId: string, kindName: string, rate: RateLimit, points: number, noun = 'messages'): Promise<void> {
    if (points > rate.points) {
      throw tooMany('rate_limited', `at most ${rate.points} ${kindName} ${noun} per ${rate.durationSeconds} s per user; this asks for ${points}`, rate.durationSeconds, {
        kind: kindName,
        limit: rate.points,
        windowSeconds: rate.durationSeconds,
        requested: points,
      });
    }
    try {
      await this.rateLimiter(kindName, rate).consume(this.userTag(userId), points);
    } catch (rejection) {
      // A RateLimiterRes means "over the limit"; anything else is a Redis failure and stays a 5xx.
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw tooMany(
        'rate_limited',
        `at most ${rate.points} ${kindName} ${noun} per ${rate.durationSeconds} s per user`,
        Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
        { kind: kindName, limit: rate.points, windowSeconds: rate.durationSeconds },
      );
    }
  }

  /** Gives back the point a request took when it was refused for another reason (the concurrency cap). */
  private async refundRatePoints(userId: string, kindName: string, rate: RateLimit, points: number): Promise<void> {
    await this.rateLimiter(kindName, rate).reward(this.userTag(userId), points);
  }

  private rateLimiter(kindName: string, rate: RateLimit): RateLimiterRedis {
    const id = `${kindName}/${rate.points}/${rate.durationSeconds}`;
    let limiter = this.rateLimiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.redis,
        keyPrefix: `${this.keyPrefix}:rate:${kindName}:${rate.points}:${rate.durationSeconds}`,
        points: rate.points,
        duration: rate.durationSeconds,
      });
      this.rateLimiters.set(id, limiter);
    }
    return limiter;
  }
}

function tooMany(code: 'rate_limited' | 'too_many_concurrent', message: string, retryAfterSeconds: number, details: Record<string, unknown>): ApiError {
  return new ApiError(429, code, message, { ...details, retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
}
