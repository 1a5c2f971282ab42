import { expect } from 'chai';
import { fnv1a, RedisNames } from '../../queues/keys.js';
import { clusterUrl, redisTarget } from '../../queues/redis-client.js';
import { hashTagOf } from '../../queues/reply-reader.js';

describe('Redis partitions and cluster URLs', function () {
  const names = new RedisNames('troupe', 16);
  const actor = { kind: 'echo', id: 'a-1' };

  it('hashes with 32-bit FNV-1a, stable across processes (the partition of every key depends on it)', () => {
    // Reference values of FNV-1a 32: the empty string is the offset basis.
    expect(fnv1a('')).to.equal(0x811c9dc5);
    expect(fnv1a('a')).to.equal(0xe40c292c);
    expect(fnv1a('foobar')).to.equal(0xbf9cf968);
    expect(names.partitionOf(actor)).to.equal(fnv1a('echo:a-1') % 16);
  });

  it('puts every key a mailbox script touches under the actor partition’s hash tag', () => {
    const tag = `{troupe:p${names.partitionOf(actor)}}`;
    const messageId = names.messageId(actor);
    const keys = [
      names.mailbox(actor),
      names.drainer(actor),
      names.awaitingDrainOf(actor),
      names.outboxDone(actor),
      names.applied(actor, messageId),
      names.replies(messageId),
      names.replyOwner(messageId),
    ];
    for (const key of keys) expect(hashTagOf(key), key).to.equal(tag.slice(1, -1));
    expect(names.appliedPrefix(actor) + messageId).to.equal(names.applied(actor, messageId));
    expect(new RedisNames('troupe', 16, 'per-partition').actorQueueOf(actor).prefix).to.equal(`bull:${tag}`);
  });

  it('queues drain jobs per kind on one server and per kind and partition on a cluster', () => {
    const single = RedisNames.forRedis('redis://127.0.0.1:6379', 'troupe', 16);
    expect(single.actorQueueOf(actor)).to.deep.equal({ name: 'troupe-actor-echo', prefix: 'bull:{troupe:actor-echo}' });
    expect(single.allDrainQueues()).to.deep.equal([0]);
    const cluster = RedisNames.forRedis('redis+cluster://h1:7000,h2:7000', 'troupe', 16);
    const partition = cluster.partitionOf(actor);
    expect(cluster.actorQueueOf(actor)).to.deep.equal({ name: `troupe-actor-echo-p${partition}`, prefix: `bull:{troupe:p${partition}}` });
    expect(cluster.allDrainQueues()).to.deep.equal(cluster.allPartitions());
  });

  it('mints message ids in their actor’s partition, as plain UUIDs', () => {
    for (let i = 0; i < 50; i++) {
      const target = { kind: 'game', id: `g-${i}` };
      const id = names.messageId(target);
      expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(names.partitionOfMessage(id)).to.equal(names.partitionOf(target));
    }
  });

  it('mints distinct ids in every partition of any count, the largest included', () => {
    for (const partitions of [1, 7, 1024]) {
      const many = new RedisNames('troupe', partitions);
      const ids = new Set<string>();
      for (let i = 0; i < 200; i++) {
        const target = { kind: 'echo', id: `m-${i}` };
        const id = many.messageId(target);
        expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(many.partitionOfMessage(id), `${partitions} partitions`).to.equal(many.partitionOf(target));
        ids.add(id);
      }
      expect(ids.size).to.equal(200);
    }
  });

  it('spreads actors over every partition', () => {
    const seen = new Set(Array.from({ length: 2_000 }, (_, i) => names.partitionOf({ kind: 'echo', id: `x${i}` })));
    expect([...seen].sort((a, b) => a - b)).to.deep.equal(names.allPartitions());
  });

  it('finds the actor of a mailbox key, and refuses keys that are not mailboxes', () => {
    expect(names.actorOfMailbox(names.mailbox({ kind: 'echo', id: 'with:colons:1' }), 'echo')).to.deep.equal({ kind: 'echo', id: 'with:colons:1' });
    expect(names.actorOfMailbox('troupe:drainer:{troupe:p1}:echo:x', 'echo')).to.equal(undefined);
  });

  it('refuses a partition count outside 1-1024', () => {
    expect(() => new RedisNames('t', 0)).to.throw(RangeError);
    expect(() => new RedisNames('t', 1025)).to.throw(RangeError);
    expect(() => new RedisNames('t', 1.5)).to.throw(RangeError);
  });

  it('reads cluster URLs: seed nodes, credentials, TLS; one server otherwise', () => {
    expect(redisTarget('redis://127.0.0.1:6379')).to.deep.equal({ kind: 'server', url: 'redis://127.0.0.1:6379' });
    expect(redisTarget('rediss+cluster://user:p%40ss@h1:7000,h2')).to.deep.equal({
      kind: 'cluster',
      nodes: [
        { host: 'h1', port: 7000 },
        { host: 'h2', port: 6379 },
      ],
      username: 'user',
      password: 'p@ss',
      tls: true,
      db: 0,
    });
    expect(redisTarget(clusterUrl('10.0.0.1:7000,10.0.0.2:7001'))).to.include({ kind: 'cluster', tls: false });
    expect(() => redisTarget('redis+cluster://h1:99999')).to.throw(/host:port/);
    expect(() => redisTarget('redis+cluster://h1:7000/2')).to.throw(/database 0/);
  });

  it('takes the first non-empty {…} of a key as its hash tag, as Redis Cluster does', () => {
    expect(hashTagOf('a:{x}:b:{y}')).to.equal('x');
    expect(hashTagOf('a:{}:b')).to.equal('a:{}:b');
    expect(hashTagOf('plain')).to.equal('plain');
  });
});
