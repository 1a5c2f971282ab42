/**
 * Per-user limits per actor kind, checked at the gateway before anything is enqueued:
 *
 * - a **rate limit**: POINTS messages per SECONDS, a fixed window. One counter per (kind, limit, user)
 *   that starts at the window's first message and expires with the window;
 * - a **concurrency cap**: turns a user may have queued or running at once, as a Redis lease semaphore.
 *   One sorted set per (kind, user): members are lease ids, scores their expiry in ms (Redis clock).
 *   The runtime's worker gives the lease back with exactly `ZREM lease.key lease.id` when the turn
 *   ends; a lease whose holder crashed is dropped by the next admission once it has expired (that is
 *   the crash recovery, hence the TTL).
 *
 * Both are checked and taken by one Lua script (`ADMIT`): one round trip per message, atomic across
 * any number of gateway processes, and a refusal by either limit takes nothing from the other. A
 * user's limit keys share the user's hash tag, so on a Redis Cluster they sit in one slot.
 *
 * Contract for callers: `admit()` before enqueueing; pass the lease with the message (SendInput.lease);
 * if the enqueue throws, or enqueues nothing (an idempotency-key duplicate), call `release(lease)` —
 * no turn will ever release it otherwise, and the slot would stay taken until the TTL. `enqueueAdmitted`
 * does exactly that.
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../queues/redis-client.js';
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
 * KEYS[1] lease set, KEYS[2] rate counter (either may be unused: its ARGV says so).
 * ARGV: [1] lease id ('' = no cap), [2] cap, [3] lease ttl ms, [4] rate points per window (0 = no rate
 * limit), [5] window ms, [6] points this request takes.
 * Returns {1, lease expiry} when admitted; {0, 'concurrency', ms until the oldest lease expires} or
 * {0, 'rate', ms until the window ends} when refused, having taken nothing. Both checks come before
 * either write, so a refusal by one limit never holds a slot of the other. The Redis clock is used so
 * gateways with skewed clocks agree.
 */
const ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local leaseId, ttl = ARGV[1], tonumber(ARGV[3])
local ratePoints, windowMs, points = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
if leaseId ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
    local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
    return {0, 'concurrency', tonumber(oldest[2]) - now}
  end
end
if ratePoints > 0 then
  local used = tonumber(redis.call('GET', KEYS[2]) or '0')
  if used + points > ratePoints then
    return {0, 'rate', math.max(redis.call('PTTL', KEYS[2]), 0)}
  end
end
if leaseId ~= '' then
  redis.call('ZADD', KEYS[1], now + ttl, leaseId)
  -- the newest lease expires last: the set need not outlive it
  redis.call('PEXPIRE', KEYS[1], ttl)
end
if ratePoints > 0 then
  redis.call('INCRBY', KEYS[2], points)
  -- the window starts with its first point (a counter left without an expiry gets one too)
  if redis.call('PTTL', KEYS[2]) < 0 then redis.call('PEXPIRE', KEYS[2], windowMs) end
