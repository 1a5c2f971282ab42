import { expect } from 'chai';
import { createRedisClient, type RedisClient } from '../../queues/redis-client.js';
import { ReplyReader } from '../../queues/reply-reader.js';
import type { ReplyEvent } from '../../queues/reply-stream.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Counts the long timers (idle timeouts) set and not cleared while `body` runs; none fires within it. */
async function longTimersLeft(body: () => Promise<void>): Promise<number> {
  const pending = new Set<unknown>();
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  globalThis.setTimeout = ((fn: () => void, ms?: number, ...args: unknown[]) => {
    const timer = realSet(fn, ms, ...args);
    if ((ms ?? 0) >= 10_000) pending.add(timer);
    return timer;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((timer?: Parameters<typeof clearTimeout>[0]) => {
    pending.delete(timer);
    realClear(timer);
  }) as typeof clearTimeout;
  try {
    await body();
  } finally {
    globalThis.setTimeout = realSet;
    globalThis.clearTimeout = realClear;
  }
  return pending.size;
}

describe('ReplyReader (blocking XREAD over followed reply streams), real Redis', function () {
  const prefix = `test-reply-reader-${process.pid}-${Date.now().toString(36)}`;
  let redis: RedisClient;
  let reader: ReplyReader;

  before(() => {
    redis = createRedisClient(REDIS_URL, { maxRetriesPerRequest: 3 });
    reader = new ReplyReader(REDIS_URL);
  });

  after(async () => {
    await reader.close();
    redis.disconnect();
    await deleteRedisPrefix(prefix);
  });

  it('follows a stream event by event to its terminal event, leaving no idle timer behind each wait', async function () {
    const stream = `${prefix}:replies:one`;
    const waits = 40;
    const heard: ReplyEvent[] = [];
    const follower = reader.follow(stream, { idleTimeoutMs: 60_000 });
    // Each event is appended only once the previous one was heard, so the follower waits before each.
    const left = await longTimersLeft(async () => {
      let next = follower.next();
      for (let i = 0; i < waits; i++) {
        await redis.xadd(stream, '*', 'e', 'progress', 'd', JSON.stringify({ i }));
        const { value, done } = await next;
        expect(done).to.equal(false);
        heard.push(value as ReplyEvent);
        next = follower.next();
      }
      await redis.xadd(stream, '*', 'e', 'done', 'd', '{}');
      expect((await next).value).to.include({ event: 'done' });
      expect((await follower.next()).done).to.equal(true);
    });
    expect(heard.map((e) => e.data)).to.deep.equal(Array.from({ length: waits }, (_, i) => ({ i })));
    // Each wait's idle timer (a minute long) is cleared once the follower is woken.
    expect(left).to.equal(0);
  });
});
