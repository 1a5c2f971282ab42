/**
 * `troupe mcp` end to end: a `troupe mongo`, a `troupe worker` and a `troupe gateway` run troupe; the
 * official MCP SDK client talks to `troupe mcp` over stdio (spawning `node bin/troupe.js mcp`), legacy SSE
 * and stateless streamable HTTP, and everything it sees is compared with what the gateway's own `/mcp`
 * answers: the tool and resource-template lists, tool results and their progress, errors. Also: the key
 * travels as X-API-Key (seen by a recording proxy in front of the gateway), bad and missing keys and an
 * unreachable gateway are clear tool errors, flags against variables, binding, statelessness, `--help`,
 * usage errors, signals, a stdout that carries protocol only, and every client configuration of the
 * README's `troupe mcp` section, parsed from the README and launched.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { createParser } from 'eventsource-parser';
import { pollUntil, withDeadline } from '../support/async.js';
import { callToolWithProgress } from '../support/mcp-progress.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { createUserKey, runTroupe, spawnTroupe, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';
import { freePort } from '../support/troupe-mongo-process.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

type Headers = Record<string, string>;

/** The environment of a `troupe mcp` process: this run's, minus any TROUPE_API_* of the shell, plus `vars`. */
function relayEnv(vars: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = troupeEnv({});
  delete env.TROUPE_API_URL;
  delete env.TROUPE_API_KEY;
  return { ...env, ...vars };
}


const textOf = (result: CallToolResult): string => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** The JSON-RPC error a request was answered with. */
async function rpcError(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await request;
  } catch (error) {
    expect(error).to.be.instanceOf(McpError);
    return { code: (error as McpError).code, message: (error as McpError).message };
  }
  throw new Error('the request succeeded; an error was expected');
}

/** A proxy in front of the gateway that records the headers of every request it forwards (and may add some). */
async function recordingProxy(target: string, add: Headers = {}): Promise<{ url: string; seen: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.headers);
    const upstream = httpRequest(new URL(req.url ?? '/', target), { method: req.method, headers: { ...req.headers, host: new URL(target).host, ...add } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Reads the JSON-RPC messages of a stateless POST's answer (an SSE stream or a JSON body). */
async function postMcp(url: string, body: unknown, headers: Headers = {}): Promise<{ status: number; headers: Headers; messages: Array<Record<string, unknown>> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const messages: Array<Record<string, unknown>> = [];
  if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    createParser({ onEvent: (event) => messages.push(JSON.parse(event.data) as Record<string, unknown>) }).feed(text);
  } else if (text !== '') {
    messages.push(JSON.parse(text) as Record<string, unknown>);
  }
  return { status: response.status, headers: Object.fromEntries(response.headers), messages };
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } } };

