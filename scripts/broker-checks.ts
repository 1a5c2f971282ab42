/**
 * The start-up checks of every process that runs on Redis (troupe start, gateway, worker): the
 * server's settings as soon as Redis answers, then, once MongoDB is connected too, that the Redis
 * namespace belongs to this MongoDB deployment. Each refusal is a RedisMisconfiguredError.
 */
import type { Connection } from 'mongoose';
import { deploymentIdOf } from '../models/deployment.js';
import { bindRedisPrefix } from '../queues/deployment-binding.js';
import type { RedisNames } from '../queues/keys.js';
import type { RedisConnection } from '../queues/redis.js';
import { checkRedisSettings } from '../queues/redis-settings.js';
import { maskUrlCredentials } from '../logging/mask-url-credentials.js';
import type { Config } from './config.js';
import type { Logger } from '../logging/logger.js';

/** Refuses a Redis that may evict keys (unless TROUPE_ALLOW_EVICTION); warns when it persists nothing. */
export function checkRedisServer(redis: RedisConnection, config: Config, logger: Logger): Promise<void> {
  return checkRedisSettings(redis.client, { url: maskUrlCredentials(redis.url), allowEviction: config.redis.allowEviction, logger });
}

/** Refuses to run on a REDIS_PREFIX that another MongoDB deployment has claimed; claims it otherwise. */
export async function bindRedisToMongo(redis: RedisConnection, mongo: Connection, names: RedisNames): Promise<void> {
  await bindRedisPrefix(redis.client, names, { deploymentId: await deploymentIdOf(mongo), database: mongo.name });
}
