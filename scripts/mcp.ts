/**
 * `troupe mcp`: troupe's MCP tools and resources for local MCP clients, on the transport they speak,
 * each call relayed to a troupe gateway (gateway/mcp/relay.ts).
 *
 *   stdio (default)  MCP on stdin/stdout for clients that start the server (Claude Desktop, Cursor):
 *                    stdout carries protocol only; every line of our own goes to stderr.
 *   sse              the legacy HTTP+SSE transport: GET /sse opens a session, POST /messages?sessionId=.
 *   http             stateless streamable HTTP: POST /mcp, a new server and transport per request, so
 *                    any number of instances behind a load balancer need no affinity; GET/DELETE 405.
 *
 * The gateway is `--api-url`, else TROUPE_API_URL, else http://127.0.0.1:8080; the key TROUPE_API_KEY
 * (or `--api-key`), sent as X-API-Key, none if unset. Over sse/http a client may send its own key
 * (`X-API-Key` or `Authorization: Bearer`), which its calls then use instead. SIGINT/SIGTERM (and, on
 * stdio, the client closing stdin) close everything and exit 0.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export const MCP_TRANSPORTS = ['stdio', 'sse', 'http'] as const;
export type McpTransportName = (typeof MCP_TRANSPORTS)[number];

export const DEFAULT_API_URL = 'http://127.0.0.1:8080';
export const DEFAULT_MCP_HOST = '127.0.0.1';
export const DEFAULT_MCP_PORT = 3000;

/** The flags as commander hands them over (strings). */
export interface McpFlags {
  transport: string;
  host: string;
  port: string;
  apiUrl?: string;
  apiKey?: string;
}

export interface McpCommandConfig {
  transport: McpTransportName;
  host: string;
  port: number;
  /** Base URL of the gateway, without a trailing slash. */
  apiUrl: string;
  apiKey?: string;
}

export type McpConfigResult = { ok: true; config: McpCommandConfig } | { ok: false; message: string };

/** Checks the flags and environment; a mistake is one usage line (the CLI exits 2 with it). */
export function resolveMcpOptions(flags: McpFlags, env: NodeJS.ProcessEnv): McpConfigResult {
  const fail = (message: string): McpConfigResult => ({ ok: false, message });
  const transport = flags.transport.trim().toLowerCase();
  if (!(MCP_TRANSPORTS as readonly string[]).includes(transport)) return fail(`--transport must be one of ${MCP_TRANSPORTS.join(', ')} (got "${flags.transport}")`);
  const port = flags.port.trim();
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) return fail(`--port must be an integer 0-65535 (got "${flags.port}")`);
  const host = flags.host.trim();
  if (host === '' || /[\s/]/.test(host)) return fail(`--host must be a host name or IP address (got "${flags.host}")`);

  const fromEnv = env.TROUPE_API_URL?.trim() ? env.TROUPE_API_URL : undefined;
  const [source, raw] = flags.apiUrl !== undefined ? ['--api-url', flags.apiUrl] : fromEnv !== undefined ? ['TROUPE_API_URL', fromEnv] : ['default', DEFAULT_API_URL];
  const apiUrl = raw.trim().replace(/\/+$/, '');
  if (!URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol)) return fail(`${source} must be an http(s) URL such as ${DEFAULT_API_URL} (got "${raw}")`);
  if (new URL(apiUrl).search !== '' || new URL(apiUrl).hash !== '') return fail(`${source} must be the gateway's base URL, without a query or fragment (got "${raw}")`);

  const key = (flags.apiKey ?? env.TROUPE_API_KEY)?.trim();
  if (flags.apiKey !== undefined && !key) return fail('--api-key must not be empty (leave it out to send no key)');
  return { ok: true, config: { transport: transport as McpTransportName, host, port: Number(port), apiUrl, ...(key ? { apiKey: key } : {}) } };
}

type Output = Pick<NodeJS.WriteStream, 'write'>;

/** MCP clients send JSON-RPC; the SDK's own limit for one message is 4 MB. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Keep-alive comments on idle SSE streams, which proxies would otherwise drop after 30-60 s. */
const SSE_KEEPALIVE_MS = 15_000;

