/**
 * Handing a lapsed worker process's jobs back to their queues. BullMQ's lock token of a job is
 * `<worker id>:<n>`, so the jobs still active under one of the lapsed process's BullMQ workers are
 * those whose lock starts with that worker's id. Each is moved back to wait by BullMQ's own script
 * (the one `job.moveToWait(token)` runs), which checks the token atomically: a job that has meanwhile
 * finished, or been taken by anyone else, is left alone. Should the process still be alive after all
 * (cut off from Redis for longer than its liveness TTL), its turns are zombies: fencing discards them
 * at their commit, as after a BullMQ stall.
 */
import { Queue } from 'bullmq';
import type { RedisClient } from './redis-client.js';
import type { LivenessEntry } from './liveness-registry.js';
import type { QueueName } from './keys.js';

/** Jobs looked at per queue, at most: a bound well above any worker's concurrency. */
const ACTIVE_SCAN_LIMIT = 10_000;

/**
 * KEYS: the queue's active list. ARGV: job-key prefix, most jobs to look at, then the BullMQ worker ids.
 * Returns {job id, lock token} of every active job locked by one of those workers.
 */
const HELD_JOBS = `
local ids = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
local out = {}
for _, id in ipairs(ids) do
  local token = redis.call('GET', ARGV[1] .. id .. ':lock')
  if token then
    for i = 3, #ARGV do
      if string.sub(token, 1, #ARGV[i] + 1) == ARGV[i] .. ':' then
        out[#out + 1] = {id, token}
        break
      end
    end
  end
end
return out`;

interface TakeoverCommands {
  troupeHeldJobs(active: string, jobPrefix: string, limit: string, ...workerIds: string[]): Promise<Array<[string, string]>>;
}

/** A job handed back: its queue and id. */
export interface ReclaimedJob {
  queue: string;
  jobId: string;
}

export class Takeover {
  private readonly queues = new Map<string, Queue>();
  private readonly commands: RedisClient & TakeoverCommands;

  /** `redis` runs the lookup script; `connection` is what the queues handing jobs back use (BullMQ's). */
  constructor(
    redis: RedisClient,
    private readonly connection: RedisClient,
  ) {
    redis.defineCommand('troupeHeldJobs', { numberOfKeys: 1, lua: HELD_JOBS });
    this.commands = redis as RedisClient & TakeoverCommands;
  }

  /** Moves every job the lapsed process still holds back to wait; returns those moved. */
  async reclaim(entry: LivenessEntry): Promise<ReclaimedJob[]> {
    const workersByQueue = new Map<string, { queue: QueueName; workers: string[] }>();
    for (const { queue, prefix, worker } of entry.queues) {
      const key = `${prefix}:${queue}`;
      const known = workersByQueue.get(key) ?? { queue: { name: queue, prefix }, workers: [] };
      known.workers.push(worker);
      workersByQueue.set(key, known);
    }
    const moves = await Promise.all(
      [...workersByQueue.values()].map(async ({ queue: name, workers }) => {
        const queue = this.queue(name);
        const held = await this.commands.troupeHeldJobs(queue.toKey('active'), queue.toKey(''), String(ACTIVE_SCAN_LIMIT), ...workers);
        // Independent moves, sent together: a crashed worker's actors all resume at once.
        return Promise.all(held.map(async ([jobId, token]) => ((await moveBack(queue, jobId, token)) ? [{ queue: name.name, jobId }] : [])));
      }),
    );
    return moves.flat(2);
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }

  private queue({ name, prefix }: QueueName): Queue {
    const key = `${prefix}:${name}`;
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = new Queue(name, { connection: this.connection, prefix })));
    return queue;
  }
}

/** False when the job finished, lost its lock or changed hands since the lookup (BullMQ's script refuses). */
async function moveBack(queue: Queue, jobId: string, token: string): Promise<boolean> {
  try {
    await queue.getBackend().moveJobFromActiveToWait(jobId, token);
    return true;
  } catch (error) {
    // BullMQ's refusals carry the script's negative status code; anything else (Redis gone) is real.
    if (typeof (error as { code?: unknown }).code === 'number' && (error as { code: number }).code < 0) return false;
    throw error;
  }
}
