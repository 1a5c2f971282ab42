/**
 * Replies heard on a gateway's pub/sub channel (real Redis): delivery in order, notifications that
 * arrive before their follower, and the reply stream as the record whenever a notification is missed.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { RedisNames } from '../../queues/keys.js';
import { defineReplyCommands, publishAll, type ReplyEvent } from '../../queues/reply-stream.js';
import { ReplyNotifications } from '../../queues/reply-notifications.js';
import { pollUntil } from '../support/async.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function collect(source: AsyncIterable<ReplyEvent>): Promise<ReplyEvent[]> {
  const events: ReplyEvent[] = [];
  for await (const e of source) events.push(e);
  return events;
}

describe('reply notifications (pub/sub with the reply stream as the record)', function () {
  this.timeout(20_000);
  const names = new RedisNames(`test-notify-${process.pid}-${Date.now().toString(36)}`);
  let redis: Redis;
  let notifications: ReplyNotifications;
  const streams: string[] = [];
  const stream = () => {
    const name = names.replies(randomUUID());
    streams.push(name);
    return name;
  };

  beforeEach(async () => {
    redis = new Redis(REDIS_URL, { enableAutoPipelining: true });
    defineReplyCommands(redis);
    notifications = new ReplyNotifications(REDIS_URL, redis, names.replyNotify(randomUUID()));
    await pollUntil(() => notifications.listening, { timeoutMs: 5_000, intervalMs: 5, what: 'the subscription' });
  });

  afterEach(async () => {
    await notifications.close();
    if (streams.length) await redis.del(...streams.splice(0));
    redis.disconnect();
  });

  it('hands a follower the events published to its channel, in order, and ends at done', async () => {
    const s = stream();
    const following = collect(notifications.follow(s));
    await publishAll(redis, s, [{ e: 'token', d: { text: 'a' } }], notifications.channel);
    await publishAll(redis, s, [{ e: 'token', d: { text: 'b' } }, { e: 'reply', d: { ok: true } }, { e: 'done', d: null }], notifications.channel);
    const events = await following;
    expect(events.map((e) => [e.event, e.data])).to.deep.equal([
      ['token', { text: 'a' }],
      ['token', { text: 'b' }],
      ['reply', { ok: true }],
      ['done', null],
    ]);
    // The ids are the stream's own (what a client resumes from with Last-Event-ID).
    expect(events.map((e) => e.id)).to.deep.equal((await redis.xrange(s, '-', '+')).map(([id]) => id));
  });

  it('keeps a notification that arrives before its follower (a fast reply) for that follower', async () => {
    const s = stream();
    await publishAll(redis, s, [{ e: 'reply', d: 1 }, { e: 'done', d: null }], notifications.channel);
    // The subscriber has received it once a later message on the channel has (pub/sub keeps order).
    const marker = stream();
    const seen = collect(notifications.follow(marker));
    await publishAll(redis, marker, [{ e: 'done', d: null }], notifications.channel);
    await seen;
    expect((await collect(notifications.follow(s))).map((e) => e.event)).to.deep.equal(['reply', 'done']);
  });

  it('reads the stream when nothing is heard: events appended without a notification still arrive', async () => {
    const s = stream();
    const following = collect(notifications.follow(s));
    await publishAll(redis, s, [{ e: 'token', d: 'heard' }], notifications.channel);
    await publishAll(redis, s, [{ e: 'reply', d: 'unheard' }, { e: 'done', d: null }]);
    expect((await following).map((e) => e.data)).to.deep.equal(['heard', 'unheard', null]);
  });

  it('catches up from the stream after its subscriber connection is dropped', async () => {
    const s = stream();
    const following = collect(notifications.follow(s));
    const admin = new Redis(REDIS_URL);
    try {
      const clients = (await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string;
      const mine = clients.split('\n').find((line) => line.includes(` name=${notifications.channel} `));
      const id = /id=(\d+)/.exec(mine ?? '')?.[1];
      expect(id, 'the subscriber connection').to.not.equal(undefined);
      await admin.client('KILL', 'ID', id!);
      // Published while the subscriber is away (or before it has subscribed again): only the stream has it.
      await publishAll(redis, s, [{ e: 'reply', d: 'while away' }, { e: 'done', d: null }], notifications.channel);
      expect((await following).map((e) => e.data)).to.deep.equal(['while away', null]);
      await pollUntil(() => notifications.listening, { timeoutMs: 10_000, intervalMs: 10, what: 'the subscription to come back' });
    } finally {
      admin.disconnect();
    }
  });

  it('resumes after a given id without repeating what came before', async () => {
    const s = stream();
    const [first] = await publishAll(redis, s, [{ e: 'token', d: 1 }, { e: 'token', d: 2 }], notifications.channel);
    const following = collect(notifications.follow(s, { lastId: first }));
    await publishAll(redis, s, [{ e: 'done', d: null }], notifications.channel);
    expect((await following).map((e) => e.data)).to.deep.equal([2, null]);
  });

  it('stops following when its signal aborts, and stops listening when closed', async () => {
    const s = stream();
    const abort = new AbortController();
    const following = collect(notifications.follow(s, { signal: abort.signal }));
    abort.abort();
    expect(await following).to.deep.equal([]);
    await notifications.close();
    expect(notifications.listening).to.equal(false);
  });
});
