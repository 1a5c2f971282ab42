import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { pollUntil, withDeadline } from '../support/async.js';
import { spawnTroupe, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';
import { freePort } from '../support/troupe-mongo-process.js';

describe('troupe CLI', function () {
  this.timeout(30_000);
  const spawned: TroupeProcess[] = [];

  async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const troupe = spawnTroupe(args, troupeEnv(env));
    spawned.push(troupe);
    const { code } = await withDeadline(troupe.exited, 25_000, `troupe ${args.join(' ')} to exit`);
    return { code, stdout: troupe.stdout(), stderr: troupe.stderr() };
  }

  afterEach(async () => {
    for (const troupe of spawned.splice(0)) await troupe.kill();
  });

  it('--help lists the subcommands with descriptions', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).to.equal(0);
    expect(stdout).to.match(/^\s+start\s+run troupe/m);
    expect(stdout).to.match(/^\s+mongo \[options\]\s+run the embedded MongoDB-compatible server/m);
    expect(stdout).to.match(/^\s+bench\s+run a benchmark/m);
  });

  it('bench --help lists the mongo benchmark', async () => {
    const { code, stdout } = await run(['bench', '--help']);
    expect(code).to.equal(0);
    expect(stdout).to.match(/^\s+mongo\s+ops\/s/m);
  });

  it('exits 1 with one message naming PORT when PORT is bad, without a stack trace', async () => {
    const { code, stdout, stderr } = await run(['start'], { PORT: 'abc' });
    expect(code).to.equal(1);
    expect(stderr).to.include('PORT must be an integer 0-65535 (got "abc")');
    expect(stderr).to.not.match(/^\s+at /m);
    expect(stdout).to.equal('');
  });

  it('exits 1 naming REDIS_URL when it is unreachable', async () => {
    const port = await freePort();
    const { code, stderr } = await run(['start'], { REDIS_URL: `redis://127.0.0.1:${port}` });
    expect(code).to.equal(1);
    expect(stderr).to.include(`REDIS_URL=redis://127.0.0.1:${port} is unreachable`);
    expect(stderr).to.not.match(/^\s+at /m);
  });

  it('rejects a bad --port for mongo', async () => {
    const { code, stderr } = await run(['mongo', '--port', 'x']);
    expect(code).to.equal(1);
    expect(stderr).to.include('--port');
  });

  it('mongo logs the listening line with its uri, serves MongoDB there and exits 0 on SIGTERM', async () => {
    const troupe = spawnTroupe(['mongo', '--port', '0'], troupeEnv({}));
    spawned.push(troupe);
    const uri = await pollUntil(
      () => {
        for (const line of troupe.stdout().split('\n')) {
          if (!line.startsWith('{')) continue;
          const entry = JSON.parse(line) as { msg?: string; uri?: string };
          if (entry.msg === 'embedded MongoDB-compatible server listening') return entry.uri;
        }
        if (troupe.exitStatus() !== undefined) throw new Error(`exited early: ${troupe.stderr()}`);
        return undefined;
      },
      { timeoutMs: 20_000, what: 'the listening line' },
    );
    expect(uri).to.match(/^mongodb:\/\/127\.0\.0\.1:\d+\//);

    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 });
    try {
      expect((await client.db('admin').command({ ping: 1 })).ok).to.equal(1);
    } finally {
      await client.close();
    }

    troupe.child.kill('SIGTERM');
    const status = await withDeadline(troupe.exited, 15_000, 'troupe mongo to exit after SIGTERM');
    expect(status).to.deep.equal({ code: 0, signal: null });
  });
});
