/**
 * The account API (GET /me, /me/keys, POST /me/keys, DELETE /me/keys/:prefix, GET /me/usage) on the
 * gateway app with real MongoDB and Redis, and `troupe login-link` from the CLI.
 */
import { expect } from 'chai';
import { Redis } from 'ioredis';
import mongoose, { type Connection } from 'mongoose';
import { pino } from 'pino';
import type { AnyKind } from '../../actors/runtime/contract.js';
import { createAccountRouter } from '../../gateway/account-routes.js';
import { createGatewayApp } from '../../gateway/app.js';
import { startHttpServer, type RunningHttpServer } from '../../gateway/http-server.js';
import { UserLimits } from '../../gateway/limits.js';
import { UserDirectory } from '../../gateway/users.js';
import { loadConfig } from '../../scripts/config.js';
import { runLoginLink } from '../../scripts/login-link.js';
import { mongoTarget, uniqueDbName, type MongoTarget } from '../support/mongo-target.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const kinds = [
  { kind: 'scouting', limits: { rate: { points: 10, durationSeconds: 3600 }, concurrent: 3, rateCounts: { types: ['start'], noun: 'runs started' } } },
  { kind: 'echo' },
] as unknown as AnyKind[];

describe('account API and troupe login-link', function () {
  this.timeout(30_000);
  let target: MongoTarget;
  let connection: Connection;
  let users: UserDirectory;
  let redis: Redis;
  let limits: UserLimits;
  let http: RunningHttpServer;
  const prefix = `test-account-${process.pid}-${Date.now().toString(36)}`;
  const dbName = uniqueDbName('account');

  before(async () => {
    target = await mongoTarget();
    connection = await mongoose.createConnection(target.uri, { dbName }).asPromise();
    users = await UserDirectory.open(connection);
    redis = new Redis(REDIS_URL);
    limits = new UserLimits(redis, { keyPrefix: prefix, defaults: { rate: { points: 300, durationSeconds: 60 }, concurrent: 20 } });
    const app = createGatewayApp({ logger: pino({ level: 'silent' }), readinessChecks: {}, users, routers: [createAccountRouter({ users, limits, kinds })] });
    http = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
  });

  after(async () => {
    await http?.close();
    redis?.disconnect();
    await deleteRedisPrefix(prefix);
    await connection?.dropDatabase().catch(() => undefined);
    await connection?.close();
    await target?.stop();
  });

  const get = (path: string, key: string) => fetch(`${http.url}${path}`, { headers: { authorization: `Bearer ${key}` } });

  it('shows who you are, your keys (the one in use marked, no secrets), makes and revokes keys; another user\'s key is not found', async () => {
    const { user, key, prefix: first } = await users.createUser('ana');
    const other = await users.createUser('bo');
    const me = (await (await get('/me', key)).json()) as Record<string, unknown>;
    expect(me).to.include({ id: user.id, name: 'ana' });
    expect(me.created_at).to.be.a('string');
    expect(me.roles).to.deep.equal([]);
    const admin = await users.createUser('ada', 'cli', ['admin']);
    expect(((await (await get('/me', admin.key)).json()) as { roles: string[] }).roles).to.deep.equal(['admin']);

    const created = await fetch(`${http.url}/me/keys`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ label: 'laptop' }) });
    expect(created.status).to.equal(201);
    expect(created.headers.get('cache-control')).to.equal('no-store');
    const second = (await created.json()) as { key: string; prefix: string; label: string };
    expect(second.label).to.equal('laptop');
    expect((await get('/me', second.key)).status).to.equal(200);

    const listed = (await (await get('/me/keys', key)).json()) as { keys: Array<Record<string, unknown>> };
    expect(listed.keys.map((k) => k.prefix)).to.have.members([first, second.prefix]);
    expect(listed.keys.find((k) => k.prefix === first)).to.include({ current: true, label: 'cli', revoked_at: null });
    expect(JSON.stringify(listed)).to.not.include(key.slice(-10));

    expect((await fetch(`${http.url}/me/keys/${other.prefix}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } })).status).to.equal(404);
    expect((await fetch(`${http.url}/me/keys/not-a-prefix`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } })).status).to.equal(400);
    const revoked = await fetch(`${http.url}/me/keys/${second.prefix}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    expect(await revoked.json()).to.deep.equal({ prefix: second.prefix, revoked: true, already_revoked: false });
    expect((await get('/me', second.key)).status).to.equal(401);
    expect((await get('/me', other.key)).status).to.equal(200);
    const bad = await fetch(`${http.url}/me/keys`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ label: 'x'.repeat(61) }) });
    expect(bad.status).to.equal(400);
  });

  it('shows each kind\'s limits and current usage', async () => {
    const { user, key } = await users.createUser('cy');
    await limits.admit(user.id, kinds[0]!, { type: 'start' });
    const usage = (await (await get('/me/usage', key)).json()) as { kinds: Array<Record<string, unknown>> };
    const scouting = usage.kinds.find((k) => k.kind === 'scouting')!;
    expect(scouting.rate).to.deep.include({ points: 10, windowSeconds: 3600, counts: 'runs started', used: 1, remaining: 9 });
    expect(scouting.concurrent).to.deep.equal({ limit: 3, inUse: 1 });
    const echo = usage.kinds.find((k) => k.kind === 'echo')!;
    expect(echo.rate).to.deep.include({ points: 300, used: 0 });
  });

  it('troupe login-link prints a fresh single-use link for a user, and refuses an unknown one', async () => {
    await users.createUser('dee');
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) } } as never;
    const config = loadConfig({ MONGODB_URI: target.uri, MONGODB_DB: dbName, GATEWAY_URL: 'http://gateway.test:8080', LOG_LEVEL: 'silent' });
    expect(await runLoginLink(config, 'dee', io)).to.equal(0);
    const token = /^http:\/\/gateway\.test:8080\/\?login=([A-Za-z0-9_-]+)\n$/.exec(out.join(''))?.[1];
    expect(token, out.join('')).to.be.a('string');
    const login = await fetch(`${http.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    expect(login.status).to.equal(200);
    expect((await fetch(`${http.url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) })).status).to.equal(401);
    expect(await runLoginLink(config, 'nobody', io)).to.equal(1);
    expect(err.join('')).to.include('troupe users create nobody');
  });
});
