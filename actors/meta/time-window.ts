/**
 * "The last N days" of tournament data. Windows end at the newest tournament day in the data, not at
 * today's date: the shipped dataset ends on 2026-08-08, and a deployment with fresh data then behaves
 * the same way. Days are whole UTC days and both ends are included.
 */
const DAY_MS = 24 * 60 * 60 * 1000;

export interface TimeWindow {
  /** First day, YYYY-MM-DD. */
  start: string;
  /** Last day, YYYY-MM-DD. */
  end: string;
  days: number;
}

export const dayOf = (date: Date): string => date.toISOString().slice(0, 10);
export const dateOf = (day: string): Date => new Date(`${day}T00:00:00.000Z`);

/** The `days` days ending on `newestDay`. */
export function currentWindow(newestDay: string, days: number): TimeWindow {
  const end = dateOf(newestDay);
  return { start: dayOf(new Date(end.getTime() - (days - 1) * DAY_MS)), end: newestDay, days };
}

/** The `days` days just before `window`, so the two never overlap. */
export function windowBefore(window: TimeWindow, days: number): TimeWindow {
  const end = new Date(dateOf(window.start).getTime() - DAY_MS);
  return { start: dayOf(new Date(end.getTime() - (days - 1) * DAY_MS)), end: dayOf(end), days };
}

/** A Mongo range on a `date` field (stored at 00:00 UTC) covering the window's days. */
export function dateRange(window: TimeWindow): { $gte: Date; $lte: Date } {
  return { $gte: dateOf(window.start), $lte: dateOf(window.end) };
}

export const inWindow = (date: Date, window: TimeWindow): boolean => date >= dateOf(window.start) && date <= dateOf(window.end);
