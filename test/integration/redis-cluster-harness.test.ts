/**
 * The Redis Cluster test harness (test/support/redis-cluster.ts) makes a real cluster: 3 masters that
 * own every slot between them, reachable with an ioredis `Cluster`, that run hash-tagged Lua scripts
 * and refuse a cross-slot one (which a single redis-server would accept), and that `stop()` ends.
 * Other tests rely on it to prove troupe's keys and scripts are cluster-safe.
 */
import { expect } from 'chai';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis, type Cluster } from 'ioredis';
import { CLUSTER_SLOTS, connectRedisCluster, startRedisCluster, type RedisClusterHandle } from '../support/redis-cluster.js';

/** CLUSTER SLOTS: [start, end, [ip, port, id, ...], ...replicas] for every range. */
type SlotRange = [number, number, [string, number, ...unknown[]], ...unknown[]];

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('Redis Cluster test harness (real redis-server --cluster-enabled yes)', function () {
  // A bound for starting 3 servers and forming the cluster on a busy machine, not a speed assertion.
  this.timeout(60_000);
  let cluster: RedisClusterHandle;
  let client: Cluster;
  /** The port of the master that owns each slot. */
  let ownerOfSlot: (slot: number) => number;

  before(async () => {
    cluster = await startRedisCluster({ masters: 3 });
    client = await connectRedisCluster(cluster);
    const ranges = (await client.cluster('SLOTS')) as unknown as SlotRange[];
    ownerOfSlot = (slot) => {
      const range = ranges.find(([start, end]) => slot >= start && slot <= end);
      if (range === undefined) throw new Error(`no master owns slot ${slot}`);
      return range[2][1];
    };
  });

  after(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  const keySlot = async (key: string) => Number(await client.cluster('KEYSLOT', key));

  it('has 3 masters on loopback that own all 16384 slots between them', async () => {
    expect(cluster.nodes).to.have.length(3);
    expect(cluster.pids).to.have.length(3);
    expect(cluster.url).to.equal(`redis+cluster://${cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(',')}`);
    for (const { host } of cluster.nodes) expect(host).to.equal('127.0.0.1');

    const ranges = (await client.cluster('SLOTS')) as unknown as SlotRange[];
    const slotsByPort = new Map<number, number>();
    for (const [start, end, [, port], ...replicas] of ranges) {
      expect(replicas, 'no replicas').to.deep.equal([]);
      slotsByPort.set(port, (slotsByPort.get(port) ?? 0) + end - start + 1);
    }
    expect([...slotsByPort.keys()].sort()).to.deep.equal(cluster.nodes.map(({ port }) => port).sort());
    expect([...slotsByPort.values()].reduce((a, b) => a + b, 0)).to.equal(CLUSTER_SLOTS);
    expect(client.nodes('master')).to.have.length(3);

    for (const { port } of cluster.nodes) {
      const node = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
      try {
        const info = await node.cluster('INFO');
        expect(info).to.match(/^cluster_state:ok\r?$/m);
        expect(info).to.match(new RegExp(`^cluster_slots_assigned:${CLUSTER_SLOTS}\\r?$`, 'm'));
        expect(info).to.match(/^cluster_size:3\r?$/m);
      } finally {
        node.disconnect();
      }
    }
  });

  it('stores keys of different slots on the master that owns each slot, through ioredis Cluster', async () => {
    // Keys until every master holds at least one, so the round trip crosses all three nodes.
    const keysByPort = new Map<number, string>();
    for (let i = 0; keysByPort.size < 3; i++) {
      expect(i, 'keys spread over the 3 masters').to.be.below(1_000);
      const key = `troupe:harness:key-${i}`;
      const port = ownerOfSlot(await keySlot(key));
      if (!keysByPort.has(port)) keysByPort.set(port, key);
    }

    for (const [port, key] of keysByPort) expect(await client.set(key, `on ${port}`)).to.equal('OK');
    for (const [port, key] of keysByPort) {
      expect(await client.get(key)).to.equal(`on ${port}`);
      // The value really lives on the owning node alone: read it there without the cluster client.
      const owner = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
      try {
        expect(await owner.get(key)).to.equal(`on ${port}`);
      } finally {
        owner.disconnect();
      }
    }
    expect(await client.del(...keysByPort.values()).catch((error: Error) => error.message)).to.match(/CROSSSLOT/, 'a multi-key DEL across slots is refused');
    for (const key of keysByPort.values()) expect(await client.del(key)).to.equal(1);
  });

  it('runs a Lua script whose keys share the hash tag {troupe:p7} (EVAL and EVALSHA)', async () => {
    const keys = ['{troupe:p7}:state', '{troupe:p7}:mailbox'];
    const slots = await Promise.all(keys.map(keySlot));
    expect(slots[0]).to.equal(slots[1]);
    const script = `
      redis.call('SET', KEYS[1], ARGV[1])
      redis.call('RPUSH', KEYS[2], ARGV[1])
      return { redis.call('GET', KEYS[1]), redis.call('LLEN', KEYS[2]) }`;

    expect(await client.eval(script, 2, ...keys, 'hello')).to.deep.equal(['hello', 1]);
    // BullMQ loads its scripts and calls them by SHA: the same path, through defineCommand.
    client.defineCommand('troupeHarnessPush', { numberOfKeys: 2, lua: script });
    const push = (client as unknown as { troupeHarnessPush(...args: string[]): Promise<unknown> }).troupeHarnessPush.bind(client);
    expect(await push(...keys, 'again')).to.deep.equal(['again', 2]);
    expect(await client.lrange(keys[1]!, 0, -1)).to.deep.equal(['hello', 'again']);
    expect(await client.del(...keys)).to.equal(2);
  });

  it('refuses a script whose keys hash to different slots (CROSSSLOT): it is a cluster', async () => {
    const keys = ['troupe:p7:state', 'troupe:p8:state'];
    const [first, second] = await Promise.all(keys.map(keySlot));
    expect(first).to.not.equal(second);
    const error = await client.eval("return redis.call('MGET', KEYS[1], KEYS[2])", 2, ...keys).then(
      () => undefined,
      (reason: Error) => reason,
    );
    expect(error, 'the cross-slot script was refused').to.be.instanceOf(Error);
    expect(error!.message).to.match(/^CROSSSLOT/);
  });

  it('stop() ends every node, removes the directories and can be called again', async () => {
    expect(cluster.dirs).to.have.length(3);
    for (const dir of cluster.dirs) await access(join(dir, 'nodes.conf'));
    client.disconnect();
    await cluster.stop();
    for (const pid of cluster.pids) expect(isAlive(pid), `redis-server pid ${pid} ended`).to.equal(false);
    for (const dir of cluster.dirs) expect(await exists(dir), `${dir} removed`).to.equal(false);
    await cluster.stop();
  });
});