end
return {1, now + ttl}
`;

type AdmitAnswer = [1, number] | [0, 'concurrency' | 'rate', number];

interface AdmitCommand {
  troupeAdmit(leaseKey: string, rateKey: string, leaseId: string, cap: number, leaseTtlMs: number, ratePoints: number, windowMs: number, points: number): Promise<AdmitAnswer>;
}

export class UserLimits {
  private readonly redis: RedisClient & AdmitCommand;
  private readonly defaults: { rate: RateLimit | null; concurrent: number | null };
  private readonly overrides: KindLimitOverrides;
  private readonly leaseTtlMs: number;
  private readonly concurrencyRetryAfterSeconds: number;
  private readonly keyPrefix: string;
  private readonly onRefusal: NonNullable<UserLimitsOptions['onRefusal']>;

  constructor(redis: RedisClient, options: UserLimitsOptions = {}) {
    // defineCommand sends the script once and then calls it by SHA (reloading it after a Redis restart).
    redis.defineCommand('troupeAdmit', { numberOfKeys: 2, lua: ADMIT });
    this.redis = redis as RedisClient & AdmitCommand;
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
    const cap = holdLease ? limits.concurrent : null;
    const rate = limits.rate;
    if (cap === null && rate === null) return {};
    const noun = counts?.noun ?? 'messages';
    if (rate !== null && points > rate.points) {
      throw this.refused(kind.kind, 'rate', tooMany('rate_limited', `at most ${rate.points} ${kind.kind} ${noun} per ${rate.durationSeconds} s per user; this asks for ${points}`, rate.durationSeconds, {
        kind: kind.kind,
        limit: rate.points,
        windowSeconds: rate.durationSeconds,
        requested: points,
      }));
    }
    const lease = cap !== null ? { key: this.leaseKey(kind.kind, userId), id: randomUUID() } : undefined;
    // Unused keys are given as the used one: a script's keys must all hash to one slot on a cluster.
    const leaseKey = lease?.key ?? this.rateKey(kind.kind, rate!, userId);
    const rateKey = rate !== null ? this.rateKey(kind.kind, rate, userId) : leaseKey;
    const answer = await this.redis.troupeAdmit(leaseKey, rateKey, lease?.id ?? '', cap ?? 0, this.leaseTtlMs, rate?.points ?? 0, (rate?.durationSeconds ?? 0) * 1000, points);
    if (answer[0] === 1) return lease ? { lease } : {};
    const [, limit, waitMs] = answer;
    if (limit === 'concurrency') {
      const untilOldestExpires = Math.max(1, Math.ceil(Number(waitMs) / 1000));
      throw this.refused(kind.kind, 'concurrency', tooMany(
        'too_many_concurrent',
        `at most ${cap} ${kind.kind} turns may be queued or running at once per user; wait for one to finish`,
        Math.min(untilOldestExpires, this.concurrencyRetryAfterSeconds),
        { kind: kind.kind, limit: cap },
      ));
    }
    throw this.refused(kind.kind, 'rate', tooMany(
      'rate_limited',
      `at most ${rate!.points} ${kind.kind} ${noun} per ${rate!.durationSeconds} s per user`,
      Math.max(1, Math.ceil(Number(waitMs) / 1000)),
      { kind: kind.kind, limit: rate!.points, windowSeconds: rate!.durationSeconds },
    ));
  }

  /** Reports a refusal by the limit and hands back what to throw. */
  private refused(kindName: string, limit: 'rate' | 'concurrency', error: ApiError): ApiError {
    this.onRefusal(kindName, limit);
    return error;
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
      limits.rate ? this.rateUsed(this.rateKey(kind.kind, limits.rate, userId)) : null,
      limits.concurrent !== null ? this.leasesHeld(userId, kind.kind) : 0,
    ]);
    return {
      kind: kind.kind,
      rate: limits.rate
        ? {
            points: limits.rate.points,
            windowSeconds: limits.rate.durationSeconds,
            counts: kind.limits?.rateCounts?.noun ?? 'messages',
            used: rate?.used ?? 0,
            remaining: Math.max(0, limits.rate.points - (rate?.used ?? 0)),
            resetsInSeconds: rate ? Math.ceil(rate.msLeft / 1000) : 0,
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

  /**
   * The counter of one user's window for one kind and limit. The limit is in the name, so changing a
   * kind's limit starts fresh windows rather than reading counts made under another limit.
   */
  private rateKey(kindName: string, rate: RateLimit, userId: string): string {
    return `${this.keyPrefix}:rate:${kindName}:${rate.points}:${rate.durationSeconds}:${this.userTag(userId)}`;
  }

  /** Points used in the window now open and the ms until it ends; null when no window is open. */
  private async rateUsed(key: string): Promise<{ used: number; msLeft: number } | null> {
    const [used, msLeft] = await Promise.all([this.redis.get(key), this.redis.pttl(key)]);
    return used === null ? null : { used: Number(used), msLeft: Math.max(0, msLeft) };
  }
}

function tooMany(code: 'rate_limited' | 'too_many_concurrent', message: string, retryAfterSeconds: number, details: Record<string, unknown>): ApiError {
  return new ApiError(429, code, message, { ...details, retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
}
