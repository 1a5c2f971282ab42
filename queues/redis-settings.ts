/**
 * Start-up checks of the Redis server's own settings. Redis is the broker: mailboxes, drain jobs and
 * reply streams exist nowhere else, so a key evicted under memory pressure is a lost message (BullMQ
 * requires `noeviction`), and a server without persistence loses every accepted message on restart.
 */
import { ReplyError } from 'ioredis';
import { isCluster, keyServers, type RedisClient } from './redis-client.js';
import type { Logger } from '../logging/logger.js';
import { RedisMisconfiguredError } from './redis-misconfigured-error.js';

export interface RedisSettingsCheckOptions {
  /** Where the server is, for messages (credentials masked). */
  url: string;
  /** TROUPE_ALLOW_EVICTION: warn instead of refusing when keys may be evicted. */
  allowEviction: boolean;
  logger: Logger;
}

/**
 * Throws RedisMisconfiguredError unless `maxmemory-policy` is `noeviction` (or eviction is allowed); warns
 * when persistence is off. On a cluster, every master is checked.
 */
export async function checkRedisSettings(redis: RedisClient, options: RedisSettingsCheckOptions): Promise<void> {
  if (!isCluster(redis)) return checkServer(redis, options);
  for (const node of keyServers(redis)) await checkServer(node, { ...options, url: `${options.url} (node ${node.options.host}:${node.options.port})` });
}

async function checkServer(redis: RedisClient, { url, allowEviction, logger }: RedisSettingsCheckOptions): Promise<void> {
  const settings = await readSettings(redis, ['maxmemory-policy', 'appendonly', 'save'], logger);
  if (settings === undefined) return;

  const policy = settings.get('maxmemory-policy');
  if (policy !== undefined && policy !== 'noeviction') {
    const problem = `Redis at ${url} has maxmemory-policy ${policy}: it may evict BullMQ's keys, losing queued messages and jobs`;
    if (!allowEviction) {
      throw new RedisMisconfiguredError(
        `${problem}. Set maxmemory-policy noeviction on that server (redis.conf, or CONFIG SET maxmemory-policy noeviction), or TROUPE_ALLOW_EVICTION=1 to start anyway.`,
      );
    }
    logger.warn({ maxmemoryPolicy: policy }, `${problem}; starting anyway because TROUPE_ALLOW_EVICTION is set. Set maxmemory-policy noeviction.`);
  }

  if (settings.get('appendonly') === 'no' && settings.get('save') === '') {
    logger.warn(
      { appendonly: 'no', save: '' },
      `Redis at ${url} has persistence off (appendonly no, no save rules): a Redis restart loses every accepted message. Set appendonly yes and appendfsync everysec on that server.`,
    );
  }
}

/**
 * CONFIG GET for each parameter (one at a time: several in one call needs Redis 7). Undefined when
 * CONFIG is refused, as managed services that rename or disable it do: the checks are then skipped.
 * A parameter the server does not know is left out of the map.
 */
async function readSettings(redis: RedisClient, parameters: string[], logger: Logger): Promise<Map<string, string> | undefined> {
  const settings = new Map<string, string>();
  try {
    for (const parameter of parameters) {
      const [name, value] = (await redis.call('CONFIG', 'GET', parameter)) as string[];
      if (name !== undefined && value !== undefined) settings.set(parameter, value);
    }
  } catch (error) {
    if (!(error instanceof ReplyError)) throw error;
    logger.debug({ err: error }, 'Redis refuses CONFIG GET (disabled or renamed, as on some managed services): skipping the maxmemory-policy and persistence checks');
    return undefined;
  }
  return settings;
}