describe('troupe mcp: troupe tools for local MCP clients, relayed to a gateway', function () {
  this.timeout(120_000);
  const processes: TroupeProcess[] = [];
  const clients: Client[] = [];
  const redisPrefix = `test-mcp-relay-${process.pid}-${Date.now().toString(36)}`;
  let gateway = '';
  let key = '';
  /** A URL nothing listens on. */
  let nowhere = '';
  let direct: Client;
  let gatewayTools: Tool[] = [];
  let gatewayTemplates: unknown[] = [];
  let channel = 0;
  /** A fresh echo channel, so each call's count is 1. */
  const nextChannel = () => `relay-${process.pid}-${(channel += 1)}`;

  async function connect(transport: Transport): Promise<Client> {
    const client = new Client({ name: 'mcp-relay-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(transport);
    return client;
  }

  /** `node bin/troupe.js mcp ARGS` over stdio, with only `vars` (and the SDK's default PATH, HOME…) in its environment. */
  async function connectStdio(vars: Record<string, string>, args: string[] = []): Promise<{ client: Client; stderr: () => string }> {
    const transport = new StdioClientTransport({ command: process.execPath, args: ['bin/troupe.js', 'mcp', ...args], env: vars, cwd: repoRoot, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    return { client: await connect(transport), stderr: () => stderr };
  }

  /** `troupe mcp --transport sse|http ARGS`, once it has printed where it listens. */
  async function startNetworkRelay(transport: 'sse' | 'http', env: NodeJS.ProcessEnv, args: string[] = []): Promise<{ relay: TroupeProcess; url: string }> {
    const port = args.includes('--port') ? [] : ['--port', String(await freePort())];
    const relay = spawnTroupe(['mcp', '--transport', transport, ...port, ...args], env);
    processes.push(relay);
    const url = await pollUntil(
      () => {
        if (relay.exitStatus()) throw new Error(`troupe mcp exited: ${relay.stderr()}`);
        return /\bat (http:\/\/[^\s;]+)/.exec(relay.stderr())?.[1];
      },
      { timeoutMs: 30_000, what: `troupe mcp --transport ${transport} to listen` },
    );
    return { relay, url };
  }

  const connectHttp = (url: string, headers: Headers = {}) => connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  const connectSse = (url: string, headers: Headers = {}) => connect(new SSEClientTransport(new URL(url), { requestInit: { headers } }));

  before(async function () {
    const [mongoPort, port, unused] = await Promise.all([freePort(), freePort(), freePort()]);
    nowhere = `http://127.0.0.1:${unused}`;
    const env = troupeEnv({ MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`, MONGODB_DB: 'mcp_relay', REDIS_PREFIX: redisPrefix, HOST: '127.0.0.1', PORT: String(port) });
    const mongo = spawnTroupe(['mongo', '--port', String(mongoPort)], env);
    processes.push(mongo);
    await pollUntil(() => mongo.stdout().includes('listening'), { timeoutMs: 30_000, what: 'troupe mongo' });
    key = await createUserKey('relay-user', env);
    const worker = spawnTroupe(['worker'], env);
    const gatewayProcess = spawnTroupe(['gateway'], env);
    processes.push(worker, gatewayProcess);
    gateway = `http://127.0.0.1:${port}`;
    await pollUntil(
      async () => {
        for (const p of [worker, gatewayProcess]) if (p.exitStatus()) throw new Error(`a troupe process exited: ${p.stderr()}`);
        return (await fetch(`${gateway}/readyz`).catch(() => undefined))?.status === 200;
      },
      { timeoutMs: 60_000, what: `${gateway}/readyz` },
    );
    direct = await connectHttp(`${gateway}/mcp`, { authorization: `Bearer ${key}` });
    gatewayTools = (await direct.listTools()).tools;
    gatewayTemplates = (await direct.listResourceTemplates()).resourceTemplates;
  });

  after(async function () {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(processes.map((p) => p.kill()));
    await deleteRedisPrefix(redisPrefix);
  });

  /** What every transport must do: the gateway's lists, its results and progress, its errors, unchanged. */
  async function behavesLikeTheGateway(client: Client) {
    expect((await client.listTools()).tools).to.deep.equal(gatewayTools);
    expect(gatewayTools.map((t) => t.name)).to.include.members(['echo', 'get_format_meta_rankings', 'game_execute', 'coach_chat', 'scouting_start']);
    expect((await client.listResourceTemplates()).resourceTemplates).to.deep.equal(gatewayTemplates);

    const relayed = await callToolWithProgress(client, 'echo', { text: 'one two three', channel: nextChannel() });
    const reference = await callToolWithProgress(direct, 'echo', { text: 'one two three', channel: nextChannel() });
    expect(relayed.result.isError, textOf(relayed.result)).to.not.equal(true);
    expect(relayed.result.structuredContent).to.deep.equal({ text: 'one two three', count: 1 });
    expect(relayed.result).to.deep.equal(reference.result);
    expect(relayed.progress.map((p) => p.message)).to.deep.equal(['token: {"text":"one"}', 'token: {"text":"two"}', 'token: {"text":"three"}']);
    expect(relayed.progress).to.deep.equal(reference.progress);

    // A tool error (the gateway's argument check) and a JSON-RPC error (no such resource) come back as the gateway gave them.
    const badArgs = (await client.callTool({ name: 'echo', arguments: { text: '' } })) as CallToolResult;
    expect(badArgs.isError).to.equal(true);
    expect(badArgs).to.deep.equal(await direct.callTool({ name: 'echo', arguments: { text: '' } }));
    const uri = 'troupe://no/such/resource';
    expect(await rpcError(client.readResource({ uri }))).to.deep.equal(await rpcError(direct.readResource({ uri })));

    // Resources: a read through the relay is the gateway's read (mail's inbox and thread templates).
    const inbox = (await client.callTool({ name: 'create_inbox', arguments: { name: 'Relay test', username: `relay-${process.pid}-${(channel += 1)}` } })) as CallToolResult;
    expect(inbox.isError, textOf(inbox)).to.not.equal(true);
    const recent = `email://inbox/${(inbox.structuredContent as { id: string }).id}/recent`;
    const read = await client.readResource({ uri: recent });
    expect(read.contents[0]).to.include({ uri: recent, mimeType: 'application/json' });
    expect(read).to.deep.equal(await direct.readResource({ uri: recent }));
    const missing = 'email://thread/th_does_not_exist';
    expect(await rpcError(client.readResource({ uri: missing }))).to.deep.equal(await rpcError(direct.readResource({ uri: missing })));

    // The mail spec's tool scenarios, through this transport.
    const inboxId = (inbox.structuredContent as { id: string }).id;
    const address = (inbox.structuredContent as { email_address: string }).email_address;
    const username = address.split('@')[0]!;
    const failed = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError, `${name} ${JSON.stringify(args)}`).to.equal(true);
      return textOf(result);
    };
    expect(await failed('create_inbox', { name: 'Again', username })).to.include('already in use');
    expect(await failed('create_inbox', { name: 'Bad', username: 'Not Valid!' })).to.match(/invalid username/i);
    const sent = (await client.callTool({ name: 'send_email', arguments: { inbox_id: inboxId, recipient: address, subject: 'Relay invoice', body: '**Hi** there' } })) as CallToolResult;
    expect(sent.isError, textOf(sent)).to.not.equal(true);
    const { thread_id: threadId, status } = sent.structuredContent as { thread_id: string; status: string };
    expect(status).to.equal('delivered');
    const reply = (await client.callTool({ name: 'send_email', arguments: { inbox_id: inboxId, recipient: address, subject: 'Re: Relay invoice', body: 'again', thread_id: threadId } })) as CallToolResult;
    expect((reply.structuredContent as { thread_id: string }).thread_id).to.equal(threadId);
    expect(await failed('send_email', { inbox_id: 'ibx_000000000000000000000000', recipient: address, subject: 'x', body: 'x' })).to.include('not found');
    const found = (await client.callTool({ name: 'search_email', arguments: { query: 'invoice', inbox_id: inboxId, limit: 1 } })) as CallToolResult;
    expect((found.structuredContent as { results: unknown[] }).results).to.have.length(1);
    expect(await failed('search_email', { query: 'invoice', inbox_id: 'ibx_000000000000000000000000' })).to.include('not found');
    const waited = (await client.callTool({ name: 'wait_for_reply', arguments: { thread_id: threadId, timeout_seconds: 1 } })) as CallToolResult;
    expect(waited.isError, textOf(waited)).to.not.equal(true);
    expect(waited.structuredContent).to.satisfy((r: { timed_out: boolean; message?: unknown }) => r.timed_out === true || r.message !== undefined);
    expect(await failed('wait_for_reply', { thread_id: 'th_000000000000000000000000', timeout_seconds: 1 })).to.include('not found');
    const thread = await client.readResource({ uri: `email://thread/${threadId}` });
    expect((thread.contents[0] as { text: string }).text).to.match(/^# Relay invoice/);
  }

  it('--help describes every option, its default and both environment variables', async function () {
    const { code, stdout } = await runTroupe(['mcp', '--help'], relayEnv(), processes);
    expect(code).to.equal(0);
    for (const text of ['--transport', 'stdio', 'sse', 'http', '--host', '127.0.0.1', '--port', '3000', '--api-url', '--api-key', 'TROUPE_API_URL', 'TROUPE_API_KEY', 'http://127.0.0.1:8080', 'X-API-Key']) {
      expect(stdout).to.include(text);
    }
    const { stdout: top } = await runTroupe(['--help'], relayEnv(), processes);
    expect(top).to.match(/^\s+mcp \[options\]\s+serve troupe's MCP tools/m);
  });

  it('exits 2 with one clear line for a bad transport, port, host, URL or option', async function () {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['--transport', 'websocket'], {}, /--transport must be one of stdio, sse, http \(got "websocket"\)/],
      [['--port', '70000'], {}, /--port must be an integer 0-65535 \(got "70000"\)/],
      [['--port', 'abc'], {}, /--port must be an integer 0-65535/],
      [['--host', ''], {}, /--host must be a host name or IP address/],
      [['--api-url', 'ftp://example.com'], {}, /--api-url must be an http\(s\) URL/],
      [[], { TROUPE_API_URL: 'not a url' }, /TROUPE_API_URL must be an http\(s\) URL/],
      [['--verbose'], {}, /unknown option '--verbose'/],
    ];
    for (const [args, vars, message] of cases) {
      const { code, stdout, stderr } = await runTroupe(['mcp', ...args], relayEnv(vars), processes);
      expect(code, `${args.join(' ')}: ${stderr}`).to.equal(2);
      expect(stderr).to.match(message);
      expect(stderr.trim().split('\n'), stderr).to.have.length(1);
      expect(stdout).to.equal('');
    }
  });

  it('over stdio: the gateway tools, results, progress and errors (TROUPE_API_URL and TROUPE_API_KEY)', async function () {
    const { client, stderr } = await connectStdio({ TROUPE_API_URL: gateway, TROUPE_API_KEY: key });
    await behavesLikeTheGateway(client);
    expect(stderr()).to.include(`troupe mcp: MCP on stdio; tools run on the troupe gateway at ${gateway}/mcp`);
    expect(stderr()).to.not.include(key);
  });

  it('over legacy SSE: the same', async function () {
    const { url } = await startNetworkRelay('sse', relayEnv({ TROUPE_API_URL: gateway, TROUPE_API_KEY: key }));
    expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/sse$/);
    await behavesLikeTheGateway(await connectSse(url));
  });

  it('over stateless streamable HTTP: the same', async function () {
    const { url } = await startNetworkRelay('http', relayEnv({ TROUPE_API_URL: gateway, TROUPE_API_KEY: key }));
    expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    await behavesLikeTheGateway(await connectHttp(url));
  });

  it('lists everything with no gateway reachable, and a call then is a tool error naming the URL and TROUPE_API_URL', async function () {
    const { client, stderr } = await connectStdio({ TROUPE_API_URL: nowhere, TROUPE_API_KEY: key });
    const info = client.getServerVersion();
    expect(info?.name).to.equal('troupe');
    expect((await client.listTools()).tools).to.deep.equal(gatewayTools);
    expect((await client.listResourceTemplates()).resourceTemplates).to.deep.equal(gatewayTemplates);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const result = (await client.callTool({ name: 'echo', arguments: { text: 'anyone?' } })) as CallToolResult;
      expect(result.isError).to.equal(true);
      expect(textOf(result)).to.include(`cannot reach the troupe gateway at ${nowhere}/mcp (ECONNREFUSED)`).and.include('TROUPE_API_URL');
      expect(result._meta?.['troupe/error']).to.deep.include({ code: 'gateway_unreachable' });
    }
    const read = await rpcError(client.readResource({ uri: 'email://thread/th_1' }));
    expect(read.message).to.include(`${nowhere}/mcp`).and.include('TROUPE_API_URL');
    // Still serving: the failures were answers, not crashes.
    expect((await client.listTools()).tools).to.have.length(gatewayTools.length);
    await pollUntil(() => stderr().includes('warning: cannot reach the troupe gateway'), { timeoutMs: 10_000, what: 'the start-up warning on stderr' });
  });

  it('sends the key as X-API-Key (no Authorization), and no auth header at all without one', async function () {
    const proxy = await recordingProxy(gateway);
    try {
      const { client } = await connectStdio({ TROUPE_API_URL: proxy.url, TROUPE_API_KEY: key });
      const ok = (await client.callTool({ name: 'echo', arguments: { text: 'keyed', channel: nextChannel() } })) as CallToolResult;
      expect(ok.structuredContent).to.deep.equal({ text: 'keyed', count: 1 });
      const posts = proxy.seen.filter((h) => h['content-type'] === 'application/json');
      expect(posts.length).to.be.greaterThan(0);
      for (const headers of proxy.seen) {
        expect(headers['x-api-key']).to.equal(key);
        expect(headers.authorization).to.equal(undefined);
      }

      proxy.seen.length = 0;
      const { client: keyless } = await connectStdio({ TROUPE_API_URL: proxy.url });
      const refused = (await keyless.callTool({ name: 'echo', arguments: { text: 'no key' } })) as CallToolResult;
      expect(refused.isError).to.equal(true);
      expect(textOf(refused)).to.include(`the troupe gateway at ${proxy.url}/mcp needs an API key (HTTP 401)`).and.include('set TROUPE_API_KEY');
      expect(proxy.seen.length).to.be.greaterThan(0);
      for (const headers of proxy.seen) {
        expect(headers['x-api-key']).to.equal(undefined);
        expect(headers.authorization).to.equal(undefined);
      }
    } finally {
      await proxy.close();
    }
  });

  it('a refused key is a clear tool error that does not repeat the key', async function () {
    const badKey = 'trp_000000000000_thisisnotarealkeyatall';
    const { client } = await connectStdio({ TROUPE_API_URL: gateway, TROUPE_API_KEY: badKey });
    const refused = (await client.callTool({ name: 'echo', arguments: { text: 'let me in' } })) as CallToolResult;
    expect(refused.isError).to.equal(true);
    expect(textOf(refused)).to.include(`the troupe gateway at ${gateway}/mcp refused the API key (HTTP 401)`).and.include('TROUPE_API_KEY');
    expect(JSON.stringify(refused)).to.not.include(badKey);
    expect(refused._meta?.['troupe/error']).to.deep.include({ code: 'unauthorized' });
  });

  it('--api-url wins over TROUPE_API_URL, and --api-key over TROUPE_API_KEY', async function () {
    const { client } = await connectStdio({ TROUPE_API_URL: nowhere, TROUPE_API_KEY: 'trp_000000000000_wrong' }, ['--api-url', `${gateway}/`, '--api-key', key]);
    const result = (await client.callTool({ name: 'echo', arguments: { text: 'flag wins', channel: nextChannel() } })) as CallToolResult;
    expect(result.isError, textOf(result)).to.not.equal(true);
    expect(result.structuredContent).to.deep.equal({ text: 'flag wins', count: 1 });
  });

  it('--host and --port bind where they are told', async function () {
    const port = await freePort();
    const { url } = await startNetworkRelay('http', relayEnv({ TROUPE_API_URL: gateway, TROUPE_API_KEY: key }), ['--host', '127.0.0.2', '--port', String(port)]);
    expect(url).to.equal(`http://127.0.0.2:${port}/mcp`);
    const client = await connectHttp(url);
    expect((await client.listTools()).tools).to.deep.equal(gatewayTools);
    const elsewhere = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST' }).then(
      () => 'answered',
      (error: TypeError) => String((error.cause as { code?: string } | undefined)?.code),
    );
    expect(elsewhere).to.equal('ECONNREFUSED');
    const sse = await startNetworkRelay('sse', relayEnv({ TROUPE_API_URL: gateway, TROUPE_API_KEY: key }), ['--host', '127.0.0.1', '--port', '0']);
    expect(sse.url).to.match(/^http:\/\/127\.0\.0\.1:(?!0\/)\d+\/sse$/);
  });

  it('http is stateless: no session ids, any request from any client, GET and DELETE answer 405', async function () {
    const { url } = await startNetworkRelay('http', relayEnv({ TROUPE_API_URL: gateway, TROUPE_API_KEY: key }));
    const init = await postMcp(url, INITIALIZE);
    expect(init.status).to.equal(200);
    expect(init.headers['mcp-session-id']).to.equal(undefined);
    expect(init.messages[0]).to.deep.include({ id: 1 });
    // Another "client", never initialized, without any session id: a call works all the same.
    const call = await postMcp(url, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'stateless', channel: nextChannel() }, _meta: { progressToken: 'p1' } } }, { 'mcp-protocol-version': '2025-06-18' });
    expect(call.status).to.equal(200);
    const progress = call.messages.filter((m) => m.method === 'notifications/progress');
    expect(progress.map((m) => (m.params as { progressToken: unknown }).progressToken)).to.deep.equal(['p1']);
    expect(call.messages.at(-1)).to.deep.include({ id: 7 });
    expect((call.messages.at(-1)!.result as CallToolResult).structuredContent).to.deep.equal({ text: 'stateless', count: 1 });
    // Two SDK clients side by side.
    const [a, b] = await Promise.all([connectHttp(url), connectHttp(url)]);
    const [ra, rb] = await Promise.all([
      a.callTool({ name: 'echo', arguments: { text: 'a', channel: nextChannel() } }),
      b.callTool({ name: 'echo', arguments: { text: 'b', channel: nextChannel() } }),
    ]);
    expect([ra.structuredContent, rb.structuredContent]).to.deep.equal([{ text: 'a', count: 1 }, { text: 'b', count: 1 }]);
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(url, { method, headers: { accept: 'text/event-stream' } });
      expect(response.status, method).to.equal(405);
      expect(response.headers.get('allow')).to.equal('POST');
      expect(((await response.json()) as { error: { message: string } }).error.message).to.match(/stateless/);
    }
  });

  it('on loopback, refuses other Host names and foreign Origins (DNS rebinding protection)', async function () {
    const { url } = await startNetworkRelay('http', relayEnv({ TROUPE_API_URL: gateway, TROUPE_API_KEY: key }));
    const port = new URL(url).port;
    const raw = (headers: Headers) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      });
    const rebound = await raw({ host: `evil.example.com:${port}` });
    expect(rebound.status).to.equal(403);
    expect(rebound.body).to.include('DNS rebinding');
    expect((await raw({ host: `127.0.0.1:${port}`, origin: 'http://evil.example.com' })).status).to.equal(403);
    expect((await raw({ host: `localhost:${port}`, origin: 'http://localhost:5173' })).status).to.equal(200);
  });

  it('over sse/http a client may bring its own key (Bearer or X-API-Key)', async function () {
    const { url } = await startNetworkRelay('http', relayEnv({ TROUPE_API_URL: gateway }));
    const keyless = await connectHttp(url);
    expect(((await keyless.callTool({ name: 'echo', arguments: { text: 'x' } })) as CallToolResult).isError).to.equal(true);
    const bearer = await connectHttp(url, { authorization: `Bearer ${key}` });
    expect((await bearer.callTool({ name: 'echo', arguments: { text: 'mine', channel: nextChannel() } })).structuredContent).to.deep.equal({ text: 'mine', count: 1 });
    const sse = await startNetworkRelay('sse', relayEnv({ TROUPE_API_URL: gateway }));
    const viaSse = await connectSse(sse.url, { 'x-api-key': key });
    expect((await viaSse.callTool({ name: 'echo', arguments: { text: 'mine too', channel: nextChannel() } })).structuredContent).to.deep.equal({ text: 'mine too', count: 1 });
  });

  it('stdio writes nothing but JSON-RPC on stdout, and exits 0 when the client closes stdin', async function () {
    const child = spawn(process.execPath, ['bin/troupe.js', 'mcp'], { cwd: repoRoot, env: relayEnv({ TROUPE_API_URL: gateway, TROUPE_API_KEY: key }), stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    try {
      const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
      send(INITIALIZE);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'only protocol', channel: nextChannel() }, _meta: { progressToken: 9 } } });
      send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { text: '' } } });
      await pollUntil(() => /"id":3\b/.test(stdout) && /"id":4\b/.test(stdout), { timeoutMs: 30_000, what: 'the answers on stdout' });
      child.stdin.end();
      const [code] = await withDeadline(exited, 15_000, 'troupe mcp to exit after stdin closed');
      expect(code, stderr).to.equal(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    const lines = stdout.split('\n');
    expect(lines.at(-1)).to.equal('');
    const messages = lines.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const message of messages) expect(message.jsonrpc).to.equal('2.0');
    expect(messages.filter((m) => m.method === 'notifications/progress')).to.have.length(2);
    expect(messages.map((m) => m.id).filter((id) => id !== undefined)).to.have.members([1, 2, 3, 4]);
    expect(stderr).to.include('troupe mcp: MCP on stdio').and.include('stdin closed: shutting down');
  });

  it('closes cleanly on SIGTERM and SIGINT, open sessions included', async function () {
    const http = await startNetworkRelay('http', relayEnv({ TROUPE_API_URL: gateway, TROUPE_API_KEY: key }));
    await (await connectHttp(http.url)).listTools();
    http.relay.child.kill('SIGTERM');
    expect(await withDeadline(http.relay.exited, 15_000, 'troupe mcp --transport http to exit')).to.deep.equal({ code: 0, signal: null });

    const sse = await startNetworkRelay('sse', relayEnv({ TROUPE_API_URL: gateway, TROUPE_API_KEY: key }));
    const open = await connectSse(sse.url);
    await open.listTools();
    sse.relay.child.kill('SIGINT');
    expect(await withDeadline(sse.relay.exited, 15_000, 'troupe mcp --transport sse to exit')).to.deep.equal({ code: 0, signal: null });
    expect(sse.relay.stderr()).to.include('SIGINT: shutting down');

    const { client } = await connectStdio({ TROUPE_API_URL: gateway, TROUPE_API_KEY: key });
    const transport = (client as unknown as { transport: StdioClientTransport }).transport;
    const pid = transport.pid!;
    const gone = new Promise<void>((resolve) => (client.onclose = resolve));
    process.kill(pid, 'SIGTERM');
    await withDeadline(gone, 15_000, 'troupe mcp over stdio to exit on SIGTERM');
  });

  describe('the official MCP conformance scenarios (MCP_CONFORMANCE=1)', function () {
    /**
     * `@modelcontextprotocol/conformance` needs Node >= 22 and is no dependency of troupe: it runs through
     * `npx -y` with the `node` package's Node 22, in a temporary directory, only when MCP_CONFORMANCE=1 (it
     * downloads both). Most scenarios call the suite's own fixture tools (test_simple_text, …), which troupe
     * does not have; what counts is that the relay answers every scenario as the gateway's /mcp does.
     */
    it('troupe mcp --transport http answers every scenario as the gateway does (and passes DNS rebinding protection)', async function () {
      if (process.env.MCP_CONFORMANCE !== '1') this.skip();
      this.timeout(900_000);
      const { mkdtemp, readdir, readFile, rm } = await import('node:fs/promises');
      const { tmpdir } = await import('node:os');
      const path = await import('node:path');
      const work = await mkdtemp(path.join(tmpdir(), 'mcp-conformance-'));
      // The suite sends no API key: the gateway is tested through a proxy that adds it.
      const withKey = await recordingProxy(gateway, { 'x-api-key': key });
      const { url } = await startNetworkRelay('http', relayEnv({ TROUPE_API_URL: gateway, TROUPE_API_KEY: key }));
      const run = async (name: string, target: string) => {
        const out = path.join(work, name);
        const child = spawn('npx', ['-y', '-p', 'node@22', '-p', '@modelcontextprotocol/conformance@0.1.16', '-c', `conformance server --url ${target} --suite all -o ${out}`], { cwd: work, stdio: 'ignore' });
        try {
          await withDeadline(once(child, 'exit'), 600_000, `conformance against ${name}`);
        } finally {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        }
        const results: Record<string, unknown> = {};
        for (const dir of await readdir(out)) {
          const checks = JSON.parse(await readFile(path.join(out, dir, 'checks.json'), 'utf8')) as Array<{ id: string; status: string; errorMessage?: string }>;
          results[dir.replace(/-\d{4}-\d\d-\d\dT.*$/, '')] = checks.map((c) => [c.id, c.status, c.errorMessage ?? null]);
        }
        return results;
      };
      try {
        const relayed = await run('relay', url);
        const reference = await run('gateway', `${withKey.url}/mcp`);
        expect(Object.keys(relayed).length).to.be.greaterThan(20);
        const rebinding = 'server-dns-rebinding-protection';
        expect((relayed[rebinding] as string[][]).map(([, status]) => status)).to.deep.equal(['SUCCESS', 'SUCCESS']);
        delete relayed[rebinding];
        delete reference[rebinding];
        expect(relayed).to.deep.equal(reference);
      } finally {
        await withKey.close();
        await rm(work, { recursive: true, force: true });
      }
    });
  });

  describe("README's client configurations", function () {
    /** The JSON blocks of README's `### troupe mcp (local MCP clients)` section, each with the text before it. */
    function readmeSnippets(): Array<{ label: string; config: { mcpServers: Record<string, Record<string, unknown>> } }> {
      const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
      const start = readme.indexOf('\n### troupe mcp (local MCP clients)\n');
      expect(start, 'README has a "### troupe mcp (local MCP clients)" section').to.be.greaterThan(-1);
      const rest = readme.slice(start + 1);
      const end = rest.slice(4).search(/\n##{1,2} /);
      const section = end === -1 ? rest : rest.slice(0, end + 4);
      const snippets: Array<{ label: string; config: { mcpServers: Record<string, Record<string, unknown>> } }> = [];
      const block = /```json\n([\s\S]*?)```/g;
      let match: RegExpExecArray | null;
      while ((match = block.exec(section))) {
        const before = section.slice(0, match.index).trim().split('\n').at(-1) ?? '';
        snippets.push({ label: before, config: JSON.parse(match[1]!) as { mcpServers: Record<string, Record<string, unknown>> } });
      }
      return snippets;
    }

    /** What a client does with the snippet's placeholders: our gateway and key for the README's, Cursor's `${…}` variables resolved. */
    function substitute(value: string, env: Record<string, string>): string {
      return value
        .replaceAll('https://troupe.example.com', gateway)
        .replaceAll('http://127.0.0.1:8080', gateway)
        .replaceAll('trp_YOUR_API_KEY', key)
        .replaceAll('${workspaceFolder}', repoRoot.replace(/\/$/, ''))
        .replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_all, name: string) => env[name] ?? '');
    }

    it('has a Claude Desktop, a Cursor and a remote HTTP configuration, each launched as written', async function () {
      const snippets = readmeSnippets();
      const labels = snippets.map((s) => s.label).join('\n');
      expect(labels).to.match(/Claude Desktop/);
      expect(labels).to.match(/Cursor/);
      expect(labels).to.match(/remote|HTTP/i);
      const stdio = snippets.filter((s) => s.config.mcpServers.troupe?.command !== undefined);
      const remote = snippets.filter((s) => s.config.mcpServers.troupe?.url !== undefined);
      expect(stdio.length, 'stdio configurations').to.be.at.least(2);
      expect(remote.length, 'remote configurations').to.be.at.least(1);
      const claude = snippets.find((s) => /Claude Desktop/.test(s.label))!.config.mcpServers.troupe!;
      expect(claude).to.deep.include({ command: 'npx', args: ['troupe', 'mcp'] });
      expect(Object.keys(claude.env as object)).to.have.members(['TROUPE_API_URL', 'TROUPE_API_KEY']);

      // `npx troupe` resolves the project's own bin in the checkout (or after `npm link`); checked first with
      // --no-install so that a failure can never fetch another package called troupe from a registry.
      const npxResolves = spawnSync('npx', ['--no-install', 'troupe', '--version'], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 }).status === 0;
      const shellEnv = { TROUPE_API_KEY: key };
      for (const { label, config } of stdio) {
        const server = config.mcpServers.troupe!;
        let command = substitute(server.command as string, shellEnv);
        let args = (server.args as string[]).map((arg) => substitute(arg, shellEnv));
        if (command === 'npx' && !npxResolves) [command, args] = [process.execPath, ['bin/troupe.js', ...args.slice(1)]];
        const env = Object.fromEntries(Object.entries((server.env ?? {}) as Record<string, string>).map(([name, value]) => [name, substitute(value, shellEnv)]));
        const client = await connect(new StdioClientTransport({ command, args, env, cwd: repoRoot, stderr: 'pipe' }));
        expect((await client.listTools()).tools, label).to.deep.equal(gatewayTools);
        const result = (await client.callTool({ name: 'echo', arguments: { text: 'from the README', channel: nextChannel() } })) as CallToolResult;
        expect(result.structuredContent, `${label}: ${textOf(result)}`).to.deep.equal({ text: 'from the README', count: 1 });
        await client.close();
      }
      for (const { label, config } of remote) {
        const server = config.mcpServers.troupe!;
        expect(server.headers, label).to.have.property('Authorization').that.matches(/^Bearer /);
        const headers = Object.fromEntries(Object.entries(server.headers as Record<string, string>).map(([name, value]) => [name, substitute(value, shellEnv)]));
        const client = await connectHttp(substitute(server.url as string, shellEnv), headers);
        expect((await client.listTools()).tools, label).to.deep.equal(gatewayTools);
        const result = (await client.callTool({ name: 'echo', arguments: { text: 'remote', channel: nextChannel() } })) as CallToolResult;
        expect(result.structuredContent, `${label}: ${textOf(result)}`).to.deep.equal({ text: 'remote', count: 1 });
        await client.close();
      }
    });
  });
});
