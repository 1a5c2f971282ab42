/**
 * Secrets never reach the logs. A troupe at LOG_LEVEL=debug (a line per request, per turn, per service
 * call) serves a spread of real traffic — HTTP, SSE, MCP, key creation, login links, refused keys,
 * metrics with a token, signed and forged webhooks — and then its whole output is searched for every
 * secret that traffic carried.
 */
import { createHmac } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { pollUntil } from '../support/async.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { openSse, readEvents } from '../support/sse-client.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { createUserKey, runTroupe, spawnTroupe, startSeededMongo, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';

/** The secret part of an API key: `trp_<12 hex prefix>_<secret>`; the prefix is a public identifier. */
const secretOf = (key: string) => key.split('_').slice(2).join('_');

describe('no secret in the logs of a running troupe (LOG_LEVEL=debug)', function () {
  this.timeout(180_000);
  const processes: TroupeProcess[] = [];
  const redisPrefix = `test-log-secrets-${process.pid}`;
  const metricsToken = 'metrics-token-5f1c9a7e2b';
  const webhookSecret = 'webhook-secret-8d2e4b6a1c9f';
  let troupe: TroupeProcess;
  let base = '';

  before(async function () {
    const [mongoPort, port] = await Promise.all([freePort(), freePort()]);
    const env = troupeEnv({
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
      REDIS_PREFIX: redisPrefix,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      LOG_PRETTY: 'false',
      METRICS_TOKEN: metricsToken,
      MAIL_WEBHOOK_SECRET: webhookSecret,
      LLM_PROVIDER: 'offline',
    });
    await startSeededMongo(mongoPort, env, processes);
    const alice = await createUserKey('alice', env);
    base = `http://127.0.0.1:${port}`;
    troupe = spawnTroupe(['start'], env);
    processes.push(troupe);
    await pollUntil(
      async () => {
        if (troupe.exitStatus()) throw new Error(`troupe start exited: ${troupe.stderr()}`);
        return (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200;
      },
      { timeoutMs: 120_000, what: `${base}/readyz` },
    );
    secrets.push(alice);
    // The login link CLI prints its token to its own stdout, for the person who asked: not to troupe's log.
    const link = await runTroupe(['login-link', 'alice'], env, processes, 30_000);
    loginToken = /\?login=([A-Za-z0-9_-]{43})/.exec(link.stdout)?.[1] ?? '';
    expect(loginToken, link.stdout + link.stderr).to.not.equal('');
  });

  after(async function () {
    await Promise.all(processes.map((p) => p.kill()));
    await deleteRedisPrefix(redisPrefix);
  });

  const secrets: string[] = [];
  let loginToken = '';

  it('after HTTP, SSE, MCP, keys, login, metrics and webhooks, no key, token or secret appears in its output', async function () {
    const [alice] = secrets as [string];
    const auth = (key: string) => ({ authorization: `Bearer ${key}` });

    // A login token traded for a key.
    const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: loginToken }) });
    expect(login.status).to.equal(200);
    const fromLogin = ((await login.json()) as { apiKey: string }).apiKey;
    // A key minted over the API, then used with X-API-Key.
    const minted = await fetch(`${base}/me/keys`, { method: 'POST', headers: { ...auth(alice), 'content-type': 'application/json' }, body: JSON.stringify({ label: 'ci' }) });
    expect(minted.status).to.equal(201);
    const mintedKey = ((await minted.json()) as { key: string }).key;
    expect((await fetch(`${base}/me`, { headers: { 'x-api-key': mintedKey } })).status).to.equal(200);

    // Refused credentials: a wrong key, and a key in the wrong place (the query string).
    const wrongKey = `${mintedKey.slice(0, 18)}wrongsecretwrongsecretwrongsecret00`;
    expect((await fetch(`${base}/me`, { headers: auth(wrongKey) })).status).to.equal(401);
    expect((await fetch(`${base}/me?api_key=${encodeURIComponent(alice)}`)).status).to.equal(401);

    // A message with an idempotency key, and its reply stream read as SSE.
    const sent = await fetch(`${base}/actors/echo/logs/messages`, {
      method: 'POST',
      headers: { ...auth(fromLogin), 'content-type': 'application/json', 'idempotency-key': 'log-secrets-1' },
      body: JSON.stringify({ type: 'say', payload: { text: 'hello logs' } }),
    });
    expect(sent.status).to.equal(200);
    const replies = await openSse(`${base}/replies/${((await sent.json()) as { messageId: string }).messageId}`, auth(fromLogin));
    expect((await readEvents(replies)).map((e) => e.event)).to.include('done');

    // MCP over streamable HTTP.
    const mcp = new Client({ name: 'log-secrets', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: auth(mintedKey) } }));
    try {
      const echoed = await mcp.callTool({ name: 'echo', arguments: { channel: 'logs', text: 'over mcp' } });
      expect(echoed.isError ?? false).to.equal(false);
    } finally {
      await mcp.close();
    }

    // Metrics with its token, and with a wrong one.
    expect((await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).status).to.equal(200);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer not-the-metrics-token' } })).status).to.equal(401);

    // A signed generic webhook (unknown recipient is fine: the signature is what matters) and a forged one.
    const body = JSON.stringify({ from: 'someone@example.com', to: 'nobody@troupe.local', subject: 'hi', text: 'hello' });
    const t = Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', webhookSecret).update(`${t}.${body}`).digest('hex');
    const signed = await fetch(`${base}/webhooks/mail/generic`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-troupe-signature': `t=${t},v1=${signature}` }, body });
    expect(signed.status, await signed.clone().text()).to.be.below(500).and.not.equal(401);
    const forged = await fetch(`${base}/webhooks/mail/generic`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-troupe-signature': `t=${t},v1=${'0'.repeat(64)}` }, body });
    expect(forged.status).to.equal(401);

    // Revoking a key logs the event, not the key.
    const prefix = mintedKey.split('_').slice(0, 2).join('_');
    expect((await fetch(`${base}/me/keys/${prefix}`, { method: 'DELETE', headers: auth(alice) })).status).to.equal(200);

    const output = troupe.stdout() + troupe.stderr();
    // The log did record the traffic (so the search below is over something real).
    expect(output).to.include('"level":20');
    expect(output).to.include('/actors/echo/logs/messages');
    expect(output).to.include('/mcp');
    const leaked = [
      ['alice key', secretOf(alice)],
      ['key from the login link', secretOf(fromLogin)],
      ['key minted over the API', secretOf(mintedKey)],
      ['refused key', secretOf(wrongKey)],
      ['login token', loginToken],
      ['METRICS_TOKEN', metricsToken],
      ['MAIL_WEBHOOK_SECRET', webhookSecret],
    ].filter(([, secret]) => output.includes(secret!));
    expect(leaked.map(([what]) => what)).to.deep.equal([]);
  });
});
