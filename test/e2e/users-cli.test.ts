import { expect } from 'chai';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { writeEmbeddedMongoAddress } from '../../scripts/embedded-mongo-address.js';
import { pollUntil, STARTUP_BOUND_MS, withDeadline } from '../support/async.js';
import { uniqueDbName } from '../support/mongo-target.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { copySeededDbpath } from '../support/seeded-dbpath.js';
import { freePort, tempDir } from '../support/troupe-mongo-process.js';
import { runTroupe, spawnTroupe, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';

const KEY = /trp_[0-9a-f]{12}_[A-Za-z0-9_-]{43}/;

describe('troupe users (CLI)', function () {
  this.timeout(STARTUP_BOUND_MS + 60_000);
  const spawned: TroupeProcess[] = [];
  let mongo: EmbeddedMongo;
  const env = () => ({ MONGODB_URI: mongo.uri, MONGODB_DB: uniqueDbNameForRun });
  const uniqueDbNameForRun = uniqueDbName('users_cli');

  const troupe = (args: string[], extraEnv: Record<string, string>) => runTroupe(args, troupeEnv(extraEnv), spawned, 40_000);

  before(async () => {
    mongo = await startEmbeddedMongo({ port: 0 });
  });

  afterEach(async () => {
    for (const child of spawned.splice(0)) await child.kill();
  });

  after(async () => {
    await mongo?.stop();
  });

  it('users --help lists its subcommands', async () => {
    const { code, stdout } = await troupe(['users', '--help'], {});
    expect(code).to.equal(0);
    for (const command of ['create', 'list', 'revoke', 'key', 'grant', 'revoke-role']) expect(stdout).to.match(new RegExp(`^\\s+${command}\\b`, 'm'));
  });

  it('creates a user, printing the key once; lists it; revokes a key and the user', async () => {
    const created = await troupe(['users', 'create', 'xavier'], env());
    expect(created.code, created.stderr).to.equal(0);
    expect(created.stdout).to.include('Created user xavier');
    const key = KEY.exec(created.stdout)?.[0];
    expect(key, created.stdout).to.be.a('string');
    const prefix = key!.slice(0, 'trp_'.length + 12);

    const listed = await troupe(['users', 'list'], env());
    expect(listed.code, listed.stderr).to.equal(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).to.match(/^NAME\s+ROLES\s+CREATED\s+KEYS\s+REVOKED$/);
    expect(lines[1]).to.match(new RegExp(`^xavier\\s+-\\s+\\d{4}-\\d\\d-\\d\\dT\\S+\\s+${prefix}\\s+-$`));
    expect(listed.stdout).to.not.include(key!); // the key itself is never shown again

    const second = await troupe(['users', 'key', 'xavier'], env());
    expect(second.code, second.stderr).to.equal(0);
    const secondKey = KEY.exec(second.stdout)?.[0];
    expect(secondKey).to.be.a('string').and.not.equal(key);

    const revokedKey = await troupe(['users', 'revoke', prefix], env());
    expect(revokedKey.code, revokedKey.stderr).to.equal(0);
    expect(revokedKey.stdout).to.include(`Revoked API key ${prefix} of user xavier`);

    const json = await troupe(['users', 'list', '--json'], env());
    const users = JSON.parse(json.stdout) as Array<{ name: string; revokedAt?: string; keys: Array<{ prefix: string; revokedAt?: string }> }>;
    expect(users[0]!.keys.find((k) => k.prefix === prefix)?.revokedAt).to.be.a('string');
    expect(users[0]!.revokedAt).to.equal(undefined);

    const revokedUser = await troupe(['users', 'revoke', 'xavier'], env());
    expect(revokedUser.code, revokedUser.stderr).to.equal(0);
    expect(revokedUser.stdout).to.include('Revoked user xavier and 1 API key(s)');
    const after = await troupe(['users', 'list'], env());
    expect(after.stdout).to.match(/^xavier\s+-\s+\S+\s+trp_\S+ \(revoked\), trp_\S+ \(revoked\)\s+\d{4}-/m);
  });

  it('exits 1 with one line for a taken name, a bad name and an unknown target', async () => {
    await troupe(['users', 'create', 'yolanda'], env());
    for (const [args, message] of [
      [['users', 'create', 'yolanda'], 'a user named yolanda already exists'],
      [['users', 'create', 'bad name'], 'a user name is 1-64 letters'],
      [['users', 'revoke', 'nobody'], 'no user or API key prefix nobody'],
      [['users', 'key', 'nobody'], 'no user named nobody'],
    ] as const) {
      const result = await troupe([...args], env());
      expect(result.code, args.join(' ')).to.equal(1);
      expect(result.stderr.startsWith(`troupe: ${message}`), result.stderr).to.equal(true);
      expect(result.stderr.trim().split('\n')).to.have.length(1);
      expect(result.stderr).to.not.match(/^\s+at /m);
    }
  });

  it('creates an admin with --admin, grants and revokes the role, and lists roles', async () => {
    const created = await troupe(['users', 'create', 'ada', '--admin'], env());
    expect(created.code, created.stderr).to.equal(0);
    expect(created.stdout).to.include('Created user ada').and.include('with role admin');
    expect(created.stdout).to.match(KEY);
    await troupe(['users', 'create', 'bea'], env());
    const table = await troupe(['users', 'list'], env());
    expect(table.stdout).to.match(/^ada\s+admin\s+\d{4}-/m).and.match(/^bea\s+-\s+\d{4}-/m);

    const granted = await troupe(['users', 'grant', 'bea', 'admin'], env());
    expect(granted.code, granted.stderr).to.equal(0);
    expect(granted.stdout).to.equal('Granted admin to bea.\n');
    const again = await troupe(['users', 'grant', 'bea', 'admin'], env());
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.equal('bea already has admin.\n');
    const revoked = await troupe(['users', 'revoke-role', 'ada', 'admin'], env());
    expect(revoked.code, revoked.stderr).to.equal(0);
    expect(revoked.stdout).to.equal('Revoked admin from ada.\n');
    const json = JSON.parse((await troupe(['users', 'list', '--json'], env())).stdout) as Array<{ name: string; roles: string[] }>;
    expect(json.map(({ name, roles }) => ({ name, roles }))).to.deep.include.members([
      { name: 'ada', roles: [] },
      { name: 'bea', roles: ['admin'] },
    ]);
  });

  it('exits 1 with one line for an unknown user or role, or a revoked user', async () => {
    await troupe(['users', 'create', 'cora'], env());
    await troupe(['users', 'revoke', 'cora'], env());
    for (const [args, message] of [
      [['users', 'grant', 'nobody', 'admin'], 'no user named nobody'],
      [['users', 'revoke-role', 'nobody', 'admin'], 'no user named nobody'],
      [['users', 'grant', 'cora', 'admin'], 'user cora is revoked'],
      [['users', 'grant', 'cora', 'root'], 'unknown role "root": the roles are admin'],
    ] as const) {
      const result = await troupe([...args], env());
      expect(result.code, args.join(' ')).to.equal(1);
      expect(result.stderr, args.join(' ')).to.equal(`troupe: ${message}\n`);
    }
  });

  it('says to set MONGODB_URI when the embedded data directory is held by a running server', async () => {
    const dbpath = await tempDir('troupe-users-cli');
    // This test process holds the journal lock, as a running `troupe start` would.
    const holder = await startEmbeddedMongo({ port: 0, dbpath: dbpath.dir });
    try {
      const plain = await troupe(['users', 'list'], { EMBEDDED_MONGO_DBPATH: dbpath.dir });
      expect(plain.code).to.equal(1);
      expect(plain.stderr).to.include(`(EMBEDDED_MONGO_DBPATH) is in use by process ${process.pid}`);
      expect(plain.stderr).to.include('Run this command with MONGODB_URI set to');
      expect(plain.stderr).to.include('or stop that process first');

      // `troupe start` also records where it serves that directory: then the message names the URI.
      const remove = await writeEmbeddedMongoAddress(dbpath.dir, holder.uri);
      const named = await troupe(['users', 'list'], { EMBEDDED_MONGO_DBPATH: dbpath.dir });
      // The suggestion repeats the command that was typed.
      const creating = await troupe(['users', 'create', 'zoe'], { EMBEDDED_MONGO_DBPATH: dbpath.dir });
      await remove();
      expect(creating.stderr).to.include(`MONGODB_URI='${holder.uri}' troupe users create zoe`);
      expect(named.code).to.equal(1);
      expect(named.stderr).to.include(`is in use by troupe process ${process.pid}`);
      expect(named.stderr).to.include(`MONGODB_URI='${holder.uri}' troupe users list`);
      expect(named.stderr.trim().split('\n')).to.have.length(1);

      const viaUri = await troupe(['users', 'list'], { MONGODB_URI: holder.uri });
      expect(viaUri.code, viaUri.stderr).to.equal(0);
      expect(viaUri.stdout).to.include('No users yet');
    } finally {
      await holder.stop();
      await dbpath.remove();
    }
  });

  it('troupe start prints a login URL whose token buys an API key once, the MCP URL, and the first key', async () => {
    const port = await freePort();
    const dbpath = await tempDir('troupe-start-login');
    // Seeded with the MTG dataset, so the start spends no time loading it; still no user in it.
    await copySeededDbpath(dbpath.dir);
    // A prefix of its own: the default one belongs to whichever troupe first ran on this Redis.
    const redisPrefix = `test-users-start-${process.pid}-${Date.now().toString(36)}`;
    try {
      const start = spawnTroupe(['start'], troupeEnv({ PORT: String(port), EMBEDDED_MONGO_DBPATH: dbpath.dir, REDIS_PREFIX: redisPrefix, LOG_PRETTY: 'false' }));
      spawned.push(start);
      const base = `http://127.0.0.1:${port}`;
      const loginUrl = await pollUntil(
        () => {
          if (start.exitStatus() !== undefined) throw new Error(`troupe start exited: ${start.stderr()}`);
          return new RegExp(`${base}/\\?login=[A-Za-z0-9_-]{43}`).exec(start.stdout())?.[0];
        },
        { timeoutMs: STARTUP_BOUND_MS, what: 'the login URL' },
      );
      // "troupe is up … MCP at …/mcp" may be logged before the MCP banner: wait for the banner itself.
      await pollUntil(() => start.stdout().includes(`MCP endpoint: ${base}/mcp`), { timeoutMs: 10_000, what: 'the MCP banner' });
      expect(start.stdout()).to.include('Authorization: Bearer <API key>');
      const firstKey = KEY.exec(start.stdout())?.[0];
      expect(firstKey, start.stdout()).to.be.a('string');

      const token = new URL(loginUrl).searchParams.get('login');
      const exchange = () =>
        fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
      const first = await exchange();
      expect(first.status).to.equal(200);
      const body = (await first.json()) as { apiKey: string; user: { name: string } };
      expect(body.apiKey).to.match(KEY);
      expect(body.user.name).to.equal('local');
      expect((await exchange()).status).to.equal(401);

      // While it runs, the users commands point at its MongoDB instead of failing on the lock.
      const busy = await troupe(['users', 'list'], { EMBEDDED_MONGO_DBPATH: dbpath.dir });
      expect(busy.code).to.equal(1);
      const uri = /MONGODB_URI='([^']+)'/.exec(busy.stderr)?.[1];
      expect(uri, busy.stderr).to.match(/^mongodb:\/\/127\.0\.0\.1:\d+\//);
      const listed = await troupe(['users', 'list'], { MONGODB_URI: uri! });
      expect(listed.code, listed.stderr).to.equal(0);
      expect(listed.stdout).to.match(/^local\s+-\s+\S+\s+trp_[0-9a-f]{12}, trp_[0-9a-f]{12}\s+-$/m);

      start.child.kill('SIGTERM');
      expect(await withDeadline(start.exited, 20_000, 'troupe start to exit')).to.deep.equal({ code: 0, signal: null });

      // A second start finds the local user: a fresh login link, but no key printed again.
      const again = spawnTroupe(['start'], troupeEnv({ PORT: String(port), EMBEDDED_MONGO_DBPATH: dbpath.dir, REDIS_PREFIX: redisPrefix, LOG_PRETTY: 'false' }));
      spawned.push(again);
      await pollUntil(
        () => {
          if (again.exitStatus() !== undefined) throw new Error(`troupe start exited: ${again.stderr()}`);
          return /\?login=[A-Za-z0-9_-]{43}/.test(again.stdout());
        },
        { timeoutMs: STARTUP_BOUND_MS, what: 'the second start to print its login link' },
      );
      expect(again.stdout()).to.match(/\?login=[A-Za-z0-9_-]{43}/);
      expect(again.stdout()).to.not.match(KEY);
      again.child.kill('SIGTERM');
      await withDeadline(again.exited, 20_000, 'the second troupe start to exit');
    } finally {
      await dbpath.remove();
      await deleteRedisPrefix(redisPrefix);
    }
  });
});
