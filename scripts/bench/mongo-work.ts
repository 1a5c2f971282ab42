/**
 * What MongoDB did for one call, from the server's own counters (`serverStatus`: `opcounters` and
 * `metrics.queryExecutor`), read before and after it through a connection of the bench's own. The
 * counters are server-wide: the bench makes one call at a time, and the read of the counters itself
 * (one command) is taken off.
 */
import { MongoClient } from 'mongodb';

export interface MongoWork {
  /** Operations by opcounters type (query, getmore, command, insert, update, delete); zero ones left out. */
  operations: Record<string, number>;
  operations_total: number;
  /** Documents fetched to be matched or returned (`scannedObjects`). */
  docs_examined: number;
  /** Index keys examined (`scanned`). */
  keys_examined: number;
}

interface Counters {
  opcounters: Record<string, number>;
  scannedObjects: number;
  scanned: number;
}

export class MongoWorkMeter {
  private constructor(private readonly client: MongoClient) {}

  static async connect(uri: string): Promise<MongoWorkMeter> {
    const client = new MongoClient(uri, { maxPoolSize: 1, monitorCommands: false });
    await client.connect();
    const meter = new MongoWorkMeter(client);
    const status = await meter.counters();
    if (status.scannedObjects === undefined || status.opcounters === undefined) throw new Error('this MongoDB reports no opcounters or metrics.queryExecutor in serverStatus');
    return meter;
  }

  private async counters(): Promise<Counters> {
    const status = await this.client.db('admin').command({ serverStatus: 1 });
    const numbers = (o: Record<string, unknown> = {}) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Number(v)]));
    const executor = (status.metrics?.queryExecutor ?? {}) as Record<string, unknown>;
    return { opcounters: numbers(status.opcounters as Record<string, unknown>), scannedObjects: Number(executor.scannedObjects), scanned: Number(executor.scanned) };
  }

  /** `run()`'s result and what MongoDB did meanwhile. */
  async measure<T>(run: () => Promise<T>): Promise<{ value: T; work: MongoWork }> {
    const before = await this.counters();
    const value = await run();
    const after = await this.counters();
    const operations: Record<string, number> = {};
    for (const [type, n] of Object.entries(after.opcounters)) {
      // The serverStatus read that took `before` counts as one command.
      const delta = n - (before.opcounters[type] ?? 0) - (type === 'command' ? 1 : 0);
      if (delta > 0) operations[type] = delta;
    }
    return {
      value,
      work: {
        operations,
        operations_total: Object.values(operations).reduce((sum, n) => sum + n, 0),
        docs_examined: after.scannedObjects - before.scannedObjects,
        keys_examined: after.scanned - before.scanned,
      },
    };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** p50 and max of a per-call figure. */
export function workSummary(works: MongoWork[]) {
  const stat = (pick: (w: MongoWork) => number) => {
    const sorted = works.map(pick).sort((a, b) => a - b);
    return sorted.length === 0 ? { p50: 0, max: 0 } : { p50: sorted[Math.floor((sorted.length - 1) / 2)], max: sorted[sorted.length - 1] };
  };
  const types = [...new Set(works.flatMap((w) => Object.keys(w.operations)))].sort();
  return {
    operations: stat((w) => w.operations_total),
    operations_by_type_max: Object.fromEntries(types.map((type) => [type, Math.max(...works.map((w) => w.operations[type] ?? 0))])),
    docs_examined: stat((w) => w.docs_examined),
    keys_examined: stat((w) => w.keys_examined),
  };
}
