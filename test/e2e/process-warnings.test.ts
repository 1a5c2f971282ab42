/**
 * No process warnings under load. Node prints a warning (a possible listener leak, a deprecation, an
 * experimental API) to stderr as `(node:PID) NameWarning: ...` and carries on, so nothing else would
 * notice one: this test runs a `troupe worker` and a `troupe gateway` under concurrent HTTP, SSE and MCP
 * load, shuts them down, and fails if any process it started printed a warning. `--trace-warnings`
 * puts the stack that caused it in the failure message.
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { withDeadline } from '../support/async.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { openSse, readEvents } from '../support/sse-client.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { createUserKey, startTroupeMongo, startWorkerAndGateway, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';

/** How Node prints a process warning (`(node:1234) MaxListenersExceededWarning: ...`). */
const WARNING_LINE = /^\(node:\d+\) .*$/m;

const JSON_POSTS = 200;
/** The POSTs go to this many echo actors: several messages wait in each mailbox at once. */
const ACTORS = 40;
const SSE_POSTS = 40;
const MCP_CALLS = 20;

describe('process warnings under load (real processes)', function () {
  this.timeout(240_000);
  const spawned: TroupeProcess[] = [];
  const prefix = `test-warnings-${process.pid}`;
  let base = '';
  let key = '';

  before(async function () {
    const [mongoPort, port] = await Promise.all([freePort(), freePort()]);
    base = `http://127.0.0.1:${port}`;
    const env = troupeEnv({
      REDIS_PREFIX: prefix,
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
      MONGODB_DB: 'process_warnings',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
      NODE_OPTIONS: [process.env.NODE_OPTIONS, '--trace-warnings'].filter(Boolean).join(' '),
      // Every message is admitted: the load reaches the actors instead of stopping at the limits.
      KIND_LIMITS: 'echo:rate=none,concurrent=none',
    });
    await startTroupeMongo(mongoPort, env, spawned);
    key = await createUserKey('warnings', env);
    await startWorkerAndGateway(env, base, spawned);
  });

  after(async function () {
    await Promise.all(spawned.map((p) => p.kill()));
    await deleteRedisPrefix(prefix);
  });

  it('prints no warning while serving concurrent HTTP, SSE and MCP requests, nor while shutting down', async function () {
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const body = JSON.stringify({ type: 'say', payload: { text: 'hi' } });

    const jsonPosts = Array.from({ length: JSON_POSTS }, async (_, i) => {
      const res = await fetch(`${base}/actors/echo/load-${i % ACTORS}/messages`, { method: 'POST', headers, body });
      return { status: res.status, messageId: res.headers.get('x-message-id'), body: await res.text() };
    });
    const ssePosts = Array.from({ length: SSE_POSTS }, async (_, i) => {
      const res = await fetch(`${base}/actors/echo/sse-${i % ACTORS}/messages`, { method: 'POST', headers: { ...headers, accept: 'text/event-stream' }, body });
      const text = await res.text();
      return { status: res.status, ended: /^event: done$/m.test(text) };
    });
    const mcpCalls = Array.from({ length: MCP_CALLS }, async (_, i) => {
      const client = new Client({ name: 'warnings-e2e', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
      try {
        const result = await client.callTool({ name: 'echo', arguments: { text: 'via mcp', channel: `mcp-${i % ACTORS}` } });
        return result.isError ?? false;
      } finally {
        await client.close();
      }
    });

    const posted = await Promise.all(jsonPosts);
    expect(posted.filter((p) => p.status !== 200), 'JSON POSTs not answered 200').to.deep.equal([]);
    expect((await Promise.all(ssePosts)).filter((p) => p.status !== 200 || !p.ended), 'SSE POSTs without a done event').to.deep.equal([]);
    expect((await Promise.all(mcpCalls)).filter(Boolean), 'MCP calls answered with an error').to.deep.equal([]);

    // Followers of finished reply streams (the blocking reader), all at once.
    const replays = await Promise.all(posted.slice(0, SSE_POSTS).map(async ({ messageId }) => readEvents(await openSse(`${base}/replies/${messageId}`, { 'x-api-key': key }))));
    expect(replays.filter((events) => events[events.length - 1]?.event !== 'done'), 'replayed reply streams without a done event').to.have.length(0);

    // Shutting down is part of the run: listeners left behind often show up only then.
    const services = spawned.filter((p) => p.exitStatus() === undefined && ['worker', 'gateway'].includes(String(p.child.spawnargs[2])));
    for (const p of services) p.child.kill('SIGTERM');
    await withDeadline(Promise.all(services.map((p) => p.exited)), 60_000, 'the worker and the gateway to exit after SIGTERM');

    for (const p of spawned) {
      const stderr = p.stderr();
      const warning = WARNING_LINE.exec(stderr);
      expect(warning, `troupe ${p.child.spawnargs.slice(2).join(' ')} printed a warning:\n${warning ? stderr.slice(warning.index, warning.index + 3000) : ''}`).to.equal(null);
    }
  });
});
