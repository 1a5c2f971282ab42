import { RedisNames } from '../../queues/keys.js';

/**
 * The key and queue names of a test's own REDIS_PREFIX, as a deployment on the test's Redis (REDIS_URL,
 * or the local server) names them: so the runtime suites run on a cluster (npm run test:cluster) with
 * its drain queue per partition, as `troupe worker` processes started by the same test do.
 */
export const testNames = (prefix: string): RedisNames => RedisNames.forRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix);
