/**
 * What troupe does differently on a Redis Cluster, against a real one of three masters: settings are
 * checked on every master, key scans and deletes cover every master, and the reply reader follows a
 * stream's slot when it moves to another node (MOVED).
 */
import { expect } from 'chai';
import { RedisNames } from '../../queues/keys.js';
import { createRedisClient, deleteMatchingKeys, scanKeys, type RedisClient } from '../../queues/redis-client.js';
import { checkRedisSettings } from '../../queues/redis-settings.js';
import { ReplyReader } from '../../queues/reply-reader.js';
import { defineReplyCommands, publish, type ReplyEvent } from '../../queues/reply-stream.js';
import type { Logger } from '../../logging/logger.js';
import { pollUntil } from '../support/async.js';
import { startRedisCluster, type RedisClusterHandle } from '../support/redis-cluster.js';
import { Redis, type Cluster } from 'ioredis';

describe('troupe on a Redis Cluster: settings, scans and a moved slot', function () {
  this.timeout(60_000);
  let cluster: RedisClusterHandle;
  let client: Cluster;
  const names = new RedisNames(`test-cluster-conn-${process.pid}`, 16, 'per-partition');

  before(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    const connected: RedisClient = createRedisClient(cluster.url, { maxRetriesPerRequest: 3 });
    client = connected as Cluster;
    defineReplyCommands(client);
    await new Promise<void>((resolve, reject) => {
      client.once('ready', () => resolve());
      client.once('error', reject);
    });
  });
  after(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('checks maxmemory-policy and persistence on every master, naming each', async () => {
    const warnings: string[] = [];
    const logger = { warn: (_o: unknown, message: string) => warnings.push(message), debug: () => undefined } as unknown as Logger;
    // The harness's nodes run without persistence: each master gets its own warning.
    await checkRedisSettings(client, { url: cluster.url, allowEviction: false, logger });
    expect(warnings).to.have.length(3);
    for (const { port } of cluster.nodes) expect(warnings.some((w) => w.includes(`:${port})`) && w.includes('persistence off'))).to.equal(true);
  });

  it('scans and deletes a prefix’s keys on every master', async () => {
    const keys = names.allPartitions().map((p) => `${names.prefix}:scan:${names.tag(p)}`);
    await Promise.all(keys.map((key) => client.set(key, '1')));
    const found: string[] = [];
    for await (const page of scanKeys(client, `${names.prefix}:scan:*`)) found.push(...page);
    expect(found.sort()).to.deep.equal([...keys].sort());
    expect(await deleteMatchingKeys(client, `${names.prefix}:scan:*`)).to.equal(keys.length);
    expect(await Promise.all(keys.map((key) => client.exists(key)))).to.deep.equal(keys.map(() => 0));
  });

  it('a follower of a stream whose slot moves ends with the error; one that resumes reads from the slot’s new master', async () => {
    const reader = new ReplyReader(cluster.url);
    const stream = names.replies(names.messageId({ kind: 'echo', id: 'moving' }));
    try {
      const first = await publish(client, stream, 'progress', { n: 1 });
      const heard: ReplyEvent[] = [];
      const following = (async () => {
        for await (const event of reader.follow(stream)) heard.push(event);
      })();
      await pollUntil(async () => heard.length === 1, { timeoutMs: 10_000, what: 'the first event heard' });

      await moveSlot(client, Number(await client.cluster('KEYSLOT', stream)));
      const ended = await following.then(
        () => undefined,
        (error: Error) => error,
      );
      expect(ended?.message, 'the blocked read was redirected').to.match(/^MOVED /);

      await new Promise<void>((resolve) => client.refreshSlotsCache(() => resolve()));
      await publish(client, stream, 'done', { n: 2 });
      const resumed: ReplyEvent[] = [];
      for await (const event of reader.follow(stream, { lastId: first })) resumed.push(event);
      expect(resumed.map((e) => [e.event, e.data])).to.deep.equal([['done', { n: 2 }]]);
    } finally {
      await reader.close();
      await client.unlink(stream);
    }
  });
});

/** Moves one slot, with its keys, from its master to another one, as `redis-cli --cluster reshard` does. */
async function moveSlot(client: Cluster, slot: number): Promise<void> {
  const masters = client.nodes('master');
  const ids = await Promise.all(masters.map(async (node) => String(await node.cluster('MYID'))));
  const from = (await Promise.all(masters.map((node) => ownsSlot(node, slot)))).findIndex(Boolean);
  const to = (from + 1) % masters.length;
  const [source, target] = [masters[from]!, masters[to]!];
  await target.cluster('SETSLOT', slot, 'IMPORTING', ids[from]!);
  await source.cluster('SETSLOT', slot, 'MIGRATING', ids[to]!);
  for (;;) {
    const keys = (await source.cluster('GETKEYSINSLOT', slot, 100)) as string[];
    if (keys.length === 0) break;
    await source.migrate(target.options.host!, target.options.port!, '', 0, 5_000, 'KEYS', ...keys);
  }
  for (const node of masters) await node.cluster('SETSLOT', slot, 'NODE', ids[to]!);
}

async function ownsSlot(node: Redis, slot: number): Promise<boolean> {
  const ranges = await node.cluster('SLOTS');
  const myId = String(await node.cluster('MYID'));
  return ranges.some(([start, end, master]) => slot >= start && slot <= end && master?.[2] === myId);
}
