/**
 * The MCP server of `troupe mcp`: troupe's tools and resource templates for local MCP clients, every
 * call relayed to a troupe gateway's `/mcp`.
 *
 * What it lists is what the gateway lists: the server is built by the gateway's own `buildMcpServer`
 * from the actor kinds' contracts in this package (same name, instructions, capabilities, tool and
 * resource-template definitions), so `initialize`, `tools/list`, `resources/templates/list`,
 * `resources/list` and `prompts/list` answer with no gateway reachable (registries start a server with
 * no configuration to list it).
 *
 * What it forwards: `tools/call` and `resources/read` replace the SDK's local dispatch (no actor runs
 * here) and go to `${apiUrl}/mcp` through the SDK client over streamable HTTP, with `X-API-Key` when
 * there is a key. Arguments travel as the client sent them and the answer comes back as the gateway gave
 * it (content, structuredContent, isError, _meta; a JSON-RPC error keeps its code, message and data):
 * the gateway validates both sides, so the relay neither validates again nor could disagree with a
 * gateway of another version. A call with a `progressToken` asks the gateway for progress and passes each
 * notification on under the client's token, all before the result. A gateway that cannot be reached,
 * refuses the key or is not a troupe gateway gives a tool error (`isError`, for a resource read a JSON-RPC
 * error) naming the URL and what to set; nothing here crashes on it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  McpError,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  type CallToolRequest,
  type CallToolResult,
  type Progress,
  type ReadResourceRequest,
  type ReadResourceResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import packageJson from '../../package.json' with { type: 'json' };
import type { ActorFailure } from '../actor-call.js';
import { buildMcpServer, fixedCaller, type McpCatalogue, type McpServerDeps } from './server.js';
import { failureResult } from './tools.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Longest a relayed call may take (without progress, since the last progress notification): past the
 * gateway's own bounds (a reply stream quiet for 2 minutes, `wait_for_reply`'s wait), so the gateway
 * decides when a call has failed. A client that gives up earlier cancels the relayed call with it.
 */
export const RELAY_CALL_TIMEOUT_MS = 60 * 60_000;
/**
 * Pause between the last progress notification and the result it precedes. The SDK's own clients (v1)
 * handle a notification a microtask after a response that arrives in the same read, so progress written
 * right before its result would be dropped and reported as carrying an unknown token (some clients then
 * drop the connection; modelcontextprotocol/typescript-sdk#2580). The pause makes them separate reads
 * of the pipe or stream, and costs nothing when the last progress is older than this.
 */
const PROGRESS_SETTLE_MS = 15;
/** Longest the MCP handshake with the gateway may take. */
const CONNECT_TIMEOUT_MS = 30_000;
/** Gateway clients kept, one per API key in use (network clients may each send their own key). */
const MAX_GATEWAY_CLIENTS = 32;
/** Of an HTTP error body quoted in a tool error. */
const MAX_QUOTED_CHARS = 300;

export interface GatewayRelayOptions {
  /** The gateway's base URL without a trailing slash, e.g. `http://127.0.0.1:8080`; calls go to `${apiUrl}/mcp`. */
  apiUrl: string;
  /** Sent as `X-API-Key`; without one no authentication header is sent. */
  apiKey?: string;
  callTimeoutMs?: number;
}

/** A JSON-RPC error passed on as the gateway sent it (the SDK's McpError would prefix the message). */
class RelayedError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The relaying half: one SDK client per API key to the gateway's `/mcp`, connected on first use. */
export class GatewayRelay {
  /** Where calls go: `${apiUrl}/mcp`. */
  readonly endpoint: string;
  private readonly clients = new Map<string, Promise<Client>>();
  private closed = false;

  constructor(private readonly options: GatewayRelayOptions) {
    this.endpoint = `${options.apiUrl}/mcp`;
  }

  /** The key a call goes with: the caller's own (HTTP clients of `troupe mcp` may send one), else the configured one. */
  keyFor(callerKey: string | undefined): string | undefined {
    return callerKey ?? this.options.apiKey;
  }

