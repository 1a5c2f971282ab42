import { expect } from 'chai';
import { createRedisClient } from '../../queues/redis-client.js';
import { measureMachineHops } from '../../scripts/bench/machine-hops.js';
import { useMongo } from '../support/mongo-target.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('bench machine hops (the latency reference line)', function () {
  const mongo = useMongo('machine_hops');

  it('times each hop in both modes, hears every publish in another process, and leaves nothing behind', async function () {
    const hops = await measureMachineHops({ redisUrl: REDIS_URL, mongoUri: mongo.target.uri, samples: 25, idleMs: 1, warmupCalls: 10 });
    expect(hops.samples).to.equal(25);
    expect(hops.heard).to.deep.equal({ busy: 25, idle: 25 });
    for (const hop of [hops.redis_post_like_script_round_trip_ms, hops.redis_publish_heard_by_another_process_ms, hops.mongo_ping_round_trip_ms]) {
      for (const mode of [hop.busy, hop.idle]) {
        expect(mode.p50).to.be.a('number').and.be.above(0);
        expect(mode.p99).to.be.at.least(mode.p50);
      }
    }
    const redis = createRedisClient(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      expect(await redis.keys(`machine-hops-${process.pid}-*`)).to.deep.equal([]);
    } finally {
      redis.disconnect();
    }
  });
});
