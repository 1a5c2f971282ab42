import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import Koa from 'koa';
import mongoose from 'mongoose';
import { pino } from 'pino';
import { z } from 'zod';
import { ActorClient } from '../../actors/runtime/client.js';
import { startWorkers, type RunningWorkers } from '../../actors/runtime/workers.js';
import { createGatewayApp } from '../../gateway/app.js';
import { authenticateRequest } from '../../gateway/auth.js';
import { errorResponse } from '../../gateway/error-response.js';
import { startHttpServer, type RunningHttpServer } from '../../gateway/http-server.js';
import { UserLimits, type UserLimitsOptions } from '../../gateway/limits.js';
import { createMcpRouter, type McpRouter } from '../../gateway/mcp/router.js';
import { requestLogging } from '../../gateway/request-logging.js';
import type { GatewayState } from '../../gateway/state.js';
import { UserDirectory } from '../../gateway/users.js';
import { actorRecords } from '../../models/actor-record.js';
import { startEmbeddedMongo, type EmbeddedMongo } from '../../models/embedded/index.js';
import { pollUntil } from '../support/async.js';
import { callToolWithProgress } from '../support/mcp-progress.js';
import { counterKind, testKinds } from '../support/test-kinds.js';
import { testNames } from '../support/test-names.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const logger = pino({ level: 'silent' });

interface Gateway {
  url: string;
  port: number;
  mcp: McpRouter;
  server: RunningHttpServer;
}

