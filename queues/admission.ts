/**
 * A message's admission under its sender's limits, checked in Redis: a concurrency lease and rate-limit
 * points, taken together or not at all (the policy — which limits, what a refusal says — is the
 * gateway's: gateway/limits.ts). The check is a Lua function so that the mailbox's post script can run
 * it first on one Redis server: the message is admitted and posted in one round trip. On a Redis
 * Cluster a user's limit keys (tagged by user) sit in another slot than the actor's mailbox (tagged by
 * partition), so there the check runs as a script of its own, just before the post.
 *
 * A lease set is a sorted set per (kind, user): members are lease ids, scores their expiry in ms (Redis
 * clock). The worker gives a lease back with `ZREM` when the turn ends; one whose holder crashed is
 * dropped by the next admission once it has expired. A rate counter counts the points of one fixed
 * window and expires with it.
 */
import type { Lease } from './envelope.js';
import type { RedisClient } from './redis-client.js';

/**
 * `admit(lease_key, rate_key, lease_id, cap, ttl, rate_points, window_ms, points)`: {1, lease expiry}
 * when admitted; {0, 'concurrency', ms until the oldest lease expires} or {0, 'rate', ms until the
 * window ends} when refused, having taken nothing. Both checks come before either write, so a refusal
 * by one limit never holds a slot of the other. The Redis clock is used so that gateways with skewed
 * clocks agree.
 */
export const ADMIT_LUA = `
local function admit(lease_key, rate_key, lease_id, cap, ttl, rate_points, window_ms, points)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  if lease_id ~= '' then
    redis.call('ZREMRANGEBYSCORE', lease_key, '-inf', now)
    if redis.call('ZCARD', lease_key) >= cap then
      local oldest = redis.call('ZRANGE', lease_key, 0, 0, 'WITHSCORES')
      return {0, 'concurrency', tonumber(oldest[2]) - now}
    end
  end
  if rate_points > 0 then
    local used = tonumber(redis.call('GET', rate_key) or '0')
    if used + points > rate_points then
      return {0, 'rate', math.max(redis.call('PTTL', rate_key), 0)}
    end
  end
  if lease_id ~= '' then
    redis.call('ZADD', lease_key, now + ttl, lease_id)
    -- the newest lease expires last: the set need not outlive it
    redis.call('PEXPIRE', lease_key, ttl)
  end
  if rate_points > 0 then
    redis.call('INCRBY', rate_key, points)
    -- the window starts with its first point (a counter left without an expiry gets one too)
    if redis.call('PTTL', rate_key) < 0 then redis.call('PEXPIRE', rate_key, window_ms) end
  end
  return {1, now + ttl}
end`;

/** Calls `admit` with its keys at KEYS[k], KEYS[k + 1] and its numbers from ARGV[a] on. */
export const admitCall = (k: number, a: number): string =>
  `admit(KEYS[${k}], KEYS[${k + 1}], ARGV[${a}], tonumber(ARGV[${a + 1}]), tonumber(ARGV[${a + 2}]), tonumber(ARGV[${a + 3}]), tonumber(ARGV[${a + 4}]), tonumber(ARGV[${a + 5}]))`;

/** KEYS: lease set, rate counter; ARGV: lease id, cap, lease ttl, rate points, window ms, points. */
const ADMIT = `${ADMIT_LUA}
return ${admitCall(1, 1)}`;

/**
 * What to take for one message. An unused key is given as the used one (a script's keys must all hash
 * to one slot on a cluster): `leaseId` '' takes no lease, `ratePoints` 0 checks no rate.
 */
export interface Admission {
  leaseKey: string;
  rateKey: string;
  leaseId: string;
  cap: number;
  leaseTtlMs: number;
  ratePoints: number;
  windowMs: number;
  points: number;
}

export type AdmissionAnswer = [1, number] | [0, 'concurrency' | 'rate', number];

/** The admission was refused: nothing was taken, nothing posted. */
export class AdmissionRefused extends Error {
  constructor(
    readonly limit: 'concurrency' | 'rate',
    /** Until the oldest lease expires, or until the rate window ends. */
    readonly waitMs: number,
  ) {
    super(`refused by the ${limit} limit`);
    this.name = 'AdmissionRefused';
  }
}

/** The lease a message holds once admitted (the worker releases it when the turn ends), if any. */
export const leaseOf = (admission: Admission | undefined): Lease | undefined =>
  admission && admission.leaseId !== '' ? { key: admission.leaseKey, id: admission.leaseId } : undefined;

/** The keys, then the arguments, as `ADMIT_LUA`'s callers take them. */
export const admissionKeys = (a: Admission): [string, string] => [a.leaseKey, a.rateKey];
export const admissionArgs = (a: Admission): string[] => [a.leaseId, String(a.cap), String(a.leaseTtlMs), String(a.ratePoints), String(a.windowMs), String(a.points)];

interface AdmitCommand {
  troupeAdmit(leaseKey: string, rateKey: string, ...args: string[]): Promise<AdmissionAnswer>;
}

/** Defines the admission script on a connection (ioredis sends it once, then calls it by its SHA). */
export function defineAdmission(redis: RedisClient): void {
  redis.defineCommand('troupeAdmit', { numberOfKeys: 2, lua: ADMIT });
}

/** Runs the admission alone (on a connection `defineAdmission` was called on); throws AdmissionRefused. */
export async function admit(redis: RedisClient, admission: Admission): Promise<void> {
  settle(await (redis as RedisClient & AdmitCommand).troupeAdmit(...admissionKeys(admission), ...admissionArgs(admission)));
}

/** Throws AdmissionRefused for a refusal. */
export function settle(answer: AdmissionAnswer): void {
  if (answer[0] === 0) throw new AdmissionRefused(answer[1], Number(answer[2]));
}
