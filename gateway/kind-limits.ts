import { z } from 'zod';

/** Messages a user may send per window. */
export interface RateLimit {
  points: number;
  durationSeconds: number;
}

/**
 * What KIND_LIMITS says about one actor kind. `null` = explicitly no limit (overrides the kind's own
 * limit and the default); an absent field leaves the kind's own limit (or the default) in force.
 */
export interface KindLimitOverride {
  rate?: RateLimit | null;
  concurrent?: number | null;
}

export type KindLimitOverrides = Record<string, KindLimitOverride>;

export const KIND_LIMITS_FORM =
  'KIND:rate=POINTS/SECONDS,concurrent=N entries separated by ";" (either setting may be "none"; ' +
  'e.g. "scouting:rate=10/3600,concurrent=3;game:concurrent=20")';

// Same rule as queues/envelope.ts ActorKindName, repeated so config does not load the runtime.
const KIND_NAME = /^[a-z][a-z0-9-]{0,39}$/;
const POSITIVE_INTEGER = /^[1-9]\d{0,8}$/;

/**
 * Parses KIND_LIMITS. Throws with a message naming the entry at fault; the zod schema below turns that
 * into a config problem.
 */
export function parseKindLimits(text: string): KindLimitOverrides {
  const overrides: KindLimitOverrides = {};
  for (const rawEntry of text.split(';')) {
    const entry = rawEntry.trim();
    if (entry === '') continue; // tolerate a trailing ";"
    const colon = entry.indexOf(':');
    if (colon < 0) throw new Error(`"${entry}" has no "KIND:"`);
    const kind = entry.slice(0, colon).trim();
    if (!KIND_NAME.test(kind)) throw new Error(`"${kind}" is not an actor kind name (lower-case letters, digits, dashes)`);
    if (Object.hasOwn(overrides, kind)) throw new Error(`kind "${kind}" appears twice`);
    const override: KindLimitOverride = {};
    const settings = entry.slice(colon + 1).split(',').map((s) => s.trim()).filter((s) => s !== '');
    if (settings.length === 0) throw new Error(`"${entry}" sets nothing`);
    for (const setting of settings) {
      const [name, value, ...rest] = setting.split('=').map((s) => s.trim());
      if (value === undefined || rest.length > 0) throw new Error(`"${setting}" (in ${kind}) is not NAME=VALUE`);
      if (Object.hasOwn(override, name!)) throw new Error(`${kind} sets ${name} twice`);
      if (name === 'rate') override.rate = parseRate(value, kind);
      else if (name === 'concurrent') override.concurrent = parseConcurrent(value, kind);
      else throw new Error(`unknown setting "${name}" for ${kind} (rate or concurrent)`);
    }
    overrides[kind] = override;
  }
  return overrides;
}

function parseRate(value: string, kind: string): RateLimit | null {
  if (value === 'none') return null;
  const [points, seconds, ...rest] = value.split('/');
  if (rest.length > 0 || !POSITIVE_INTEGER.test(points ?? '') || !POSITIVE_INTEGER.test(seconds ?? '')) {
    throw new Error(`${kind} rate "${value}" is not POINTS/SECONDS with positive integers (or none)`);
  }
  return { points: Number(points), durationSeconds: Number(seconds) };
}

function parseConcurrent(value: string, kind: string): number | null {
  if (value === 'none') return null;
  if (!POSITIVE_INTEGER.test(value)) throw new Error(`${kind} concurrent "${value}" is not a positive integer (or none)`);
  return Number(value);
}

/** The KIND_LIMITS variable: a string in, validated overrides out, with a message naming the bad entry. */
export function kindLimitsVariable() {
  return z.string().transform((text, ctx) => {
    try {
      return parseKindLimits(text);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `${KIND_LIMITS_FORM}; ${(error as Error).message}` });
      return z.NEVER;
    }
  });
}
