/**
 * The `store_unavailable` notices of one actor's waiting messages. When a drain gives up on an outage,
 * the sender of every message still in the mailbox is told once (a terminal `error` event on its reply
 * stream). The message stays queued; when a later drain applies it, its notice is deleted from the reply
 * stream, so whoever reads that stream afterwards from the start (a retry with the same
 * Idempotency-Key, a follower resuming) finds the answer rather than an outage that is over.
 */
import type { RedisClient } from '../../queues/redis-client.js';
import { Envelope, type ActorRef } from '../../queues/envelope.js';
import type { RedisNames } from '../../queues/keys.js';
import { publishAll, REPLY_STREAM_TTL_SECONDS } from '../../queues/reply-stream.js';
import { storeUnavailableEvent } from './store-outage.js';

/** Where a message's notice is: its reply stream and the entry id there. */
export interface OutageNotice {
  stream: string;
  entryId: string;
}

/** How many waiting messages one give-up tells at most (the rest are told by the next drain that gives up). */
const TOLD_PER_GIVE_UP = 1_000;

export class OutageNotices {
  constructor(
    private readonly redis: RedisClient,
    private readonly names: RedisNames,
  ) {}

  /** Tells the senders of the actor's waiting messages not told yet; returns how many were told. */
  async tell(actor: ActorRef, retryMs: number): Promise<number> {
    const key = this.names.outageNotices(actor);
    const [entries, told] = await Promise.all([
      this.redis.xrange(this.names.mailbox(actor), '-', '+', 'COUNT', TOLD_PER_GIVE_UP) as Promise<Array<[string, string[]]>>,
      this.redis.hkeys(key),
    ]);
    const already = new Set(told);
    let count = 0;
    for (const [, fields] of entries) {
      const env = envelopeOf(fields);
      if (!env?.replyStream || already.has(env.messageId)) continue;
      const [entryId] = await publishAll(this.redis, env.replyStream, [storeUnavailableEvent(env.messageId, retryMs, true)], env.notify);
      const notice: OutageNotice = { stream: env.replyStream, entryId };
      await this.redis.hset(key, env.messageId, JSON.stringify(notice));
      count += 1;
    }
    if (count > 0) await this.redis.expire(key, REPLY_STREAM_TTL_SECONDS);
    return count;
  }

  /** The message was applied: its notice leaves its reply stream. */
  async withdraw(actor: ActorRef, messageId: string, notice: OutageNotice): Promise<void> {
    await Promise.all([this.redis.xdel(notice.stream, notice.entryId), this.redis.hdel(this.names.outageNotices(actor), messageId)]);
  }
}

/** Notices by message id, from the hash's field/value pairs (as HGETALL inside a script returns them). */
export function noticesOf(pairs: string[]): Map<string, OutageNotice> {
  const notices = new Map<string, OutageNotice>();
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    try {
      notices.set(pairs[i]!, JSON.parse(pairs[i + 1]!) as OutageNotice);
    } catch {
      // A malformed notice only means a stale event stays in a reply stream.
    }
  }
  return notices;
}

function envelopeOf(fields: string[]): Envelope | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] !== 'env') continue;
    try {
      const parsed = Envelope.safeParse(JSON.parse(fields[i + 1]!));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
