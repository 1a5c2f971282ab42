/**
 * `troupe_nodejs_gc_duration_seconds`, every collection counted. prom-client's default GC histogram
 * observes only the first entry of each batch its PerformanceObserver is handed, so a collection that
 * comes right behind another (a mark-compact after a scavenge) goes uncounted. This one observes each
 * entry, under the same name, kinds and buckets.
 */
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { Histogram, type Registry } from 'prom-client';

export const GC_DURATION_METRIC = 'troupe_nodejs_gc_duration_seconds';

/** prom-client's buckets for this histogram, kept so dashboards built on its default read the same. */
const GC_BUCKETS = [0.001, 0.01, 0.1, 1, 2, 5];

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/** A `gc` entry: its `detail.kind` says which collection it was (Node 16 and later). */
type GcEntry = PerformanceEntry & { detail?: { kind?: number } };

const kindOf = (entry: GcEntry): string | undefined => KINDS[entry.detail?.kind ?? -1];

/**
 * Registers the histogram on `registry` in place of prom-client's (call after collectDefaultMetrics).
 * The observer lives as long as the process, as prom-client's does.
 */
export function observeGarbageCollection(registry: Registry): void {
  registry.removeSingleMetric(GC_DURATION_METRIC);
  const histogram = new Histogram({
    name: GC_DURATION_METRIC,
    help: 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
    labelNames: ['kind'],
    buckets: GC_BUCKETS,
    registers: [registry],
  });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = kindOf(entry);
      if (kind !== undefined) histogram.observe({ kind }, entry.duration / 1000);
    }
  }).observe({ entryTypes: ['gc'] });
}
