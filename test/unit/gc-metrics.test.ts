import { expect } from 'chai';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { GC_DURATION_METRIC, observeGarbageCollection } from '../../gateway/gc-metrics.js';
import { TroupeMetrics } from '../../gateway/metrics.js';
import { churn, fullGc } from '../support/garbage-collection.js';

async function countsOf(registry: Registry): Promise<Record<string, number>> {
  const metric = (await registry.getSingleMetric(GC_DURATION_METRIC)!.get()) as { values: Array<{ metricName?: string; labels: { kind?: string }; value: number }> };
  const counts: Record<string, number> = {};
  for (const v of metric.values) if (v.metricName === `${GC_DURATION_METRIC}_count` && v.labels.kind) counts[v.labels.kind] = v.value;
  return counts;
}

describe('troupe_nodejs_gc_duration_seconds', () => {
  it('counts every collection, those handed to the observer together included', async () => {
    const registry = new Registry();
    observeGarbageCollection(registry);
    const seen = { major: 0, minor: 0 };
    let majorSeen!: () => void;
    const major = new Promise<void>((resolve) => (majorSeen = resolve));
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const kind = (entry as typeof entry & { detail?: { kind?: number } }).detail?.kind;
        if (kind === constants.NODE_PERFORMANCE_GC_MINOR) seen.minor += 1;
        if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
          seen.major += 1;
          majorSeen();
        }
      }
    });
    observer.observe({ entryTypes: ['gc'] });
    try {
      // A collection between the two observers' start (a busy test process) reached the registry's only:
      // both are compared from here, once whatever was queued before has been handed out.
      await new Promise((resolve) => setImmediate(resolve));
      const before = await countsOf(registry);
      seen.minor = 0;
      seen.major = 0;
      expect(churn(), 'scavenges counted while churning').to.equal(3);
      fullGc();
      await major;
      expect(seen.minor, 'scavenges the churn caused').to.be.at.least(2);
      // Each observer is handed its entries in a callback of its own: a collection that comes between the
      // two callbacks reaches one before the other. So compare once both have caught up, within a bound
      // of event-loop turns: a histogram that drops entries never catches up.
      const countedSinceBefore = async () => {
        const counted = await countsOf(registry);
        return { minor: counted.minor - (before.minor ?? 0), major: counted.major - (before.major ?? 0) };
      };
      let counted = await countedSinceBefore();
      for (let turn = 0; turn < 200 && (counted.minor !== seen.minor || counted.major !== seen.major); turn++) {
        await new Promise((resolve) => setImmediate(resolve));
        counted = await countedSinceBefore();
      }
      expect(counted.minor).to.equal(seen.minor);
      expect(counted.major).to.equal(seen.major);
    } finally {
      observer.disconnect();
    }
  });

  it("is the one a TroupeMetrics registry serves, in place of prom-client's", async () => {
    const text = await new TroupeMetrics().registry.metrics();
    expect(text.match(new RegExp(`^# TYPE ${GC_DURATION_METRIC} histogram$`, 'gm'))).to.have.length(1);
    expect(text).to.include('Garbage collection duration by kind');
  });
});
