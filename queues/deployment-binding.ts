/**
 * Binds a Redis namespace (REDIS_PREFIX) to one MongoDB deployment. Workers of two troupes that share
 * a prefix but not a database would run each other's drains and commit into the wrong database, so
 * the first process records its database's deployment id under the prefix, and a process whose
 * database holds another id refuses to start. A key lost with Redis's data is simply written again.
 */
import type { RedisClient } from './redis-client.js';
import type { RedisNames } from './keys.js';
import { RedisMisconfiguredError } from './redis-misconfigured-error.js';

/** Returns the id the key holds, setting it to ARGV[1] first if it holds none (GET and SET NX as one step). */
const CLAIM_SCRIPT = `
local held = redis.call('GET', KEYS[1])
if held then return held end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
`;

export interface DeploymentIdentity {
  /** The id stored in this process's MongoDB database. */
  deploymentId: string;
  /** That database's name, for the message. */
  database: string;
}

/**
 * Records `deploymentId` under the prefix if nothing is recorded yet; throws RedisMisconfiguredError if
 * another id is. Records the partition count the same way: a process that spread actors over another
 * number of partitions would post to queues nobody serves.
 */
export async function bindRedisPrefix(redis: RedisClient, names: RedisNames, { deploymentId, database }: DeploymentIdentity): Promise<void> {
  const partitionsKey = names.partitionCount();
  const partitions = (await redis.eval(CLAIM_SCRIPT, 1, partitionsKey, String(names.partitions))) as string;
  if (partitions !== String(names.partitions)) {
    throw new RedisMisconfiguredError(
      `REDIS_PARTITIONS=${names.partitions}, but the processes of REDIS_PREFIX=${names.prefix} spread actors over ${partitions} partitions: ` +
        `every process of a deployment must use the same count. Set REDIS_PARTITIONS=${partitions}, or, to change the count, stop every process, ` +
        `let the queues empty, and delete the Redis key ${partitionsKey}.`,
    );
  }
  const key = names.deployment();
  const held = (await redis.eval(CLAIM_SCRIPT, 1, key, deploymentId)) as string;
  if (held === deploymentId) return;
  throw new RedisMisconfiguredError(
    `REDIS_PREFIX=${names.prefix} belongs to another troupe deployment (${held}) than MongoDB database ${database} (${deploymentId}): ` +
      `sharing it would run one deployment's actors against the other's database. Set a different REDIS_PREFIX for this deployment, ` +
      `or, if the other deployment is gone for good, delete the Redis key ${key}.`,
  );
}