describe('MCP gateway (streamable HTTP + legacy SSE) through the official SDK client', function () {
  let mongo: EmbeddedMongo;
  let conn: mongoose.Connection;
  let client: ActorClient;
  let workers: RunningWorkers;
  let users: UserDirectory;
  let redis: Redis;
  let limits: UserLimits;
  const gateways: Gateway[] = [];
  const clients: Client[] = [];
  let a: Gateway;
  let b: Gateway;
  const run = `mcp${Date.now()}`;
  const limitPrefix = `troupe-test-${run}`;
  // Its own key and queue names: another file's workers (on another MongoDB) never drain these actors.
  const names = testNames(`test-mcp-${process.pid}`);
  let alice: { id: string; key: string };
  let bob: { id: string; key: string };
  let fuzzer: { id: string; key: string };

  /**
   * `app`: as the gateway mounts it (behind the app's API-key middleware and JSON body parser);
   * `bare`: the router alone on a Koa app, authenticating and parsing by itself.
   */
  async function startGateway(mounting: 'app' | 'bare', limitsOptions?: UserLimitsOptions): Promise<Gateway> {
    const gatewayLimits = limitsOptions ? new UserLimits(redis, { keyPrefix: limitPrefix, ...limitsOptions }) : limits;
    const mcp = createMcpRouter({ client, limits: gatewayLimits, authenticate: (headers) => authenticateRequest(users, headers), logger, redisUrl: REDIS_URL });
    let app;
    if (mounting === 'app') {
      app = createGatewayApp({ logger, readinessChecks: {}, users, routers: [mcp.router] });
    } else {
      app = new Koa<GatewayState>();
      app.use(requestLogging(logger));
      app.use(errorResponse());
      app.use(mcp.router.routes());
      app.use(mcp.router.allowedMethods());
    }
    const server = await startHttpServer(app, { host: '127.0.0.1', port: 0, closeGraceMs: 1000 });
    const gateway = { url: server.url, port: server.port, mcp, server };
    gateways.push(gateway);
    return gateway;
  }

  async function stopGateway(gateway: Gateway) {
    gateways.splice(gateways.indexOf(gateway), 1);
    await gateway.mcp.close();
    await gateway.server.close();
  }

  const auth = (key: string) => ({ authorization: `Bearer ${key}` });

  async function connectHttp(gateway: Gateway, key: string): Promise<Client> {
    const mcp = new Client({ name: 'troupe-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: auth(key) } }));
    clients.push(mcp);
    return mcp;
  }

  async function connectSse(gateway: Gateway, key: string, fetchImpl?: FetchLike): Promise<Client> {
    const mcp = new Client({ name: 'troupe-test', version: '1.0.0' });
    await mcp.connect(new SSEClientTransport(new URL(`${gateway.url}/sse`), { requestInit: { headers: auth(key) }, fetch: fetchImpl }));
    clients.push(mcp);
    return mcp;
  }

  before(async function () {
    mongo = await startEmbeddedMongo({ port: 0 });
    conn = await mongoose.createConnection(mongo.uri, { dbName: 'mcp_test' }).asPromise();
    client = new ActorClient(REDIS_URL, conn, testKinds, names);
    workers = await startWorkers({ redisUrl: REDIS_URL, mongo: conn, kinds: testKinds, logger, names });
    users = await UserDirectory.open(conn);
    const created = async (name: string) => {
      const { user, key } = await users.createUser(`${name}-${run}`);
      return { id: user.id, key };
    };
    [alice, bob, fuzzer] = [await created('alice'), await created('bob'), await created('fuzzer')];
    redis = new Redis(REDIS_URL);
    limits = new UserLimits(redis, { keyPrefix: limitPrefix });
    a = await startGateway('app');
    b = await startGateway('bare');
  });

  after(async function () {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    for (const gateway of [...gateways]) await stopGateway(gateway);
    await workers?.close();
    await client?.close();
    // Redis keys of this run: its limits, and everything under its own prefix.
    const limitKeys = await redis.keys(`${limitPrefix}:*`);
    if (limitKeys.length > 0) await redis.del(...limitKeys);
    await deleteRedisPrefix(names.prefix);
    redis?.disconnect();
    await conn?.close();
    await mongo?.stop();
  });

  const counter = (name: string) => `${run}-${name}`;

  describe('stateless streamable HTTP at /mcp', function () {
    it('lists the kinds’ tools with descriptions and their input and output schemas', async function () {
      const mcp = await connectHttp(a, alice.key);
      expect(mcp.getServerVersion()).to.include({ name: 'troupe' });
      expect(mcp.getServerVersion()?.description).to.be.a('string').and.not.equal('');
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name)).to.include.members(['counter_add', 'counter_echo', 'counter_fail']);
      for (const tool of tools) expect(tool.description, tool.name).to.be.a('string').and.not.equal('');
      const add = tools.find((t) => t.name === 'counter_add')!;
      expect(add.inputSchema).to.deep.include({ type: 'object', additionalProperties: false });
      expect(add.inputSchema.properties).to.have.all.keys('counter', 'n');
      expect(add.inputSchema.required).to.have.members(['counter', 'n']);
      expect(add.inputSchema.properties!.n).to.include({ type: 'integer' });
      expect(add.outputSchema?.properties).to.have.all.keys('count');
    });

    it('calls a tool: one message to the actor, its reply as structuredContent plus a text copy', async function () {
      const mcp = await connectHttp(a, alice.key);
      const first = (await mcp.callTool({ name: 'counter_add', arguments: { counter: counter('add'), n: 3 } })) as CallToolResult;
      expect(first.isError).to.not.equal(true);
      expect(first.structuredContent).to.deep.equal({ count: 3 });
      expect(first.content).to.deep.equal([{ type: 'text', text: '{"count":3}' }]);
      const second = (await mcp.callTool({ name: 'counter_add', arguments: { counter: counter('add'), n: 2 } })) as CallToolResult;
      expect(second.structuredContent).to.deep.equal({ count: 5 });
      expect(((await client.state({ kind: 'counter', id: counter('add') }, alice.id)) as { count: number }).count).to.equal(5);
    });

    it('serves every request as its own caller, though the servers are pooled and shared between users', async function () {
      const [asAlice, asBob] = [await connectHttp(a, alice.key), await connectHttp(a, bob.key)];
      // Concurrent calls make the pool hold several servers, each of them used by both users in turn.
      await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? asAlice : asBob).callTool({ name: 'counter_add', arguments: { counter: counter(i % 2 === 0 ? 'pool-alice' : 'pool-bob'), n: 1 } })),
      );
      const again = await Promise.all([
        asAlice.callTool({ name: 'counter_add', arguments: { counter: counter('pool-alice'), n: 1 } }),
        asBob.callTool({ name: 'counter_add', arguments: { counter: counter('pool-bob'), n: 1 } }),
        asBob.callTool({ name: 'counter_add', arguments: { counter: counter('pool-alice'), n: 1 } }),
      ]);
      expect((again[0] as CallToolResult).structuredContent).to.deep.equal({ count: 4 });
      expect((again[1] as CallToolResult).structuredContent).to.deep.equal({ count: 4 });
      // Bob may not add to Alice's counter: the call ran as Bob, not as whoever used the server before.
      expect((again[2] as CallToolResult).isError).to.equal(true);
      expect(((await client.state({ kind: 'counter', id: counter('pool-alice') }, alice.id)) as { count: number }).count).to.equal(4);
      expect(((await client.state({ kind: 'counter', id: counter('pool-bob') }, bob.id)) as { count: number }).count).to.equal(4);
    });

    it('sends progress notifications from the actor’s stream events when a progressToken is given', async function () {
      const mcp = await connectHttp(a, alice.key);
      const { result, progress } = await callToolWithProgress(mcp, 'counter_echo', { counter: counter('echo'), text: 'a b c' });
      expect(result.structuredContent).to.deep.equal({ text: 'a b c' });
      expect(progress).to.deep.equal([
        { progress: 1, message: 'token: {"text":"a"}' },
        { progress: 2, message: 'token: {"text":"b"}' },
        { progress: 3, message: 'token: {"text":"c"}' },
      ]);
    });

    it('turns an actor error event into a tool error with the message, state unchanged', async function () {
      const mcp = await connectHttp(a, alice.key);
      await mcp.callTool({ name: 'counter_add', arguments: { counter: counter('fail'), n: 7 } });
      const result = (await mcp.callTool({ name: 'counter_fail', arguments: { counter: counter('fail'), reason: 'boom' } })) as CallToolResult;
      expect(result.isError).to.equal(true);
      expect(result.content).to.deep.equal([{ type: 'text', text: 'boom (turn_failed)' }]);
      expect(result._meta?.['troupe/error']).to.deep.include({ code: 'turn_failed', message: 'boom' });
      expect(((await client.state({ kind: 'counter', id: counter('fail') }, alice.id)) as { count: number }).count).to.equal(7);
    });

    it('answers a limit refusal as a tool error saying rate limited and when to retry', async function () {
      const strict = await startGateway('bare', { kinds: { counter: { rate: { points: 1, durationSeconds: 60 } } } });
      try {
        const mcp = await connectHttp(strict, bob.key);
        const ok = (await mcp.callTool({ name: 'counter_add', arguments: { counter: counter('rate'), n: 1 } })) as CallToolResult;
        expect(ok.structuredContent).to.deep.equal({ count: 1 });
        const refused = (await mcp.callTool({ name: 'counter_add', arguments: { counter: counter('rate'), n: 1 } })) as CallToolResult;
        expect(refused.isError).to.equal(true);
        const text = (refused.content[0] as { text: string }).text;
        expect(text).to.match(/^Rate limited: .+\. Retry after \d+ seconds\.$/);
        const failure = refused._meta?.['troupe/error'] as { code: string; details: { retryAfterSeconds: number } };
        expect(failure.code).to.equal('rate_limited');
        expect(failure.details.retryAfterSeconds).to.be.a('number').greaterThan(0);
        expect(((await client.state({ kind: 'counter', id: counter('rate') }, bob.id)) as { count: number }).count).to.equal(1);
      } finally {
        await stopGateway(strict);
      }
    });

    it('refuses requests without a valid API key with 401 (JSON error, Bearer challenge), mounted either way', async function () {
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
      for (const gateway of [a, b]) {
        for (const headers of [{}, auth('trp_000000000000_notavalidkeynotavalidkeynotavalidkeynotava')]) {
          const response = await fetch(`${gateway.url}/mcp`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
            body: JSON.stringify(initialize),
          });
          expect(response.status).to.equal(401);
          expect(response.headers.get('www-authenticate')).to.match(/^Bearer realm="troupe"/);
          expect(((await response.json()) as { error: { code: string } }).error.code).to.equal('unauthorized');
        }
        const sse = await fetch(`${gateway.url}/sse`, { headers: { accept: 'text/event-stream' } });
        expect(sse.status).to.equal(401);
        expect(((await sse.json()) as { error: { code: string } }).error.code).to.equal('unauthorized');
        const messages = await fetch(`${gateway.url}/messages?sessionId=${randomUUID()}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        expect(messages.status).to.equal(401);

        const anonymous = new Client({ name: 'anonymous', version: '1.0.0' });
        let refused: unknown;
        await anonymous.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`))).catch((err: unknown) => (refused = err));
        expect(refused).to.be.instanceOf(StreamableHTTPError);
        expect((refused as StreamableHTTPError).code).to.equal(401);
      }
    });

    it('answers GET and DELETE /mcp with 405 and a JSON-RPC error (stateless: no stream, no session)', async function () {
      for (const [gateway, method] of [[a, 'GET'], [a, 'DELETE'], [b, 'GET'], [b, 'DELETE']] as const) {
        const response = await fetch(`${gateway.url}/mcp`, { method, headers: { ...auth(alice.key), accept: 'text/event-stream' } });
        expect(response.status, method).to.equal(405);
        expect(response.headers.get('allow')).to.equal('POST');
        const body = (await response.json()) as { jsonrpc: string; error: { code: number }; id: null };
        expect(body).to.deep.include({ jsonrpc: '2.0', id: null });
        expect(body.error.code).to.equal(-32000);
      }
    });

    it('answers raw POSTs as the streamable HTTP specification says: refusals, a batch in order, notifications only', async function () {
      const post = (body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${a.url}/mcp`, {
          method: 'POST',
          headers: { ...auth(alice.key), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        });
      const refusal = async (response: Response) => ({ status: response.status, body: (await response.json()) as { jsonrpc: string; id: null; error: { code: number; message: string } } });
      const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
      const initialize = (id: number) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

      const notAcceptable = await refusal(await post(list(1), { accept: 'application/json' }));
      expect(notAcceptable).to.deep.include({ status: 406 });
      expect(notAcceptable.body).to.deep.include({ jsonrpc: '2.0', id: null });
      expect(notAcceptable.body.error.code).to.equal(-32000);
      expect((await refusal(await post(list(1), { 'mcp-protocol-version': '1999-01-01' }))).body.error.message).to.match(/Unsupported protocol version: 1999-01-01/);
      expect((await refusal(await post({ jsonrpc: '2.0', id: 1 }))).body.error.code).to.equal(-32700);
      expect((await refusal(await post([initialize(1), initialize(2)]))).status).to.equal(400);
      const tooMany = await refusal(await post(Array.from({ length: 101 }, (_, i) => list(i))));
      expect([tooMany.status, tooMany.body.error.code]).to.deep.equal([400, -32600]);

      // A batch: one answer per request, in order, as an array.
      const batch = await post([list(7), { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'counter_add', arguments: { counter: counter('raw'), n: 2 } } }]);
      expect(batch.status).to.equal(200);
      expect(batch.headers.get('content-type')).to.match(/^application\/json/);
      const answers = (await batch.json()) as Array<{ id: number; result: { tools?: unknown[]; structuredContent?: unknown } }>;
      expect(answers.map((r) => r.id)).to.deep.equal([7, 8]);
      expect(answers[0].result.tools).to.be.an('array').that.is.not.empty;
      expect(answers[1].result.structuredContent).to.deep.equal({ count: 2 });
      // Only a notification: accepted, no body.
      const accepted = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(accepted.status).to.equal(202);
      expect(await accepted.text()).to.equal('');
    });

    it('lists no prompts and no resources, and reads a kind’s resource template generically', async function () {
      const mcp = await connectHttp(a, alice.key);
      expect((await mcp.listPrompts()).prompts).to.deep.equal([]);
      expect((await mcp.listResources()).resources).to.deep.equal([]);
      const { resourceTemplates } = await mcp.listResourceTemplates();
      expect(resourceTemplates).to.deep.equal([
        { name: 'shouted', uriTemplate: 'shout://{text}', description: 'Test resource: the text of the URI, upper-cased by the shout service.', mimeType: 'text/plain' },
      ]);
      const read = await mcp.readResource({ uri: 'shout://hello' });
      expect(read.contents).to.deep.equal([{ uri: 'shout://hello', mimeType: 'text/plain', text: 'HELLO' }]);
      expect(await mcp.ping()).to.deep.equal({});
    });

    it('answers a body that is not JSON with a 400 JSON error, mounted either way', async function () {
      for (const gateway of [a, b]) {
        const response = await fetch(`${gateway.url}/mcp`, {
          method: 'POST',
          headers: { ...auth(alice.key), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: '{"jsonrpc":',
        });
        expect(response.status).to.equal(400);
        expect(((await response.json()) as { error: { code: string } }).error.code).to.equal('bad_request');
      }
    });
  });

  describe('legacy SSE transport at /sse + /messages', function () {
    it('serves tools over an SSE session, with progress', async function () {
      const mcp = await connectSse(a, alice.key);
      expect((await mcp.listTools()).tools.map((t) => t.name)).to.include('counter_add');
      const result = (await mcp.callTool({ name: 'counter_add', arguments: { counter: counter('sse'), n: 4 } })) as CallToolResult;
      expect(result.structuredContent).to.deep.equal({ count: 4 });
      const { result: echoed, progress } = await callToolWithProgress(mcp, 'counter_echo', { counter: counter('sse'), text: 'x y' });
      expect(echoed.structuredContent).to.deep.equal({ text: 'x y' });
      expect(progress.map((p) => p.progress)).to.deep.equal([1, 2]);
    });

    it('relays a POST that lands on another gateway to the one holding the stream (Redis pub/sub)', async function () {
      let postsToB = 0;
      // The stream is opened on A; every POST is sent to B instead, as a load balancer without affinity might.
      const viaB: FetchLike = async (url, init) => {
        const target = new URL(url);
        if ((init?.method ?? 'GET').toUpperCase() === 'POST') target.port = String(b.port);
        const response = await fetch(target, init);
        if (target.port === String(b.port) && response.status === 202) postsToB += 1;
        return response;
      };
      const mcp = await connectSse(a, alice.key, viaB);
      const result = (await mcp.callTool({ name: 'counter_add', arguments: { counter: counter('relay'), n: 6 } })) as CallToolResult;
      expect(result.structuredContent).to.deep.equal({ count: 6 });
      expect(postsToB, 'POSTs accepted by gateway B').to.be.greaterThanOrEqual(3); // initialize, initialized, tools/call

      const sessionIds = (await redis.pubsub('CHANNELS', client.names.mcpSession('*'))) as string[];
      expect(sessionIds.length).to.be.greaterThanOrEqual(1);
      await mcp.close();
      clients.splice(clients.indexOf(mcp), 1);
      // The holder unsubscribes when the stream closes: a later POST anywhere finds no session.
      await pollUntil(async () => ((await redis.pubsub('CHANNELS', client.names.mcpSession('*'))) as string[]).length < sessionIds.length || undefined, {
        timeoutMs: 10_000,
        what: 'the session channel to be released',
      });
    });

    it('answers 404 for an unknown session and for another user’s session, 400 for a malformed id', async function () {
      const post = (sessionId: string, key: string) =>
        fetch(`${b.url}/messages?sessionId=${sessionId}`, {
          method: 'POST',
          headers: { ...auth(key), 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        });
      const unknown = await post(randomUUID(), alice.key);
      expect(unknown.status).to.equal(404);
      expect(((await unknown.json()) as { error: { code: string } }).error.code).to.equal('not_found');
      expect((await post('nope', alice.key)).status).to.equal(400);

      // Bob learns Alice's session id: on the holding gateway he gets 404, and relayed messages are dropped.
      const transport = new SSEClientTransport(new URL(`${a.url}/sse`), { requestInit: { headers: auth(alice.key) } });
      const mcp = new Client({ name: 'alice', version: '1.0.0' });
      await mcp.connect(transport);
      clients.push(mcp);
      const sessionId = (transport as unknown as { _endpoint: URL })._endpoint.searchParams.get('sessionId')!;
      const onA = await fetch(`${a.url}/messages?sessionId=${sessionId}`, {
        method: 'POST',
        headers: { ...auth(bob.key), 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
      });
      expect(onA.status).to.equal(404);
      expect(await mcp.ping()).to.deep.equal({});
    });
  });

  describe('fuzzing tool arguments (fast-check)', function () {
    const schema = z.object(counterKind.tools!.find((t) => t.name === 'counter_add')!.input).strict();
    const invalid = (args: unknown) => !schema.safeParse(args).success;

    it('never answers 5xx or crashes: invalid counter_add arguments give a tool or JSON-RPC error and change no state', async function () {
      this.timeout(120_000);
      const mcp = await connectHttp(a, fuzzer.key);
      const target = counter('fuzz');
      const args = fc
        .oneof(
          fc.jsonValue(),
          fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 }),
          fc.record({ counter: fc.jsonValue({ maxDepth: 2 }), n: fc.jsonValue({ maxDepth: 2 }) }, { requiredKeys: [] }),
          fc.record({
            counter: fc.oneof(fc.constant(target), fc.string({ maxLength: 120 }), fc.constant(''), fc.constant('../etc'), fc.constant('a b')),
            n: fc.oneof(fc.double(), fc.string(), fc.constant(null), fc.boolean(), fc.constant(Number.MAX_SAFE_INTEGER + 2), fc.integer()),
          }),
          fc.record({ counter: fc.constant(target), n: fc.integer(), extra: fc.jsonValue({ maxDepth: 2 }) }),
        )
        .filter(invalid);
      const outcomes = { toolError: 0, rpcError: 0, bodyRefused: 0 };
      await fc.assert(
        fc.asyncProperty(args, async (value) => {
          try {
            const result = (await mcp.callTool({ name: 'counter_add', arguments: value as Record<string, unknown> })) as CallToolResult;
            expect(result.isError, JSON.stringify(value)).to.equal(true);
            outcomes.toolError += 1;
          } catch (err) {
            if (err instanceof StreamableHTTPError) {
              // The gateway's JSON parser refuses bodies with a `__proto__` key (prototype pollution): a 400, never a 5xx.
              expect(err.code, String(err)).to.equal(400);
              expect(String(err)).to.include('forbidden prototype property');
              outcomes.bodyRefused += 1;
              return;
            }
            // Arguments that are not even an object fail the SDK's request schema: a JSON-RPC error (the
            // SDK reports it as -32603 rather than -32602), never an HTTP 5xx.
            expect(err, String(err)).to.be.instanceOf(McpError);
            expect((err as McpError).code).to.be.oneOf([-32602, -32603]);
            expect(value === null || typeof value !== 'object' || Array.isArray(value), JSON.stringify(value)).to.equal(true);
            outcomes.rpcError += 1;
          }
        }),
        { numRuns: 200 },
      );
      expect(outcomes.toolError + outcomes.rpcError + outcomes.bodyRefused).to.equal(200);
      expect(outcomes.toolError, 'most invalid arguments reach the tool and are refused there').to.be.greaterThan(100);
      expect(await actorRecords(conn).countDocuments({ ownerId: fuzzer.id })).to.equal(0);
      const after = (await mcp.callTool({ name: 'counter_add', arguments: { counter: target, n: 1 } })) as CallToolResult;
      expect(after.structuredContent).to.deep.equal({ count: 1 });
    });

    it('never answers 5xx to arbitrary JSON-RPC bodies posted to /mcp', async function () {
      this.timeout(120_000);
      const message = fc.oneof(
        fc.jsonValue(),
        fc.record({
          jsonrpc: fc.constant('2.0'),
          id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 })),
          method: fc.constantFrom('initialize', 'ping', 'tools/list', 'tools/call', 'resources/read', 'resources/templates/list', 'prompts/get', 'nope'),
          params: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ name: fc.constantFrom('counter_add', 'counter_echo', 'x'), arguments: fc.jsonValue({ maxDepth: 3 }) })),
        }),
      );
      await fc.assert(
        fc.asyncProperty(message, async (body) => {
          const response = await fetch(`${a.url}/mcp`, {
            method: 'POST',
            headers: { ...auth(fuzzer.key), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify(body),
          });
          await response.arrayBuffer();
          expect(response.status, JSON.stringify(body)).to.be.lessThan(500);
        }),
        { numRuns: 200 },
      );
    });
  });
});
