/**
 * Relays legacy-SSE POSTs between gateway processes. The SSE stream of a session lives in one process;
 * its client may POST to any other (a load balancer without affinity). The holder subscribes to
 * `{prefix}:mcp-sse:{sessionId}` (RedisNames, so REDIS_PREFIX separates deployments); a process that
 * receives a POST for a session it does not hold publishes the JSON-RPC message there. PUBLISH answers
 * how many subscribers got it: 0 means no process holds the session (it ended, or never existed),
 * which becomes a 404.
 */
import { createRedisClient, type RedisClient } from '../../queues/redis-client.js';
import { z } from 'zod';
import type { Logger } from '../../actors/runtime/contract.js';
import type { RedisNames } from '../../queues/keys.js';

/** What travels on the channel: the message and who sent it (never the API key). */
export const RelayedMessage = z.object({ userId: z.string().min(1), message: z.unknown() });
export type RelayedMessage = z.infer<typeof RelayedMessage>;

export class SessionRelay {
  private readonly subscriber: RedisClient;
  private readonly publisher: RedisClient;
  private readonly holders = new Map<string, (relayed: RelayedMessage) => void>();

  constructor(
    redisUrl: string,
    private readonly names: RedisNames,
    private readonly logger: Logger,
  ) {
    // A connection in subscriber mode can issue no other command, hence two.
    this.subscriber = createRedisClient(redisUrl, { maxRetriesPerRequest: 3 });
    this.publisher = createRedisClient(redisUrl, { maxRetriesPerRequest: 3 });
    for (const connection of [this.subscriber, this.publisher]) {
      connection.on('error', (err) => this.logger.warn({ err }, 'MCP session relay: RedisClient connection error'));
    }
    this.subscriber.on('message', (channel: string, raw: string) => this.receive(channel, raw));
  }

  /** Starts taking messages for a session this process holds; resolves once Redis confirmed the subscription. */
  async hold(sessionId: string, deliver: (relayed: RelayedMessage) => void): Promise<void> {
    this.holders.set(this.names.mcpSession(sessionId), deliver);
    try {
      await this.subscriber.subscribe(this.names.mcpSession(sessionId));
    } catch (err) {
      this.holders.delete(this.names.mcpSession(sessionId));
      throw err;
    }
  }

  async release(sessionId: string): Promise<void> {
    if (!this.holders.delete(this.names.mcpSession(sessionId))) return;
    await this.subscriber.unsubscribe(this.names.mcpSession(sessionId)).catch((err: unknown) => this.logger.warn({ err, sessionId }, 'MCP session relay: unsubscribe failed'));
  }

  /** Publishes to the holder; the number of processes that received it (0 = nobody holds the session). */
  deliver(sessionId: string, relayed: RelayedMessage): Promise<number> {
    return this.publisher.publish(this.names.mcpSession(sessionId), JSON.stringify(relayed));
  }

  async close(): Promise<void> {
    this.holders.clear();
    await Promise.all([this.subscriber, this.publisher].map((c) => c.quit().catch(() => c.disconnect())));
  }

  private receive(channel: string, raw: string) {
    const deliver = this.holders.get(channel);
    if (!deliver) return;
    let parsed;
    try {
      parsed = RelayedMessage.safeParse(JSON.parse(raw));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) {
      this.logger.warn({ channel }, 'MCP session relay: malformed message dropped');
      return;
    }
    deliver(parsed.data);
  }
}
