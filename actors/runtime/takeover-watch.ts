/**
 * Every live worker process looks, every TAKEOVER_CHECK_MS, for worker processes whose liveness key has
 * lapsed, claims them (one watcher wins each) and hands their jobs back to wait, so a crashed worker's
 * actors resume elsewhere about a liveness TTL after the crash rather than BullMQ's lock duration plus
 * stalled interval. The watch runs on the main event loop: a busy process merely looks later, and any
 * other live process looks meanwhile. BullMQ's stalled check stays as the backstop (a claim whose
 * watcher dies before moving the jobs, a process that dies before its first beat).
 */
import type { Logger } from './contract.js';
import type { LivenessRegistry } from '../../queues/liveness-registry.js';
import type { Takeover } from '../../queues/takeover.js';

export interface TakeoverWatchOptions {
  registry: LivenessRegistry;
  takeover: Takeover;
  /** This process: never claimed by itself. */
  workerId: string;
  checkMs: number;
  logger: Logger;
}

/** Lapsed processes claimed per check; the rest wait for the next one. */
const CLAIMS_PER_CHECK = 10;

export interface TakeoverWatch {
  stop(): Promise<void>;
}

export function watchForLapsedWorkers({ registry, takeover, workerId, checkMs, logger }: TakeoverWatchOptions): TakeoverWatch {
  let running: Promise<void> | undefined;
  const check = async () => {
    for (const lapsed of await registry.claimLapsed(workerId, CLAIMS_PER_CHECK)) {
      if (!lapsed.entry) {
        logger.warn({ lapsedWorker: lapsed.workerId }, 'lapsed worker left an unreadable liveness entry; its jobs wait for the stalled check');
        continue;
      }
      const started = performance.now();
      const jobs = await takeover.reclaim(lapsed.entry);
      logger.warn({ workerId, lapsedWorker: lapsed.workerId, jobs: jobs.length, jobIds: jobs.map((j) => j.jobId), ms: Math.round(performance.now() - started) }, 'took over the jobs of a lapsed worker');
    }
  };
  const timer = setInterval(() => {
    // One check at a time: a slow Redis must not pile them up.
    running ??= check()
      .catch((err) => logger.warn({ err }, 'takeover check failed'))
      .finally(() => (running = undefined));
  }, checkMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
