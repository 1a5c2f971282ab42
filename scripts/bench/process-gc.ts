/**
 * Garbage collection of troupe processes around some work, read from their Prometheus endpoints
 * (`troupe_nodejs_gc_duration_seconds` by kind, see gateway/gc-metrics.ts), so a benchmark can tell the
 * rounds in which a process stopped for a mark-compact from those in which it did not.
 */
import { GC_DURATION_METRIC } from '../../gateway/gc-metrics.js';

/** What one process collected: mark-compacts (V8's "major"), scavenges ("minor"), and incremental marking. */
export interface GcUse {
  major: number;
  major_ms: number;
  minor: number;
  minor_ms: number;
  incremental_ms: number;
}

type Totals = Map<string, { count: number; seconds: number }>;

const SERIES = new RegExp(`^${GC_DURATION_METRIC}_(count|sum)\\{kind="(\\w+)"\\}\\s+([\\d.e+-]+)$`, 'gm');

/** Each GC kind's count and seconds so far, from a Prometheus text exposition. */
export function gcTotalsOf(exposition: string): Totals {
  const totals: Totals = new Map();
  for (const [, field, kind, value] of exposition.matchAll(SERIES)) {
    const entry = totals.get(kind) ?? { count: 0, seconds: 0 };
    if (field === 'count') entry.count = Number(value);
    else entry.seconds = Number(value);
    totals.set(kind, entry);
  }
  return totals;
}

async function readTotals(metricsUrl: string): Promise<Totals> {
  const response = await fetch(metricsUrl);
  if (!response.ok) throw new Error(`GET ${metricsUrl}: HTTP ${response.status}`);
  return gcTotalsOf(await response.text());
}

const ms = (seconds: number) => Number((seconds * 1000).toFixed(1));

/** Reads named processes' GC totals at `begin()` and reports what each collected by `end()`. */
export class GcMeter {
  private readonly start = new Map<string, Totals>();

  constructor(private readonly metricsUrls: Record<string, string>) {}

  async begin(): Promise<void> {
    for (const [name, url] of Object.entries(this.metricsUrls)) this.start.set(name, await readTotals(url));
  }

  async end(): Promise<Record<string, GcUse>> {
    const used: Record<string, GcUse> = {};
    for (const [name, url] of Object.entries(this.metricsUrls)) {
      const now = await readTotals(url);
      const before = this.start.get(name) ?? new Map();
      const delta = (kind: string) => {
        const a = before.get(kind) ?? { count: 0, seconds: 0 };
        const b = now.get(kind) ?? { count: 0, seconds: 0 };
        return { count: b.count - a.count, seconds: b.seconds - a.seconds };
      };
      const [major, minor, incremental] = [delta('major'), delta('minor'), delta('incremental')];
      used[name] = { major: major.count, major_ms: ms(major.seconds), minor: minor.count, minor_ms: ms(minor.seconds), incremental_ms: ms(incremental.seconds) };
    }
    return used;
  }
}
