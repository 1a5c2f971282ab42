/**
 * The queue dashboard (/admin/queues) and its browser session (/admin/session) on the gateway as
 * `troupe gateway` serves it (serveGateway, every actor kind), with real Redis and MongoDB: admins see
 * bull-board with every troupe queue; anyone else gets the unknown-path 404; the rest of the gateway
 * behaves as before.
 */
import { Writable } from 'node:stream';
import { Queue } from 'bullmq';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import mongoose, { type Connection } from 'mongoose';
import { pino } from 'pino';
import { kinds } from '../../actors/index.js';
import { DASHBOARD_CSP, troupeQueues } from '../../gateway/admin-queues.js';
import { ADMIN_SESSION_TTL_MS } from '../../gateway/admin-session.js';
import { sha256 } from '../../gateway/users.js';
import { RedisNames } from '../../queues/keys.js';
import { loadConfig } from '../../scripts/config.js';
import { serveGateway, type ServedGateway } from '../../scripts/serve-gateway.js';
import { pollUntil } from '../support/async.js';
import { mongoTarget, uniqueDbName, type MongoTarget } from '../support/mongo-target.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const COOKIE = /^troupe_admin=([A-Za-z0-9_-]{43}); Path=\/admin; Max-Age=1800; HttpOnly; SameSite=Strict$/;

interface BoardQueues {
  queues: Array<{ name: string; counts: Record<string, number> }>;
}

