import { expect } from 'chai';
import { pino } from 'pino';
import { TroupeMetrics } from '../../gateway/metrics.js';
import { startMetricsServer } from '../../gateway/metrics-server.js';
import type { RunningHttpServer } from '../../gateway/http-server.js';
import { GcMeter, gcTotalsOf, type GcUse } from '../../scripts/bench/process-gc.js';
import { p99ByMarkCompact } from '../../scripts/bench/runtime.js';
import { churn, fullGc } from '../support/garbage-collection.js';

describe('bench: the GC of troupe processes, read from their /metrics', () => {
  let served: RunningHttpServer;

  before(async () => {
    served = await startMetricsServer(new TroupeMetrics(), { host: '127.0.0.1', port: 0, logger: pino({ level: 'silent' }) });
  });

  after(async () => {
    await served.close();
  });

  it('reads each GC kind from the exposition, and ignores other series', () => {
    const totals = gcTotalsOf(
      [
        'troupe_nodejs_gc_duration_seconds_bucket{le="0.001",kind="major"} 1',
        'troupe_nodejs_gc_duration_seconds_sum{kind="major"} 0.0125',
        'troupe_nodejs_gc_duration_seconds_count{kind="major"} 2',
        'troupe_nodejs_gc_duration_seconds_sum{kind="minor"} 0.5',
        'troupe_nodejs_gc_duration_seconds_count{kind="minor"} 100',
        'troupe_nodejs_heap_size_used_bytes 123',
      ].join('\n'),
    );
    expect(Object.fromEntries(totals)).to.deep.equal({ major: { count: 2, seconds: 0.0125 }, minor: { count: 100, seconds: 0.5 } });
  });

  it('counts the mark-compacts and scavenges a process runs between begin() and end()', async function () {
    this.timeout(30_000);
    const meter = new GcMeter({ gateway: `${served.url}/metrics` });
    await meter.begin();
    expect(churn(), 'scavenges counted while churning').to.equal(3);
    fullGc();
    // The metric hears of a GC from a PerformanceObserver, a moment after it ends.
    let used: GcUse;
    do used = (await meter.end()).gateway;
    while (used.major === 0 || used.minor === 0);
    expect(used.major).to.be.at.least(1);
    expect(used.major_ms).to.be.greaterThan(0);
    expect(used.minor).to.be.at.least(1);
    expect(used.minor_ms).to.be.greaterThan(0);
  });

  it("splits troupe's round p99s by whether its gateway or worker ran a mark-compact in the round", () => {
    const quiet: GcUse = { major: 0, major_ms: 0, minor: 20, minor_ms: 80, incremental_ms: 0 };
    const compacted: GcUse = { ...quiet, major: 1, major_ms: 9 };
    const split = p99ByMarkCompact([
      { p99_ms: 30, gc: { gateway: compacted, worker: quiet } },
      { p99_ms: 18, gc: { gateway: quiet, worker: quiet } },
      { p99_ms: 27, gc: { gateway: quiet, worker: compacted } },
      { p99_ms: 20 },
    ]);
    expect(split.with_mark_compact_ms).to.deep.equal([30, 27]);
    expect(split.without_ms).to.deep.equal([18, 20]);
  });
});