  async callTool(params: CallToolRequest['params'], extra: Extra, callerKey?: string): Promise<CallToolResult> {
    const key = this.keyFor(callerKey);
    const token = params._meta?.progressToken;
    let sending = Promise.resolve();
    let lastSentAt = 0;
    // The SDK client asks the gateway for progress under its own token; each notification goes on under
    // the client's token, in order, and is flushed (and given time to be read) before the result.
    const onprogress =
      token === undefined
        ? undefined
        : (progress: Progress) => {
            const notification: ServerNotification = { method: 'notifications/progress', params: { ...progress, progressToken: token } };
            sending = sending.then(async () => {
              await extra.sendNotification(notification).catch(() => undefined);
              lastSentAt = Date.now();
            });
          };
    const settled = async () => {
      await sending;
      const wait = lastSentAt + PROGRESS_SETTLE_MS - Date.now();
      if (lastSentAt > 0 && wait > 0) await delay(wait);
    };
    let client: Client | undefined;
    try {
      client = await this.client(key);
      const result = await client.request({ method: 'tools/call', params: withoutProgressToken(params) }, CallToolResultSchema, {
        signal: extra.signal,
        timeout: this.options.callTimeoutMs ?? RELAY_CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: onprogress !== undefined,
        onprogress,
      });
      await settled();
      return result;
    } catch (error) {
      await settled();
      if (extra.signal.aborted) throw error;
      const relayed = gatewayJsonRpcError(error);
      if (relayed) throw relayed;
      this.forget(key, client);
      return failureResult(this.describe(error, key));
    }
  }

  async readResource(params: ReadResourceRequest['params'], extra: Extra, callerKey?: string): Promise<ReadResourceResult> {
    const key = this.keyFor(callerKey);
    let client: Client | undefined;
    try {
      client = await this.client(key);
      return await client.request({ method: 'resources/read', params }, ReadResourceResultSchema, {
        signal: extra.signal,
        timeout: this.options.callTimeoutMs ?? RELAY_CALL_TIMEOUT_MS,
      });
    } catch (error) {
      if (extra.signal.aborted) throw error;
      const relayed = gatewayJsonRpcError(error);
      if (relayed) throw relayed;
      this.forget(key, client);
      const failure = this.describe(error, key);
      throw new RelayedError(ErrorCode.InternalError, `${failure.message} (${failure.code})`, { code: failure.code, details: failure.details });
    }
  }

  /** Connects to the gateway with the configured key: undefined when it answers, else what went wrong (for a start-up warning). */
  async check(): Promise<ActorFailure | undefined> {
    try {
      await this.client(this.options.apiKey);
      return undefined;
    } catch (error) {
      return this.describe(error, this.options.apiKey);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const pending = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(pending.map((client) => client.then((c) => c.close()).catch(() => undefined)));
  }

  private client(key: string | undefined): Promise<Client> {
    if (this.closed) return Promise.reject(new Error('troupe mcp is shutting down'));
    const slot = key ?? '';
    const known = this.clients.get(slot);
    if (known) return known;
    const pending = this.connect(key);
    this.clients.set(slot, pending);
    // A failed handshake is not remembered: the next call tries again (the gateway may be up by then).
    pending.catch(() => {
      if (this.clients.get(slot) === pending) this.clients.delete(slot);
    });
    if (this.clients.size > MAX_GATEWAY_CLIENTS) {
      const [oldest, client] = this.clients.entries().next().value!;
      this.clients.delete(oldest);
      void client.then((c) => c.close()).catch(() => undefined);
    }
    return pending;
  }

  private async connect(key: string | undefined): Promise<Client> {
    const client = new Client({ name: 'troupe-mcp', version: packageJson.version });
    const transport = new StreamableHTTPClientTransport(new URL(this.endpoint), { requestInit: { headers: key ? { 'X-API-Key': key } : {} } });
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    return client;
  }

  /** After a failure of the connection itself, the next call connects afresh. */
  private forget(key: string | undefined, client: Client | undefined) {
    const slot = key ?? '';
    const pending = this.clients.get(slot);
    if (!pending || !client) return;
    void pending.then((known) => {
      if (known !== client || this.clients.get(slot) !== pending) return;
      this.clients.delete(slot);
      void client.close().catch(() => undefined);
    }, () => undefined);
  }

  /** A failure to reach the gateway, as a tool error a person (or a model) can act on. Never shows the key. */
  private describe(error: unknown, key: string | undefined): ActorFailure {
    const url = this.endpoint;
    const setUrl = 'set TROUPE_API_URL (or --api-url) to the base URL of a running troupe gateway, e.g. http://127.0.0.1:8080';
    if (error instanceof StreamableHTTPError) {
      const status = error.code ?? 0;
      const details = { url, status };
      if (status === 401) {
        return key
          ? { code: 'unauthorized', message: `the troupe gateway at ${url} refused the API key (HTTP 401): set TROUPE_API_KEY to a valid key (npx troupe users key NAME issues one)`, details }
          : { code: 'unauthorized', message: `the troupe gateway at ${url} needs an API key (HTTP 401): set TROUPE_API_KEY (npx troupe users create NAME prints one)`, details };
      }
      if (status === 404 || status === 405) {
        return { code: 'gateway_not_found', message: `${url} answered HTTP ${status}: no troupe MCP endpoint there; ${setUrl}`, details };
      }
      const body = error.message.replace(/^Streamable HTTP error: (Error POSTing to endpoint: )?/, '');
      const quoted = body.length > MAX_QUOTED_CHARS ? `${body.slice(0, MAX_QUOTED_CHARS - 1)}…` : body;
      return { code: 'gateway_error', message: `the troupe gateway at ${url} answered ${status > 0 ? `HTTP ${status}` : 'unexpectedly'}: ${quoted}`, details };
    }
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return { code: 'gateway_timeout', message: `the troupe gateway at ${url} did not answer in time: ${error.message}`, details: { url } };
    }
    const reason = networkReason(error);
    if (reason !== undefined) {
      return { code: 'gateway_unreachable', message: `cannot reach the troupe gateway at ${url} (${reason}): start troupe there (npx troupe start) or ${setUrl}`, details: { url } };
    }
    return { code: 'relay_failed', message: `relaying to the troupe gateway at ${url} failed: ${error instanceof Error ? error.message : String(error)}`, details: { url } };
  }
}