describe('queue dashboard (/admin/queues) and admin sessions', function () {
  this.timeout(30_000);
  const prefix = `test-admin-${process.pid}-${Date.now().toString(36)}`;
  const names = new RedisNames(prefix);
  const dbName = uniqueDbName('admin_queues');
  const logLines: string[] = [];
  let target: MongoTarget;
  let connection: Connection;
  let redis: Redis;
  let gateway: ServedGateway;
  let adminKey: string;
  let userKey: string;

  before(async () => {
    target = await mongoTarget();
    connection = await mongoose.createConnection(target.uri, { dbName }).asPromise();
    redis = new Redis(REDIS_URL);
    // Debug level: every request is logged, and the secrets must not be among the lines.
    const logs = new Writable({ write: (chunk: Buffer, _encoding, done) => (logLines.push(chunk.toString('utf8')), done()) });
    const config = loadConfig({ PORT: '0', REDIS_PREFIX: prefix, REDIS_URL });
    gateway = await serveGateway({ config, logger: pino({ level: 'debug' }, logs), redis, redisUrl: REDIS_URL, mongo: connection, kinds, names });
    adminKey = (await gateway.users.createUser('ada', 'cli', ['admin'])).key;
    userKey = (await gateway.users.createUser('bob')).key;
  });

  after(async () => {
    await gateway?.close();
    redis?.disconnect();
    await deleteRedisPrefix(prefix);
    await connection?.dropDatabase().catch(() => undefined);
    await connection?.close();
    await target?.stop();
  });

  const call = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) => fetch(`${gateway.url}${path}`, { redirect: 'manual', ...init });
  const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
  async function startSession(headers: Record<string, string> = {}): Promise<{ cookie: string; token: string; response: Response }> {
    const response = await call('/admin/session', { method: 'POST', headers: { ...bearer(adminKey), ...headers } });
    expect(response.status, await response.clone().text()).to.equal(204);
    const token = /^troupe_admin=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
    expect(token, response.headers.get('set-cookie') ?? '').to.be.a('string');
    return { cookie: `troupe_admin=${token}`, token: token!, response };
  }
  const sessionKey = (token: string) => `${prefix}:admin-session:${sha256(token)}`;

  async function expectUnknownPath(response: Response, method: string, path: string): Promise<void> {
    expect(response.status, `${method} ${path}`).to.equal(404);
    expect(await response.json()).to.deep.equal({ error: { code: 'not_found', message: `no route for ${method} ${path}`, details: { method, path } } });
    expect(response.headers.get('set-cookie'), `${method} ${path}`).to.equal(null);
    expect(response.headers.get('content-security-policy'), `${method} ${path}`).to.equal(null);
  }

  it('answers anonymous callers, non-admins and bad credentials as if the routes did not exist', async () => {
    const revoked = await gateway.users.createUser('cy', 'cli', ['admin']);
    await gateway.users.revoke('cy');
    const callers: Array<[string, Record<string, string>]> = [
      ['anonymous', {}],
      ['a non-admin key', bearer(userKey)],
      ['a non-admin X-API-Key', { 'x-api-key': userKey }],
      ['a revoked admin', bearer(revoked.key)],
      ['a malformed key', bearer('not-a-key')],
      ['a forged session cookie', { cookie: `troupe_admin=${'a'.repeat(43)}` }],
    ];
    const routes: Array<[string, string]> = [
      ['GET', '/admin/queues'],
      ['GET', '/admin/queues/'],
      ['GET', '/admin/queues/api/queues'],
      ['GET', '/admin/queues/static/images/logo.svg'],
      ['PUT', `/admin/queues/api/queues/${names.scheduleQueue().name}/pause`],
      ['POST', '/admin/session'],
      ['DELETE', '/admin/session'],
      ['GET', '/admin/session'],
    ];
    for (const [who, headers] of callers) {
      for (const [method, path] of routes) {
        const response = await call(path, { method, headers });
        await expectUnknownPath(response, method, path).catch((error: Error) => {
          throw new Error(`${who}: ${error.message}`);
        });
      }
    }
    // A session cookie cannot start another session: POST wants the key itself.
    const { cookie } = await startSession();
    await expectUnknownPath(await call('/admin/session', { method: 'POST', headers: { cookie } }), 'POST', '/admin/session');
  });

  it('shows an admin the bull-board page, its assets and every troupe queue, under REDIS_PREFIX', async () => {
    for (const headers of [bearer(adminKey), { 'x-api-key': adminKey }]) {
      const page = await call('/admin/queues', { headers });
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      expect(page.headers.get('content-security-policy')).to.equal(DASHBOARD_CSP);
      expect(page.headers.get('cache-control')).to.equal('no-store');
      const html = await page.text();
      expect(html).to.include('<base href="/admin/queues/" />').and.include('<title>troupe queues</title>');
      const script = /<script defer src="(static\/js\/main\.[^"]+\.js)"/.exec(html)?.[1];
      const asset = await call(`/admin/queues/${script}`, { headers });
      expect(asset.status).to.equal(200);
      expect(asset.headers.get('content-type')).to.match(/javascript/);
      await asset.arrayBuffer();
    }

    // A job on the schedule queue shows in its counts: the board reads troupe's real queues.
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const scheduleQueue = names.scheduleQueue();
    const schedule = new Queue(scheduleQueue.name, { connection, prefix: scheduleQueue.prefix });
    try {
      await schedule.add('later', { note: 'dashboard test' }, { delay: 3_600_000 });
      const response = await call(`/admin/queues/api/queues?activeQueue=${scheduleQueue.name}&status=delayed&page=1&jobsPerPage=10`, { headers: bearer(adminKey) });
      expect(response.status).to.equal(200);
      const board = (await response.json()) as BoardQueues;
      const expected = troupeQueues(kinds, names).map(({ queue }) => queue.name);
      expect(board.queues.map((queue) => queue.name)).to.have.members(expected);
      // On one Redis server: a drain queue per stateful kind, a request queue per service kind, the schedule queue.
      for (const kind of kinds) expect(expected).to.include(kind.stateful ? `${prefix}-actor-${kind.kind}` : `${prefix}-service-${kind.kind}`);
      expect(expected).to.include(`${prefix}-schedule`).and.have.length(kinds.length + 1);
      // On a cluster, a drain queue per stateful kind and partition.
      const onCluster = troupeQueues(kinds, new RedisNames(prefix, 16, 'per-partition')).map(({ queue }) => queue.name);
      const stateful = kinds.filter((kind) => kind.stateful);
      for (const kind of stateful) for (let p = 0; p < 16; p++) expect(onCluster).to.include(`${prefix}-actor-${kind.kind}-p${p}`);
      expect(onCluster).to.have.length(stateful.length * 16 + (kinds.length - stateful.length) + 1);
      expect(board.queues.find((queue) => queue.name === scheduleQueue.name)?.counts.delayed).to.equal(1);
    } finally {
      await schedule.obliterate({ force: true });
      await schedule.close();
      connection.disconnect();
    }
  });

  it('a session cookie opens the dashboard until it is ended, expires, or the role goes; it is never the key', async () => {
    const { cookie, token, response } = await startSession();
    const setCookie = response.headers.get('set-cookie')!;
    expect(setCookie).to.match(COOKIE);
    expect(setCookie).to.not.include(adminKey);
    expect(await redis.get(sessionKey(token))).to.be.a('string');
    expect(await redis.pttl(sessionKey(token))).to.be.within(1, ADMIN_SESSION_TTL_MS);
    expect(await redis.keys(`${prefix}:admin-session:${token}*`)).to.deep.equal([]); // stored hashed

    const page = await call('/admin/queues', { headers: { cookie } });
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-security-policy')).to.equal(DASHBOARD_CSP);
    expect((await call('/admin/queues/api/queues', { headers: { cookie } })).status).to.equal(200);
    // The cookie is for the admin pages only, not an API credential.
    expect((await call('/me', { headers: { cookie } })).status).to.equal(401);

    // Requests that would change something through the cookie must come from this origin.
    const pause = `/admin/queues/api/queues/${names.scheduleQueue().name}/pause`;
    const crossSite = await call(pause, { method: 'PUT', headers: { cookie, origin: 'https://elsewhere.example' } });
    expect(crossSite.status).to.equal(403);
    expect(((await crossSite.json()) as { error: { code: string } }).error.code).to.equal('forbidden');
    expect((await call(pause, { method: 'PUT', headers: { cookie, 'sec-fetch-site': 'same-site' } })).status).to.equal(403);
    // And even then the dashboard is read-only: the runtime's queues are not changed by hand.
    const sameOrigin = await call(pause, { method: 'PUT', headers: { cookie, origin: gateway.url, 'sec-fetch-site': 'same-origin' } });
    expect(sameOrigin.status).to.equal(405);
    await sameOrigin.arrayBuffer();
    const queues = (await (await call('/admin/queues/api/queues', { headers: { cookie } })).json()) as { queues: Array<{ name: string; isPaused: boolean; readOnlyMode: boolean }> };
    expect(queues.queues.find((q) => q.name === names.scheduleQueue().name)).to.include({ isPaused: false, readOnlyMode: true });

    // Taking the role closes the dashboard at once, session or not.
    await gateway.users.revokeRole('ada', 'admin');
    await expectUnknownPath(await call('/admin/queues', { headers: { cookie } }), 'GET', '/admin/queues');
    await gateway.users.grantRole('ada', 'admin');
    expect((await call('/admin/queues', { headers: { cookie } })).status).to.equal(200);

    const ended = await call('/admin/session', { method: 'DELETE', headers: { cookie } });
    expect(ended.status).to.equal(204);
    expect(ended.headers.get('set-cookie')).to.equal('troupe_admin=; Path=/admin; Max-Age=0; HttpOnly; SameSite=Strict');
    expect(await redis.exists(sessionKey(token))).to.equal(0);
    await expectUnknownPath(await call('/admin/queues', { headers: { cookie } }), 'GET', '/admin/queues');

    // Expiry is Redis's: once the key's TTL runs out, the cookie opens nothing.
    const second = await startSession();
    expect((await call('/admin/queues', { headers: { cookie: second.cookie } })).status).to.equal(200);
    await redis.pexpire(sessionKey(second.token), 1);
    await pollUntil(async () => (await redis.exists(sessionKey(second.token))) === 0, { timeoutMs: 5_000, what: 'the session key to expire' });
    await expectUnknownPath(await call('/admin/queues', { headers: { cookie: second.cookie } }), 'GET', '/admin/queues');
  });

  it('marks the cookie Secure behind HTTPS, refuses a body on POST and other methods on /admin/session', async () => {
    const { response } = await startSession({ 'x-forwarded-proto': 'https' });
    expect(response.headers.get('set-cookie')).to.match(/; SameSite=Strict; Secure$/);

    const withBody = await call('/admin/session', { method: 'POST', headers: { ...bearer(adminKey), 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: adminKey }) });
    expect(withBody.status).to.equal(400);
    expect(((await withBody.json()) as { error: { code: string } }).error.code).to.equal('bad_request');

    const get = await call('/admin/session', { headers: bearer(adminKey) });
    expect(get.status).to.equal(405);
    expect(get.headers.get('allow')).to.equal('POST, DELETE');
    expect(((await get.json()) as { error: { code: string } }).error.code).to.equal('method_not_allowed');
  });

  it('leaves the rest of the gateway as it was: JSON errors, unknown paths, bodies, authenticated routes', async () => {
    // What bull-board does not serve is the gateway's 404 (with the dashboard's headers, for an admin).
    for (const path of ['/admin/queues/api/nothing-here', '/admin/queues/static/missing.js']) {
      const response = await call(path, { headers: bearer(adminKey) });
      expect(response.status, path).to.equal(404);
      expect(await response.json()).to.deep.equal({ error: { code: 'not_found', message: `no route for GET ${path}`, details: { method: 'GET', path } } });
    }
    for (const path of ['/admin', '/admin/other', '/admin/queuesx']) await expectUnknownPath(await call(path, { headers: bearer(adminKey) }), 'GET', path);

    await expectUnknownPath(await call('/nowhere'), 'GET', '/nowhere');
    const malformed = await call('/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"token":' });
    expect(malformed.status).to.equal(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).to.equal('bad_request');
    const notJson = await call('/auth/login', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(notJson.status).to.equal(415);
    await notJson.arrayBuffer();
    const me = await call('/me', { headers: bearer(adminKey) });
    expect(me.status).to.equal(200);
    expect(await me.json()).to.include({ name: 'ada' });
    const noKey = await call('/me');
    expect(noKey.status).to.equal(401);
    await noKey.arrayBuffer();
  });

  it('keeps API keys and session tokens out of the logs', async () => {
    const { token } = await startSession();
    const logs = logLines.join('');
    expect(logs).to.include('admin session started');
    for (const secret of [adminKey, userKey, token]) expect(logs).to.not.include(secret);
  });
});
