/**
 * Weekly meta share over the span of the chosen windows. Rankings windows always end at the newest
 * tournament, so week k back (k ≥ 1) is the *previous* window of a call with current_days = 7k and
 * previous_days = 7; the first call's current window is the newest week.
 */
import { fetchRankings, type Rankings } from './meta-api.js';

export const WEEK_DAYS = 7;
const MAX_WEEKS = 12;

export interface ShareTrend {
  /** Oldest first: "07-03 – 07-09". */
  weeks: string[];
  series: Array<{ archetype: string; shares: number[] }>;
}

const shortDay = (iso: string) => iso.slice(5);

export function weeksSpanned(currentDays: number, previousDays: number): number {
  return Math.min(MAX_WEEKS, Math.max(2, Math.ceil((currentDays + previousDays) / WEEK_DAYS)));
}

export async function loadShareTrend(format: string, archetypes: string[], weeks: number, signal: AbortSignal): Promise<ShareTrend> {
  const calls: Promise<Rankings>[] = [];
  for (let back = 1; back < weeks; back++) calls.push(fetchRankings(format, WEEK_DAYS * back, WEEK_DAYS, signal));
  const answers = await Promise.all(calls);
  // Newest first, then reversed: each window's share of every charted archetype (absent = 0 %).
  const windows = [
    { period: answers[0]!.metadata.current_period, share: (name: string) => answers[0]!.data.find((row) => row.archetype === name)?.meta_share_current ?? 0 },
    ...answers.map((answer) => ({
      period: answer.metadata.previous_period,
      share: (name: string) => answer.data.find((row) => row.archetype === name)?.meta_share_previous ?? 0,
    })),
  ].reverse();
  return {
    weeks: windows.map((w) => `${shortDay(w.period.start)} – ${shortDay(w.period.end)}`),
    series: archetypes.map((archetype) => ({ archetype, shares: windows.map((w) => w.share(archetype)) })),
  };
}