export async function runMcp(config: McpCommandConfig, stderr: Output = process.stderr): Promise<number> {
  // Loaded here, so that `troupe mcp --help` and option errors stay quick.
  // The kinds' contracts alone: listing the tools loads no handler (see actors/mcp-surfaces.ts).
  const [{ mcpSurfaces }, { mcpCatalogue }, { GatewayRelay, buildRelayServer }] = await Promise.all([
    import('../actors/mcp-surfaces.js'),
    import('../gateway/mcp/server.js'),
    import('../gateway/mcp/relay.js'),
  ]);
  const catalogue = mcpCatalogue(mcpSurfaces);
  const relay = new GatewayRelay({ apiUrl: config.apiUrl, apiKey: config.apiKey });
  const say = (line: string) => stderr.write(`troupe mcp: ${line}\n`);
  const target = `tools run on the troupe gateway at ${relay.endpoint} (${config.apiKey ? 'with the API key of TROUPE_API_KEY' : 'no API key: set TROUPE_API_KEY'})`;
  const build = (callerKey?: string) => buildRelayServer(catalogue, relay, callerKey);

  let stop: () => Promise<void>;
  const closing = shutdownRequested();
  if (config.transport === 'stdio') {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const server = build();
    const transport = new StdioServerTransport();
    // The client went away: stdin ended, or stdout broke (EPIPE). Either way, shut down.
    process.stdin.once('end', () => closing.request('stdin closed'));
    process.stdout.on('error', () => closing.request('stdout closed'));
    await server.connect(transport);
    say(`MCP on stdio; ${target}`);
    stop = async () => {
      await server.close().catch(() => undefined);
    };
  } else {
    const listening = await serveNetwork(config, build, stderr);
    if (!listening.ok) {
      closing.dispose();
      await relay.close();
      return 1;
    }
    say(`${listening.description} at ${listening.url}; ${target}`);
    stop = listening.close;
  }
  // A warning now beats a surprise at the first call; the server answers either way.
  void relay.check().then((failure) => failure && say(`warning: ${failure.message} (tool calls answer with this error until it is fixed)`));

  const reason = await closing.requested;
  say(`${reason}: shutting down`);
  closing.dispose();
  await stop();
  await relay.close();
  return 0;
}

interface Listening {
  ok: true;
  url: string;
  description: string;
  close(): Promise<void>;
}

/** The sse or http transport on a node:http server; `ok: false` (after a line on stderr) if it cannot listen. */
async function serveNetwork(
  config: McpCommandConfig,
  build: (callerKey?: string) => McpServer,
  stderr: Output,
): Promise<Listening | { ok: false }> {
  const [{ SSEServerTransport }, { StreamableHTTPServerTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/sse.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]);
  const sessions = new Map<string, InstanceType<typeof SSEServerTransport>>();

  async function openSse(req: IncomingMessage, res: ServerResponse) {
    const transport = new SSEServerTransport('/messages', res);
    const server = build(callerKey(req));
    const timer: { keepAlive?: ReturnType<typeof setInterval> } = {};
    sessions.set(transport.sessionId, transport);
    // Set before connect, so the server chains its own close handling (which aborts the session's calls) after it.
    transport.onclose = () => {
      clearInterval(timer.keepAlive);
      sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    timer.keepAlive = setInterval(() => res.writableEnded || res.write(': keepalive\n\n'), SSE_KEEPALIVE_MS);
    timer.keepAlive.unref();
  }

  async function postSse(url: URL, req: IncomingMessage, res: ServerResponse) {
    const sessionId = url.searchParams.get('sessionId');
    if (!sessionId) return answer(res, 400, jsonRpcError(-32600, 'sessionId query parameter must be the id the SSE stream announced'));
    const transport = sessions.get(sessionId);
    if (!transport) return answer(res, 404, jsonRpcError(-32001, `no MCP SSE session ${sessionId} (it ended, or never existed): open a new one with GET /sse`));
    await transport.handlePostMessage(req, res);
  }

  async function postStateless(req: IncomingMessage, res: ServerResponse) {
    const body = await readJson(req);
    if (!body.ok) return answer(res, body.status, jsonRpcError(body.code, body.message));
    // A stateless transport cannot be reused: a new server and transport for every request.
    const server = build(callerKey(req));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.once('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body.value);
  }

  const http: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = async () => {
      if (url.pathname === '/healthz' && req.method === 'GET') return answer(res, 200, { status: 'ok' });
      const refused = rebindingRefusal(config.host, req);
      if (refused) return answer(res, 403, jsonRpcError(-32000, refused));
      if (config.transport === 'http' && url.pathname === '/mcp') {
        if (req.method === 'POST') return postStateless(req, res);
        res.setHeader('Allow', 'POST');
        return answer(res, 405, jsonRpcError(-32000, 'Method not allowed: this MCP endpoint is stateless; POST JSON-RPC messages to it.'));
      }
      if (config.transport === 'sse' && url.pathname === '/sse') {
        if (req.method === 'GET') return openSse(req, res);
        res.setHeader('Allow', 'GET');
        return answer(res, 405, jsonRpcError(-32000, 'Method not allowed: GET /sse opens a session; POST messages to /messages?sessionId='));
      }
      if (config.transport === 'sse' && url.pathname === '/messages') {
        if (req.method === 'POST') return postSse(url, req, res);
        res.setHeader('Allow', 'POST');
        return answer(res, 405, jsonRpcError(-32000, 'Method not allowed: POST JSON-RPC messages to /messages?sessionId='));
      }
      const where = config.transport === 'http' ? 'POST /mcp' : 'GET /sse';
      return answer(res, 404, { error: { code: 'not_found', message: `nothing at ${req.method} ${url.pathname}: this troupe mcp server speaks MCP at ${where}` } });
    };
    route().catch((err: unknown) => {
      stderr.write(`troupe mcp: request failed: ${err instanceof Error ? err.message : String(err)}\n`);
      if (!res.headersSent) answer(res, 500, jsonRpcError(-32603, 'Internal server error'));
      else res.end();
    });
  });

  const listened = await new Promise<Error | undefined>((resolve) => {
    http.once('error', resolve);
    http.listen(config.port, config.host, () => {
      http.off('error', resolve);
      resolve(undefined);
    });
  });
  if (listened) {
    const code = (listened as NodeJS.ErrnoException).code;
    stderr.write(`troupe mcp: cannot listen on ${config.host}:${config.port} (${code ?? listened.message}); choose another --host or --port\n`);
    return { ok: false };
  }
  const { port } = http.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const path = config.transport === 'http' ? '/mcp' : '/sse';
  return {
    ok: true,
    url: `http://${host}:${port}${path}`,
    description: config.transport === 'http' ? 'MCP (streamable HTTP, stateless)' : 'MCP (legacy SSE; messages to /messages?sessionId=)',
    async close() {
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      await Promise.all([...sessions.values()].map((transport) => transport.close().catch(() => undefined)));
      http.closeAllConnections();
      await stopped;
    },
  };
}

