import mongoose, { type Connection } from 'mongoose';
import type { Redis } from 'ioredis';

/** Resolves when a dependency can serve traffic; rejects with the reason otherwise. */
export type ReadinessCheck = () => Promise<void>;
export type ReadinessChecks = Readonly<Record<string, ReadinessCheck>>;

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, 'ok' | 'failed'>;
  /** The reason for each failed check. */
  errors: Record<string, string>;
}

export function redisReadinessCheck(client: Pick<Redis, 'ping'>): ReadinessCheck {
  return async () => {
    const reply = await client.ping();
    if (reply !== 'PONG') throw new Error(`unexpected PING reply ${JSON.stringify(reply)}`);
  };
}

export function mongoReadinessCheck(connection: Pick<Connection, 'db' | 'readyState'>): ReadinessCheck {
  return async () => {
    const db = connection.db;
    // A connection mongoose has closed or is re-establishing is not ready, whatever the driver could still do.
    if (db === undefined || connection.readyState !== mongoose.STATES.connected) {
      throw new Error(`mongoose connection is ${mongoose.STATES[connection.readyState] ?? connection.readyState}`);
    }
    const reply = await db.command({ ping: 1 });
    if (reply.ok !== 1) throw new Error(`unexpected ping reply ${JSON.stringify(reply)}`);
  };
}

/**
 * Runs all checks at once, each bounded by timeoutMs: a client that queues commands while it
 * reconnects would otherwise keep the probe waiting. A check that throws instead of rejecting counts
 * as failed, not as a crash of the probe.
 */
export async function runReadinessChecks(checks: ReadinessChecks, timeoutMs: number): Promise<ReadinessReport> {
  const names = Object.keys(checks);
  const outcomes = await Promise.allSettled(names.map((name) => withTimeout(Promise.resolve().then(checks[name]!), timeoutMs)));
  const report: ReadinessReport = { ready: true, checks: {}, errors: {} };
  outcomes.forEach((outcome, index) => {
    const name = names[index]!;
    if (outcome.status === 'fulfilled') {
      report.checks[name] = 'ok';
    } else {
      report.ready = false;
      report.checks[name] = 'failed';
      report.errors[name] = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
    }
  });
  return report;
}

async function withTimeout(promise: Promise<void>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
