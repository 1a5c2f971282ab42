/**
 * Which worker processes keep a liveness key, and which BullMQ workers each one runs. An entry sits in
 * one hash beside the process's liveness key (both renewed together, see actors/runtime/liveness.ts).
 * When the key has lapsed, one live process claims the entry — the claim removes it, so exactly one
 * watcher hands the lapsed process's jobs back (queues/takeover.ts).
 * (The liveness keys are derived inside the script from their prefix, which shares the registry's hash
 * tag: the same cluster slot by construction.)
 */
import type { RedisClient } from './redis-client.js';
import { z } from 'zod';
import type { RedisNames } from './keys.js';

/** A worker process's BullMQ workers: the queue (name and key prefix) and the worker id its lock tokens start with. */
export const LivenessEntry = z.object({
  queues: z.array(z.object({ queue: z.string().min(1), prefix: z.string().min(1).default('bull'), worker: z.string().min(1) })).max(10_000),
});
export type LivenessEntry = z.infer<typeof LivenessEntry>;

/** A lapsed process, claimed by this one; `entry` is undefined when what it wrote does not parse. */
export interface LapsedWorker {
  workerId: string;
  entry: LivenessEntry | undefined;
}

/**
 * KEYS: registry hash. ARGV: liveness-key prefix, the caller's own id (never claimed), most claims.
 * Returns {worker id, entry JSON} of each claimed process whose liveness key is gone.
 */
const CLAIM_LAPSED = `
local ids = redis.call('HKEYS', KEYS[1])
local out = {}
for _, id in ipairs(ids) do
  if #out >= tonumber(ARGV[3]) then break end
  if id ~= ARGV[2] and redis.call('EXISTS', ARGV[1] .. id) == 0 then
    out[#out + 1] = {id, redis.call('HGET', KEYS[1], id)}
    redis.call('HDEL', KEYS[1], id)
  end
end
return out`;

interface RegistryCommands {
  troupeClaimLapsed(registry: string, alivePrefix: string, selfId: string, max: string): Promise<Array<[string, string]>>;
}

export class LivenessRegistry {
  private readonly commands: RedisClient & RegistryCommands;

  constructor(
    redis: RedisClient,
    private readonly names: RedisNames,
  ) {
    redis.defineCommand('troupeClaimLapsed', { numberOfKeys: 1, lua: CLAIM_LAPSED });
    this.commands = redis as RedisClient & RegistryCommands;
  }

  /** Claims up to `max` processes other than `selfId` whose liveness key has lapsed. */
  async claimLapsed(selfId: string, max: number): Promise<LapsedWorker[]> {
    const claimed = await this.commands.troupeClaimLapsed(this.names.liveness(), this.names.alive(''), selfId, String(max));
    return claimed.map(([workerId, json]) => ({ workerId, entry: parseEntry(json) }));
  }
}

function parseEntry(json: string): LivenessEntry | undefined {
  try {
    const parsed = LivenessEntry.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
