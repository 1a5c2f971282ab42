/**
 * `mocha --require test/support/on-redis-cluster.ts …` (npm run test:cluster): the files run against a
 * Redis Cluster of three masters on loopback, started here before any test file is loaded (they read
 * REDIS_URL as they load) and stopped after the last test.
 */
import { startRedisCluster } from './redis-cluster.js';

const cluster = await startRedisCluster({ masters: 3 });
process.env.REDIS_URL = cluster.url;
process.stderr.write(`tests run on a Redis Cluster of 3 masters: ${cluster.url}\n`);
process.once('exit', () => {
  for (const pid of cluster.pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

export const mochaHooks = {
  async afterAll() {
    await cluster.stop();
  },
};
