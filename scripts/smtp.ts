/**
 * `troupe smtp`: the SMTP listener alone, receiving mail for troupe inboxes (550 for unknown
 * recipients) and handing each message to its inbox through Redis, like a gateway with SMTP_PORT.
 * It shares Redis and MongoDB with the workers, so it needs MONGODB_URI.
 */
import { inboxKind } from '../actors/mail/kind.js';
import { ActorClient } from '../actors/runtime/client.js';
import { startSmtpListener } from '../gateway/mail-inbound.js';
import { connectMongo } from '../models/connection.js';
import { RedisNames } from '../queues/keys.js';
import type { Config } from './config.js';
import { createLogger } from '../logging/logger.js';
import { ShutdownSequence } from './shutdown-sequence.js';
import { onShutdownSignal } from './shutdown-signal.js';
import { LOCAL_REDIS_URL, sharedMongoUri } from './worker.js';

export async function runSmtp(config: Config, options: { port?: number; host?: string }): Promise<number> {
  const logger = createLogger(config.log);
  const uri = sharedMongoUri(config, 'troupe smtp');
  const port = options.port ?? config.mail.smtp?.port ?? 2525;
  const host = options.host ?? config.mail.smtp?.host ?? '127.0.0.1';
  const shutdown = new ShutdownSequence();
  const signalled = onShutdownSignal(logger);
  try {
    const mongo = await connectMongo({ uri, dbName: config.mongo.dbName, embedded: config.mongo.embedded, logger: logger.child({ component: 'mongo' }) });
    shutdown.add('mongo', () => mongo.stop());
    const redisUrl = config.redis.url ?? LOCAL_REDIS_URL;
    const client = new ActorClient(redisUrl, mongo.connection, [inboxKind], RedisNames.forRedis(redisUrl, config.redis.prefix, config.redis.partitions));
    shutdown.add('client', () => client.close());
    const listener = await startSmtpListener({ mongo: mongo.connection, client, logger: logger.child({ component: 'smtp' }) }, { port, host });
    shutdown.add('smtp', () => listener.close());
    logger.info({ host, port: listener.port }, `troupe smtp is receiving mail on ${host}:${listener.port} for @${config.mail.settings.domain}`);
  } catch (error) {
    await shutdown.run(logger);
    throw error;
  }
  const signal = await signalled.received;
  logger.info({ signal }, 'shutting down');
  return (await shutdown.run(logger)) ? 0 : 1;
}
