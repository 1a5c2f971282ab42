/**
 * The naive peer of `bench:runtime`: the same request/reply an echo actor answers in troupe, built on
 * the same stack (Koa, BullMQ on the same Redis, mongoose on the same MongoDB) the way a competent Node
 * developer writes it without troupe — one gateway process and one worker process (see naive-peer/).
 * It answers troupe's HTTP shape, so the same load generator, keys, actors and messages drive both.
 *
 * What it gives up is order: the worker runs up to 50 jobs at once, so concurrent messages to one actor
 * can run out of arrival order. The peer counts those (`orderingViolations`), for the bench to print.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import type { Logger } from '../../logging/logger.js';
import { ACTORS_COLLECTION, violationsKey } from './naive-peer/contract.js';
import { benchScript, type BenchProcess } from './troupe-processes.js';
import { deleteMatchingKeys } from '../../queues/redis-client.js';

export interface NaivePeerOptions {
  redisUrl: string;
  /** The MongoDB troupe's bench runs on: keys made by `troupe users create` are checked there. */
  mongoUri: string;
  dbName: string;
  /** The gateway's HTTP port (on 127.0.0.1). */
  port: number;
  /** The BullMQ queue of its own; everything under `bull:<queueName>:` is removed by stop(). */
  queueName: string;
  logger?: Logger;
}

export interface NaivePeer {
  /** http://127.0.0.1:PORT — POST /actors/echo/:id/messages as on troupe. */
  base: string;
  /** For CPU measurement (process-cpu.ts). */
  gatewayPid: number;
  workerPid: number;
  /**
   * Messages so far that ran after a later-arrived message to the same actor: a running total since
   * start (diff it around a round), exact once every reply of the round has been received.
   */
  orderingViolations(): Promise<number>;
  /** Sets the running total back to 0. */
  resetOrderingViolations(): Promise<void>;
  /** What each process has printed so far (readiness, errors): for a failure's message. */
  output(): { gateway: string; worker: string };
  /** Ends both processes (SIGTERM, waiting for them), removes the queue's Redis keys and drops the actors' collection. */
  stop(): Promise<void>;
}

/** How long a process may take to exit on SIGTERM before it is killed. */
const EXIT_BOUND_MS = 15_000;

/** Ends a peer process: SIGTERM, then SIGKILL if it has not exited within EXIT_BOUND_MS. */
export async function endProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_BOUND_MS);
  await exited;
  clearTimeout(timer);
}

/** Drops a peer's collection (if it was made). */
export async function dropCollection(mongoUri: string, dbName: string, name: string): Promise<void> {
  const connection = await mongoose.createConnection(mongoUri, { dbName }).asPromise();
  try {
    await connection.dropCollection(name).catch((error: { codeName?: string }) => {
      if (error.codeName !== 'NamespaceNotFound') throw error;
    });
  } finally {
    await connection.close();
  }
}

export async function startNaivePeer(options: NaivePeerOptions): Promise<NaivePeer> {
  const { redisUrl, mongoUri, dbName, port, queueName, logger } = options;
  const env = { REDIS_URL: redisUrl, MONGODB_URI: mongoUri, MONGODB_DB: dbName, NAIVE_PEER_QUEUE: queueName, PORT: String(port), HOST: '127.0.0.1' };
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const processes: BenchProcess[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // The gateway first: no new jobs once the worker is on its way out.
    for (const p of [...processes].reverse()) await endProcess(p.child);
    try {
      await deleteMatchingKeys(redis, `bull:${queueName}:*`);
    } finally {
      redis.disconnect();
    }
    await dropCollection(mongoUri, dbName, ACTORS_COLLECTION);
  };
  try {
    const worker = benchScript('scripts/bench/naive-peer/worker.ts', [], env);
    processes.push(worker);
    await worker.waitFor('naive peer worker ready');
    const gateway = benchScript('scripts/bench/naive-peer/gateway.ts', [], env);
    processes.push(gateway);
    await gateway.waitFor('naive peer gateway listening');
    logger?.info({ port, queueName, gatewayPid: gateway.child.pid, workerPid: worker.child.pid }, 'naive peer started');
    return {
      base: `http://127.0.0.1:${port}`,
      gatewayPid: gateway.child.pid!,
      workerPid: worker.child.pid!,
      orderingViolations: async () => Number((await redis.get(violationsKey(queueName))) ?? 0),
      resetOrderingViolations: async () => void (await redis.del(violationsKey(queueName))),
      output: () => ({ gateway: gateway.output(), worker: worker.output() }),
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
