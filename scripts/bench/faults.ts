/**
 * `npm run bench:faults`: the runtime under each fault issue 14 names, with real processes on
 * loopback: a worker killed mid-turn (takeover), MongoDB killed and restarted on its dbpath, Redis
 * restarted empty (broker_reset), and slow or hostile clients. Each section prints what was sent,
 * applied, lost, applied twice and answered with which error, and its recovery times; `acceptance`
 * compares them with the targets. Sections run one after another, so they do not disturb
 * each other's timings.
 */
import type { Logger } from '../../logging/logger.js';
import { FAULTS, type FaultName } from './fault-names.js';
import { runBrokerResetBench } from './faults/broker-reset.js';
import { runMongoRestartBench } from './faults/mongo-restart.js';
import { runSlowClientsBench } from './faults/slow-clients.js';
import { runTakeoverBench } from './faults/takeover.js';


export interface FaultsBenchOptions {
  redisUrl: string;
  logger: Logger;
  only: readonly FaultName[];
  kills: number;
  restarts: number;
  resets: number;
  sseClients: number;
  slowloris: number;
}

type Json = Record<string, unknown>;

/** A number at `path` in a section's JSON, or undefined when the section did not run or lacks it. */
function numberAt(section: Json | undefined, ...path: string[]): number | undefined {
  let value: unknown = section;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Json)[key] : undefined;
  return typeof value === 'number' ? value : undefined;
}

const atMost = (value: number | undefined, bound: number) => (value === undefined ? undefined : value <= bound);
const none = (...values: Array<number | undefined>) => (values.some((v) => v === undefined) ? undefined : values.every((v) => v === 0));

export async function runFaultsBench(options: FaultsBenchOptions): Promise<Json> {
  const { redisUrl, logger } = options;
  const sections: Partial<Record<FaultName, Json>> = {};
  const runners: Record<FaultName, () => Promise<Json>> = {
    takeover: () => runTakeoverBench({ redisUrl, logger, kills: options.kills }),
    'mongo-restart': () => runMongoRestartBench({ redisUrl, logger, restarts: options.restarts }),
    'broker-reset': () => runBrokerResetBench({ redisUrl, logger, resets: options.resets }),
    'slow-clients': () => runSlowClientsBench({ redisUrl, logger, sseClients: options.sseClients, slowloris: options.slowloris }),
  };
  for (const fault of FAULTS) {
    if (!options.only.includes(fault)) continue;
    logger.info({ fault }, `bench:faults: ${fault}`);
    sections[fault] = await runners[fault]();
  }
  const { takeover, 'mongo-restart': mongo, 'broker-reset': reset, 'slow-clients': slow } = sections;
  const acceptance = {
    takeover_p99_under_1500ms: atMost(numberAt(takeover, 'fast_takeover', 'takeover', 'p99_ms'), 1500),
    takeover_nothing_lost_or_applied_twice: none(numberAt(takeover, 'fast_takeover', 'load', 'lost'), numberAt(takeover, 'fast_takeover', 'load', 'applied_twice')),
    takeover_no_live_worker_taken_over: none(numberAt(takeover, 'fast_takeover', 'takeovers_of_live_workers')),
    mongo_restart_nothing_lost_or_applied_twice: none(numberAt(mongo, 'messages', 'lost'), numberAt(mongo, 'messages', 'applied_twice')),
    broker_reset_every_waiter_answered_within_2s: atMost(numberAt(reset, 'redis_back_to_every_waiter_answered', 'max_ms'), 2000),
    broker_reset_retries_not_applied_twice: none(numberAt(reset, 'applied_twice')),
    slow_clients_healthz_p99_under_50ms: atMost(numberAt(slow, 'healthz_during_attack', 'p99_ms'), 50),
    slow_clients_every_slow_reader_dropped: slow === undefined ? undefined : numberAt(slow, 'slow_readers_dropped') === options.sseClients,
  };
  return { node: process.version, faults: sections, acceptance };
}
