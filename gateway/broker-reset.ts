/**
 * What a waiting request is answered when Redis came back without its data (queues/broker-epoch.ts):
 * its message, drain job and reply stream are gone, so no reply can come. The answer is a terminal
 * `error` with code `broker_reset` (HTTP 503 with Retry-After, an MCP tool error), at once rather
 * than at the reply timeout. Then the gateway writes again what it keeps in Redis: the deployment id,
 * after checking it against MongoDB as at start.
 */
import type { RedisClient } from '../queues/redis-client.js';
import type { Connection } from 'mongoose';
import type { Logger } from '../logging/logger.js';
import { deploymentIdOf } from '../models/deployment.js';
import { bindRedisPrefix } from '../queues/deployment-binding.js';
import type { RedisNames } from '../queues/keys.js';
import type { ReplyEvent } from '../queues/reply-stream.js';
import type { BrokerResetAnswer } from './reset-aware-client.js';
import { BROKER_RESET_CODE } from './broker-reset-code.js';

export const BROKER_RESET = Object.freeze({
  code: BROKER_RESET_CODE,
  message:
    'the message broker (Redis) restarted without its data: this request may not have been applied. ' +
    'Retry it; with the same Idempotency-Key it is applied at most once',
  details: Object.freeze({ retryable: true }),
});

/** The terminal event a waiter gets; `id` is the last one it saw, so a resume does not skip anything. */
export function brokerResetEvent(lastId: string | undefined): ReplyEvent {
  return { id: lastId ?? '0-0', event: 'error', data: { code: BROKER_RESET.code, message: BROKER_RESET.message, details: { ...BROKER_RESET.details } } };
}

export interface BrokerResetDeps {
  /** Fences and answers every waiter (ResetAwareActorClient.answerBrokerReset). */
  answerWaiters(): Promise<BrokerResetAnswer>;
  redis: RedisClient;
  names: RedisNames;
  mongo: Connection;
  logger: Logger;
}

/** The gateway's recovery from a Redis data loss: answer the waiters first, then claim the prefix for this deployment again. */
export async function recoverFromBrokerReset({ answerWaiters, redis, names, mongo, logger }: BrokerResetDeps): Promise<void> {
  const { answered, actors, error } = await answerWaiters();
  if (error !== undefined) logger.error({ err: error, answered }, 'could not fence the actors of waiting requests: a turn in flight may still commit after its client was told to retry');
  logger.warn({ answered, fencedActors: actors }, `answered ${answered} waiting request(s) with broker_reset`);
  try {
    await bindRedisPrefix(redis, names, { deploymentId: await deploymentIdOf(mongo), database: mongo.name });
  } catch (error) {
    logger.error({ err: error }, 'could not record this deployment under REDIS_PREFIX again after the Redis data loss');
  }
}