/** A network failure's short reason (`ECONNREFUSED`, `ENOTFOUND`, `connection closed`), or undefined for other errors. */
function networkReason(error: unknown): string | undefined {
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) return 'connection closed';
  if (!(error instanceof TypeError)) return undefined;
  // undici: TypeError('fetch failed') with the socket's error (or an AggregateError of them) as the cause.
  const cause = (error as { cause?: unknown }).cause;
  const first = cause instanceof AggregateError ? cause.errors[0] : cause;
  const code = (first as { code?: unknown } | undefined)?.code ?? (cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string') return code;
  return first instanceof Error ? first.message : error.message;
}

/** A JSON-RPC error the gateway answered with, ready to pass on unchanged; undefined for the relay's own failures. */
function gatewayJsonRpcError(error: unknown): RelayedError | undefined {
  if (!(error instanceof McpError)) return undefined;
  if (error.code === ErrorCode.RequestTimeout || error.code === ErrorCode.ConnectionClosed) return undefined;
  return new RelayedError(error.code, error.message.replace(/^MCP error -?\d+: /, ''), error.data);
}

function withoutProgressToken(params: CallToolRequest['params']): CallToolRequest['params'] {
  if (params._meta?.progressToken === undefined) return params;
  const { progressToken: _dropped, ...meta } = params._meta;
  const { _meta: _old, ...rest } = params;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

/**
 * Nothing of the gateway's own call path runs in the relay: its dispatch replaces the handlers these
 * dependencies would serve. Touching one is a bug, reported as such.
 */
const NO_LOCAL_ACTORS = new Proxy({} as McpServerDeps, {
  get(_target, property) {
    throw new Error(`troupe mcp runs no actors: the relay forwards every call, yet something asked for ${String(property)}`);
  },
});

/** The local server for one client connection (stdio, an SSE session, one stateless HTTP request). */
export function buildRelayServer(catalogue: McpCatalogue, relay: GatewayRelay, callerKey?: string): McpServer {
  // The caller is never used (see NO_LOCAL_ACTORS); the gateway resolves the real one from the key.
  const server = buildMcpServer(catalogue, NO_LOCAL_ACTORS, fixedCaller({ id: 'troupe-mcp-relay' }));
  // Replaces the SDK's dispatch of the registered tools and resources (documented: the last handler set wins).
  server.server.setRequestHandler(CallToolRequestSchema, (request, extra) => relay.callTool(request.params, extra, callerKey));
  server.server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => relay.readResource(request.params, extra, callerKey));
  return server;
}