const isLoopbackName = (hostname: string): boolean => {
  const bare = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
};

/**
 * DNS rebinding protection (MCP's transport security): a server bound to loopback acts with the
 * configured key for whoever reaches it, so a web page must not reach it through a host name of its
 * own. On a loopback address, the Host must name loopback (or `--host`), and a browser's Origin must be
 * a loopback page. Bound elsewhere (0.0.0.0: deliberately exposed) the operator decides who reaches it.
 */
function rebindingRefusal(listenHost: string, req: IncomingMessage): string | undefined {
  if (!isLoopbackName(listenHost)) return undefined;
  const hostname = URL.canParse(`http://${req.headers.host ?? ''}`) ? new URL(`http://${req.headers.host}`).hostname : '';
  if (!isLoopbackName(hostname) && hostname.replace(/^\[|\]$/g, '') !== listenHost.replace(/^\[|\]$/g, '')) {
    return `Forbidden: Host ${JSON.stringify(req.headers.host ?? '')} is not this loopback server (DNS rebinding protection)`;
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !(URL.canParse(origin) && isLoopbackName(new URL(origin).hostname))) {
    return `Forbidden: Origin ${JSON.stringify(origin)} is not a loopback page (DNS rebinding protection)`;
  }
  return undefined;
}

/** A key the client sent (`X-API-Key`, or `Authorization: Bearer`), used instead of the configured one. */
function callerKey(req: IncomingMessage): string | undefined {
  const header = req.headers['x-api-key'];
  const key = (Array.isArray(header) ? header[0] : header)?.trim();
  if (key) return key;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  return bearer || undefined;
}

function jsonRpcError(code: number, message: string) {
  return { jsonrpc: '2.0' as const, error: { code, message }, id: null };
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

type JsonBody = { ok: true; value: unknown } | { ok: false; status: number; code: number; message: string };

async function readJson(req: IncomingMessage): Promise<JsonBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return { ok: false, status: 413, code: -32600, message: `the message is larger than ${MAX_BODY_BYTES} bytes` };
    chunks.push(chunk);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return { ok: false, status: 400, code: -32700, message: 'Parse error: the body is not JSON' };
  }
}

interface ShutdownRequest {
  /** Resolves with the reason: the first SIGINT/SIGTERM, or what `request` was given. */
  requested: Promise<string>;
  request(reason: string): void;
  dispose(): void;
}

/** The first SIGINT/SIGTERM starts a clean shutdown; a second one exits at once. */
function shutdownRequested(): ShutdownRequest {
  let resolve!: (reason: string) => void;
  let received = false;
  const requested = new Promise<string>((r) => (resolve = r));
  const request = (reason: string) => {
    received = true;
    resolve(reason);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) process.exit(130);
    request(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    requested,
    request,
    dispose() {
      // Still listening, so a second signal during shutdown exits rather than killing without a word.
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(130));
    },
  };
}
