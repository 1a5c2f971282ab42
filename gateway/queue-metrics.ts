/**
 * Queue metrics, read from the queues on every scrape: jobs per state and the age of the oldest waiting
 * job, per actor kind. Any process that can reach Redis reads the same numbers, so gateways serve them
 * (a worker does not). The families share one read per scrape; a failed read empties them and counts
 * an error instead of failing the scrape.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { QueueStats } from '../actors/runtime/client.js';

/** Each kind's queue, as `ActorClient.queueStats` reads it. */
export type QueueStatsReader = () => Promise<Record<string, QueueStats>>;

export function registerQueueMetrics(registry: Registry, read: QueueStatsReader): void {
  const registers = [registry];
  // prom-client collects every family of a scrape concurrently: the first asks, the others share it.
  let inflight: Promise<Record<string, QueueStats> | undefined> | undefined;
  const readOnce = (): Promise<Record<string, QueueStats> | undefined> => {
    inflight ??= read()
      .catch(() => undefined)
      .finally(() => {
        inflight = undefined;
      });
    return inflight;
  };
  new Gauge({
    name: 'troupe_queue_jobs',
    help: 'Jobs in the queue of each actor kind (drain jobs for actor kinds, requests for service kinds), by state; read on scrape',
    labelNames: ['kind', 'state'],
    registers,
    async collect() {
      const stats = await readOnce();
      this.reset();
      for (const [kind, { jobs }] of Object.entries(stats ?? {})) {
        for (const [state, count] of Object.entries(jobs)) this.set({ kind, state }, count);
      }
    },
  });
  new Gauge({
    name: 'troupe_queue_oldest_waiting_seconds',
    help:
      'Age of the oldest waiting job in the queue of each actor kind, 0 when none waits; read on scrape. For a service kind the job is a request; ' +
      'for an actor kind it is a drain job, so this is how long an actor with messages has waited for a worker to start draining it ' +
      '(messages queued behind a drain that is already running are not counted)',
    labelNames: ['kind'],
    registers,
    async collect() {
      const stats = await readOnce();
      this.reset();
      const now = Date.now();
      for (const [kind, { oldestWaitingAt }] of Object.entries(stats ?? {})) {
        this.set({ kind }, oldestWaitingAt === null ? 0 : Math.max(0, now - oldestWaitingAt) / 1000);
      }
    },
  });
  new Counter({
    name: 'troupe_queue_depth_errors_total',
    help: 'Scrapes on which the queues could not be read (troupe_queue_jobs and troupe_queue_oldest_waiting_seconds are then empty)',
    registers,
    async collect() {
      if ((await readOnce()) === undefined) this.inc();
    },
  });
}
