/**
 * A follower of a posted message waits through a Redis outage: reading the reply stream fails while
 * Redis restarts, and the follower reads again at its next poll instead of giving up (real Redis; the
 * command connection's reads fail as ioredis fails them while disconnected).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis, ReplyError } from 'ioredis';
import { RedisNames } from '../../queues/keys.js';
import { defineReplyCommands, publishAll, type ReplyEvent } from '../../queues/reply-stream.js';
import { ReplyNotifications } from '../../queues/reply-notifications.js';
import { pollUntil } from '../support/async.js';
import { freePort } from '../support/troupe-mongo-process.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function collect(source: AsyncIterable<ReplyEvent>): Promise<ReplyEvent[]> {
  const events: ReplyEvent[] = [];
  for await (const e of source) events.push(e);
  return events;
}

/** The error ioredis rejects a command with after its reconnect attempts while the server is gone. */
async function maxRetriesError(): Promise<Error> {
  const gone = new Redis(await freePort(), '127.0.0.1', { maxRetriesPerRequest: 0, retryStrategy: () => 10 });
  gone.on('error', () => undefined);
  try {
    await gone.xrange('any', '-', '+');
    throw new Error('read without a server');
  } catch (error) {
    return error as Error;
  } finally {
    gone.disconnect();
  }
}

/** `redis`, except that its first `failures` XRANGEs reject with `error`. */
function failingReads(redis: Redis, failures: number, error: Error): Redis {
  let left = failures;
  return new Proxy(redis, {
    get(target, property) {
      if (property === 'xrange') {
        return (...args: Parameters<Redis['xrange']>) => (left-- > 0 ? Promise.reject(error) : target.xrange(...args));
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('reply notifications through a Redis outage', function () {
  this.timeout(20_000);
  const names = new RedisNames(`test-notify-outage-${process.pid}-${Date.now().toString(36)}`);
  let redis: Redis;
  let notifications: ReplyNotifications | undefined;
  const streams: string[] = [];

  const listen = async (commands: Redis) => {
    notifications = new ReplyNotifications(REDIS_URL, commands, names.replyNotify(randomUUID()));
    await pollUntil(() => notifications!.listening, { timeoutMs: 5_000, intervalMs: 5, what: 'the subscription' });
    return notifications;
  };

  /** A reply appended without a notification: only reading the stream finds it. */
  const unheardReply = async () => {
    const stream = names.replies(randomUUID());
    streams.push(stream);
    await publishAll(redis, stream, [{ e: 'reply', d: { ok: true } }, { e: 'done', d: null }]);
    return stream;
  };

  beforeEach(() => {
    redis = new Redis(REDIS_URL, { enableAutoPipelining: true });
    defineReplyCommands(redis);
  });

  afterEach(async () => {
    await notifications?.close();
    notifications = undefined;
    if (streams.length) await redis.del(...streams.splice(0));
    redis.disconnect();
  });

  it('keeps reading the stream while Redis cannot be reached, and hands over the reply once it can', async () => {
    const outage = await maxRetriesError();
    const following = await listen(failingReads(redis, 2, outage));
    const events = await collect(following.follow(await unheardReply()));
    expect(events.map((e) => e.event)).to.deep.equal(['reply', 'done']);
  });

  it('gives up on any other failure of the read', async () => {
    const refused = new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value');
    const following = await listen(failingReads(redis, 1, refused));
    const failure = await collect(following.follow(await unheardReply())).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).to.equal(refused);
  });
});
