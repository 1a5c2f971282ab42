import { Redis } from 'ioredis';

/**
 * Deletes every key of a test run's REDIS_PREFIX (its own keys and its BullMQ queues). Best effort: the
 * prefix is unique to the run, so leftovers cannot disturb another one.
 */
export async function deleteRedisPrefix(prefix: string, url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    for (const pattern of [`${prefix}:*`, `bull:${prefix}-*`]) {
      const keys = await redis.keys(pattern);
      if (keys.length) await redis.del(...keys);
    }
  } catch {
    // Redis gone: nothing more to clean.
  } finally {
    redis.disconnect();
  }
}
