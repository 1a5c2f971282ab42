import { expect } from 'chai';
import { pollUntil, STARTUP_BOUND_MS, withDeadline } from '../support/async.js';
import { spawnTroupe, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { freePort, tempDir } from '../support/troupe-mongo-process.js';

async function statusOf(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(url);
    await response.body?.cancel();
    return response.status;
  } catch {
    return undefined; // not listening yet
  }
}

describe('troupe start', function () {
  this.timeout(STARTUP_BOUND_MS + 60_000);
  let troupe: TroupeProcess | undefined;
  let dbpath: { dir: string; remove(): Promise<void> } | undefined;
  // A prefix of its own: the default one belongs to whichever troupe first ran on this Redis.
  const redisPrefix = `test-start-${process.pid}-${Date.now().toString(36)}`;

  afterEach(async () => {
    await troupe?.kill();
    troupe = undefined;
    await dbpath?.remove();
    dbpath = undefined;
    await deleteRedisPrefix(redisPrefix);
  });

  it('serves /healthz and /readyz with no configuration but PORT, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    dbpath = await tempDir('troupe-start-e2e');
    const running = spawnTroupe(['start'], troupeEnv({ PORT: String(port), EMBEDDED_MONGO_DBPATH: dbpath.dir, REDIS_PREFIX: redisPrefix }));
    troupe = running;
    const base = `http://127.0.0.1:${port}`;
    const describeOutput = () => `stdout:\n${running.stdout()}\nstderr:\n${running.stderr()}`;

    const exitedEarly = running.exited.then((status) => {
      throw new Error(`troupe start exited early ${JSON.stringify(status)}\n${describeOutput()}`);
    });
    exitedEarly.catch(() => undefined); // handled by the race below; keeps a later normal exit quiet
    for (const path of ['/healthz', '/readyz']) {
      const answered = pollUntil(async () => (await statusOf(`${base}${path}`)) === 200, {
        timeoutMs: STARTUP_BOUND_MS,
        what: `${path} to answer 200`,
      });
      await Promise.race([answered, exitedEarly]).catch((error: Error) => {
        throw new Error(`${error.message}\n${describeOutput()}`, { cause: error });
      });
    }

    const ready = (await (await fetch(`${base}/readyz`)).json()) as unknown;
    expect(ready).to.deep.equal({ status: 'ready', checks: { redis: 'ok', mongo: 'ok', workers: 'ok' } });
    expect(running.stdout()).to.include(`${base}/healthz`);
    // The first start of an empty database loads the bundled MTG dataset before serving.
    expect(running.stdout()).to.include('MTG dataset loaded in');

    running.child.kill('SIGTERM');
    const status = await withDeadline(running.exited, 20_000, `troupe start to exit after SIGTERM (${describeOutput()})`);
    expect(status, describeOutput()).to.deep.equal({ code: 0, signal: null });
    expect(await statusOf(`${base}/healthz`)).to.equal(undefined);
  });
});
