/**
 * Per-user limits per actor kind, decided at the gateway and taken as a message is enqueued:
 *
 * - a **rate limit**: POINTS messages per SECONDS, a fixed window. One counter per (kind, limit, user)
 *   that starts at the window's first message and expires with the window;
 * - a **concurrency cap**: turns a user may have queued or running at once, as a Redis lease semaphore.
 *   One sorted set per (kind, user): members are lease ids, scores their expiry in ms (Redis clock).
 *   The runtime's worker gives the lease back with exactly `ZREM lease.key lease.id` when the turn
 *   ends; a lease whose holder crashed is dropped by the next admission once it has expired (that is
 *   the crash recovery, hence the TTL).
 *
 * Both are checked and taken by one Lua function (queues/admission.ts): atomic across any number of
 * gateway processes, and a refusal by either limit takes nothing from the other. A message's admission
 * goes with its post (`enqueueAdmitted`): on one Redis server the post script checks the limits first,
 * so admitting and posting are one round trip. A user's limit keys share the user's hash tag, so on a
 * Redis Cluster they sit in one slot (and are checked just before the post, in a script of their own).
 *
 * Contract for callers: hand the admission `enqueueAdmitted` gives to ActorClient.send, which takes it
 * with the post; the message then carries its lease, which the worker releases when the turn ends. If
 * the send throws after the limits were taken, or enqueues nothing (an idempotency-key duplicate), the
 * lease is released here — no turn will ever release it otherwise, and the slot would stay taken until
 * the TTL. `admit()` checks and takes the limits on their own (bulk work, a run's messages).
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../queues/redis-client.js';
import type { AnyKind } from '../actors/runtime/contract.js';
import { admit, AdmissionRefused, defineAdmission, leaseOf, type Admission } from '../queues/admission.js';
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

export interface Admitted {
  /** Present when the kind has a concurrency cap: release it if nothing is enqueued. */
  lease?: Lease;
}

export interface AdmitOptions {
  /** false: check only the rate limit (bulk work holding no concurrency slot). */
  holdLease?: boolean;
  /** The message type: a kind's rate limit may count only some types. */
  type?: string;
  /** Rate-limit points this takes (a batch of sends takes one per send). */
  points?: number;
}

/** What one admission takes, and what a refusal of it says. */
interface AdmissionPlan {
  admission: Admission;
  cap: number | null;
  rate: RateLimit | null;
  noun: string;
}

export const DEFAULT_LEASE_TTL_MS = 10 * 60 * 1000;

export class UserLimits {
  private readonly redis: RedisClient;
  private readonly defaults: { rate: RateLimit | null; concurrent: number | null };
  private readonly overrides: KindLimitOverrides;
  private readonly leaseTtlMs: number;
  private readonly concurrencyRetryAfterSeconds: number;
  private readonly keyPrefix: string;
  private readonly onRefusal: NonNullable<UserLimitsOptions['onRefusal']>;

  constructor(redis: RedisClient, options: UserLimitsOptions = {}) {
    defineAdmission(redis);
    this.redis = redis;
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
  async admit(userId: string, kind: Pick<AnyKind, 'kind' | 'limits'>, options: AdmitOptions = {}): Promise<Admitted> {
    const plan = this.plan(userId, kind, options);
    if (!plan) return {};
    try {
      await admit(this.redis, plan.admission);
    } catch (error) {
      throw this.refusalOf(error, kind, plan);
    }
    const lease = leaseOf(plan.admission);
    return lease ? { lease } : {};
  }

  /**
   * What admitting one message takes, or undefined when the kind has no limit that applies. Throws the
   * 429 at once for a request no window could ever admit (more points than the limit).
   */
  private plan(userId: string, kind: Pick<AnyKind, 'kind' | 'limits'>, { holdLease = true, type, points = 1 }: AdmitOptions): AdmissionPlan | undefined {
    const limits = this.limitsOf(kind);
    const counts = kind.limits?.rateCounts;
    // A message type the kind's rate limit does not count (a run's approvals) passes the rate limit.
    if (counts && type !== undefined && !counts.types.includes(type)) limits.rate = null;
    const cap = holdLease ? limits.concurrent : null;
    const rate = limits.rate;
    if (cap === null && rate === null) return undefined;
    const noun = counts?.noun ?? 'messages';
    if (rate !== null && points > rate.points) {
      throw this.refused(kind.kind, 'rate', tooMany('rate_limited', `at most ${rate.points} ${kind.kind} ${noun} per ${rate.durationSeconds} s per user; this asks for ${points}`, rate.durationSeconds, {
        kind: kind.kind,
        limit: rate.points,
        windowSeconds: rate.durationSeconds,
        requested: points,
      }));
    }
    // Unused keys are given as the used one: a script's keys must all hash to one slot on a cluster.
    const leaseKey = cap !== null ? this.leaseKey(kind.kind, userId) : this.rateKey(kind.kind, rate!, userId);
    const rateKey = rate !== null ? this.rateKey(kind.kind, rate, userId) : leaseKey;
    const admission: Admission = {
      leaseKey,
      rateKey,
      leaseId: cap !== null ? randomUUID() : '',
      cap: cap ?? 0,
      leaseTtlMs: this.leaseTtlMs,
      ratePoints: rate?.points ?? 0,
      windowMs: (rate?.durationSeconds ?? 0) * 1000,
      points,
    };
    return { admission, cap, rate, noun };
  }

  /** The 429 for a refused admission (anything else is passed on as it is). */
  private refusalOf(error: unknown, kind: Pick<AnyKind, 'kind'>, plan: AdmissionPlan): unknown {
    if (!(error instanceof AdmissionRefused)) return error;
    const { cap, rate, noun } = plan;
    if (error.limit === 'concurrency') {
      const untilOldestExpires = Math.max(1, Math.ceil(error.waitMs / 1000));
      return this.refused(kind.kind, 'concurrency', tooMany(
        'too_many_concurrent',
        `at most ${cap} ${kind.kind} turns may be queued or running at once per user; wait for one to finish`,
        Math.min(untilOldestExpires, this.concurrencyRetryAfterSeconds),
        { kind: kind.kind, limit: cap },
      ));
    }
    return this.refused(kind.kind, 'rate', tooMany(
      'rate_limited',
      `at most ${rate!.points} ${kind.kind} ${noun} per ${rate!.durationSeconds} s per user`,
      Math.max(1, Math.ceil(error.waitMs / 1000)),
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
   * enqueue(admission) -> 429 if the limits refused it -> release the lease if the enqueue threw after
   * taking it or enqueued nothing (`duplicate`). `enqueue` hands the admission to ActorClient.send (it
   * is undefined when no limit applies). The one place that contract is written out.
   */
  async enqueueAdmitted<T extends { duplicate?: boolean }>(
    userId: string,
    kind: Pick<AnyKind, 'kind' | 'limits'>,
    enqueue: (admission: Admission | undefined) => Promise<T>,
    type?: string,
  ): Promise<T> {
    const plan = this.plan(userId, kind, { type });
    const lease = leaseOf(plan?.admission);
    let result: T;
    try {
      result = await enqueue(plan?.admission);
    } catch (error) {
      if (plan && error instanceof AdmissionRefused) throw this.refusalOf(error, kind, plan);
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
