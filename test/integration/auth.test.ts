import { expect } from 'chai';
import { Router } from '@koa/router';
import mongoose, { type Connection } from 'mongoose';
import { pino } from 'pino';
import { createGatewayApp } from '../../gateway/app.js';
import { startHttpServer, type RunningHttpServer } from '../../gateway/http-server.js';
import type { GatewayState } from '../../gateway/state.js';
import { UserDirectory } from '../../gateway/users.js';
import { WEB_CLIENT_CSP } from '../../gateway/web-client.js';
import { ensureWebBuild } from '../../scripts/web-build.js';
import { mongoTarget, uniqueDbName, type MongoTarget } from '../support/mongo-target.js';

/** The routes the lead mounts behind auth, reduced to "who am I". */
function whoamiRouter(): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/whoami', (ctx) => {
    ctx.body = { user: ctx.state.user };
  });
  return router;
}

describe('API keys and POST /auth/login against MongoDB', function () {
  this.timeout(30_000);
  let target: MongoTarget;
  let connection: Connection;
  let users: UserDirectory;
  let http: RunningHttpServer;

  before(async () => {
    target = await mongoTarget();
    connection = await mongoose.createConnection(target.uri, { dbName: uniqueDbName('auth') }).asPromise();
    users = await UserDirectory.open(connection);
    // The web client as `troupe start` serves it (built here when missing or stale).
    const web = await ensureWebBuild();
    const app = createGatewayApp({ logger: pino({ level: 'silent' }), readinessChecks: {}, users, routers: [whoamiRouter()], webClientDir: web.dir });
    http = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
  });

  after(async () => {
    await http?.close();
    await connection?.dropDatabase().catch(() => undefined);
    await connection?.close();
    await target?.stop();
  });

  const login = (body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${http.url}/auth/login`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

  it('authenticates a created key by Bearer and by X-API-Key, and stops after revocation', async () => {
    const { user, key, prefix } = await users.createUser('kim');
    const variants: Array<Record<string, string>> = [{ authorization: `Bearer ${key}` }, { 'x-api-key': key }];
    for (const headers of variants) {
      const response = await fetch(`${http.url}/whoami`, { headers });
      expect(response.status).to.equal(200);
      expect(await response.json()).to.deep.equal({ user });
    }
    await users.revoke(prefix);
    const revoked = await fetch(`${http.url}/whoami`, { headers: { authorization: `Bearer ${key}` } });
    expect(revoked.status).to.equal(401);
    expect(revoked.headers.get('www-authenticate')).to.include('error="invalid_token"');
    expect(await revoked.json()).to.deep.equal({ error: { code: 'unauthorized', message: 'the API key is invalid or revoked', details: {} } });
  });

  it('serves the web client at the page the login link opens: never cached, no referrer, the strict CSP', async () => {
    const page = await fetch(`${http.url}/?login=some-token`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.headers.get('cache-control')).to.equal('no-store');
    expect(page.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(page.headers.get('content-security-policy')).to.equal(WEB_CLIENT_CSP);
    const html = await page.text();
    // The app (which trades the token at /auth/login: see test/browser) is a hashed asset, no inline script.
    expect(html).to.match(/<script type="module" src="\/assets\/app-[A-Z0-9]+\.js"><\/script>/);
    expect(html).to.not.match(/<script>|<script type="module">/);
    expect(html).to.not.contain('some-token');
  });

  it('trades a login token once for an API key that works', async () => {
    const { user } = await users.createUser('lee');
    const { token } = await users.createLoginToken(user.id);
    const response = await login({ token });
    expect(response.status).to.equal(200);
    expect(response.headers.get('cache-control')).to.equal('no-store');
    const body = (await response.json()) as { apiKey: string; user: unknown };
    expect(body.user).to.deep.equal(user);
    const whoami = await fetch(`${http.url}/whoami`, { headers: { authorization: `Bearer ${body.apiKey}` } });
    expect(await whoami.json()).to.deep.equal({ user });

    const again = await login({ token });
    expect(again.status).to.equal(401);
    expect(await again.json()).to.deep.equal({
      error: { code: 'unauthorized', message: 'the login token is invalid, expired or already used', details: {} },
    });
  });

  it('answers 400 for bodies that are not {token: string}, 415 for non-JSON', async () => {
    for (const body of [{}, { token: 42 }, { token: '' }, { token: 'x', extra: 1 }, ['token'], { token: 'x'.repeat(201) }]) {
      const response = await login(body);
      expect(response.status, JSON.stringify(body)).to.equal(400);
      const error = ((await response.json()) as { error: { code: string; details: { issues: unknown[] } } }).error;
      expect(error.code).to.equal('bad_request');
      expect(error.details.issues).to.be.an('array').that.is.not.empty;
    }
    expect((await login('{"token":', { 'content-type': 'application/json' })).status).to.equal(400);
    expect((await login('token=abc', { 'content-type': 'application/x-www-form-urlencoded' })).status).to.equal(415);
  });
});
