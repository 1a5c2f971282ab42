/**
 * The plan shown at gate A (spec FR-02, FR-07): the default template adapted to the player and
 * sport, with query hints, and the checks on a plan the user edited (spec 7.2). Pure.
 */
import { cleanText } from './intake.js';
import { LIMITS, type Sport } from './schemas.js';

export interface Plan {
  plan_steps: string[];
  query_hints: string[];
}

/** Hints that make retrieval look beyond the generic queries, per sport. */
export const SPORT_HINTS: Record<Sport, string[]> = {
  nba: ['shooting', 'defense', 'playmaking'],
  football: ['passing', 'pocket presence', 'red zone'],
  unknown: ['role projection', 'injury history'],
};

const SPORT_LABEL: Record<Sport, string> = { nba: 'basketball (NBA)', football: 'American football', unknown: 'an undetermined sport' };

/** The spec's default template, naming the player; 7 steps, the upper bound of FR-02's 4–7. */
export function draftPlan(input: { player_name: string; sport: Sport; hints?: string[] }): Plan {
  const name = input.player_name;
  const query_hints = cleanList([...(input.hints ?? []), ...SPORT_HINTS[input.sport]], LIMITS.hintChars).slice(0, LIMITS.hints);
  const context =
    input.sport === 'unknown'
      ? `Confirm ${name} as the target player and work out the sport from the documents`
      : `Confirm ${name} as the target player in ${SPORT_LABEL[input.sport]} from the request`;
  return {
    plan_steps: [
      context,
      `Retrieve evidence about ${name} from your uploaded documents${query_hints.length ? `, looking at ${query_hints.slice(0, 3).join(', ')}` : ''}`,
      `Extract ${name}'s player fields that the evidence supports: positions, teams, height, weight, strengths and weaknesses`,
      `Draft a scouting report on ${name} with cited findings and what could not be found`,
      `Prepare a preview of ${name}'s player database item`,
      `Ask for your approval before saving ${name}'s player item`,
      `Save the approved player item and return the report`,
    ],
    query_hints,
  };
}

/** The cleaned edit (only the lists the user sent), or what is wrong with it. */
export type PlanEditResult = { ok: true; value: { plan_steps?: string[]; query_hints?: string[] } } | { ok: false; problems: string[] };

/** Cleaned, non-empty, unique (case-insensitively) strings, each cut to `maxChars`. */
function cleanList(values: string[], maxChars: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const value of values) {
    const text = cleanText(value).slice(0, maxChars).trim();
    if (!text || seen.has(text.toLowerCase())) continue;
    seen.add(text.toLowerCase());
    out.push(text);
  }
  return out;
}

/** Checks one edited list: strings only, within the count and length limits. */
function checkList(field: string, item: string, value: unknown, min: number, max: number, maxChars: number, problems: string[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string')) {
    problems.push(`${field} must be a list of strings`);
    return undefined;
  }
  const cleaned = (value as string[]).map(cleanText).filter(Boolean);
  cleaned.forEach((entry, i) => {
    if (entry.length > maxChars) problems.push(`${field}: ${item} ${i + 1} has ${entry.length} characters, at most ${maxChars} are allowed`);
  });
  const unique = cleanList(cleaned, maxChars);
  if (unique.length < min) problems.push(`${field}: at least ${min} ${item}${min === 1 ? '' : 's'} needed`);
  if (unique.length > max) problems.push(`${field}: ${unique.length} ${item}s, at most ${max} are allowed`);
  return unique;
}

/**
 * A plan edited at gate A: 1–10 steps of at most 500 characters, at most 10 hints of at most 100.
 * Blank and repeated entries are dropped; anything over a limit is refused, not cut, so the user
 * sees what to shorten.
 */
export function validatePlanEdit(edit: { plan_steps?: unknown; query_hints?: unknown }): PlanEditResult {
  const problems: string[] = [];
  const plan_steps = checkList('plan_steps', 'step', edit.plan_steps, 1, LIMITS.steps, LIMITS.stepChars, problems);
  const query_hints = checkList('query_hints', 'hint', edit.query_hints, 0, LIMITS.hints, LIMITS.hintChars, problems);
  if (problems.length) return { ok: false, problems };
  return { ok: true, value: { ...(plan_steps ? { plan_steps } : {}), ...(query_hints ? { query_hints } : {}) } };
}
