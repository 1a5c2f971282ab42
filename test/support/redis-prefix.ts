import { RedisNames } from '../../queues/keys.js';
import { createRedisClient, deleteMatchingKeys } from '../../queues/redis-client.js';

/**
 * Deletes every key of a test run's REDIS_PREFIX (its own keys and its BullMQ queues), on one Redis or a
 * cluster. Best effort: the prefix is unique to the run, so leftovers cannot disturb another one.
 */
export async function deleteRedisPrefix(prefix: string, url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'): Promise<void> {
  const redis = createRedisClient(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    for (const pattern of [`${prefix}:*`, new RedisNames(prefix).queueKeysPattern()]) await deleteMatchingKeys(redis, pattern);
  } catch {
    // Redis gone: nothing more to clean.
  } finally {
    redis.disconnect();
  }
}
