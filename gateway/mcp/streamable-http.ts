/**
 * Stateless streamable HTTP at /mcp: every POST gets a new transport (a stateless transport cannot be
 * reused) connected to a pooled server, so any gateway process can answer any request and no session
 * affinity is needed. A POST is answered with one JSON body (json-response-transport.ts) unless a
 * request in it asked for progress, which the SDK's transport streams. GET (a standalone notification
 * stream) and DELETE (ending a session) mean nothing without sessions; they answer 405 with a JSON-RPC
 * error body, as the SDK's stateless example does.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '../../actors/runtime/contract.js';
import type { McpUser } from '../actor-call.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { withCaller } from './server.js';
import { JsonResponseTransport, mcpMessagesOf, RefusedMcpRequest, writeJsonResponses, writeRefusal } from './json-response-transport.js';
import type { McpServerPool } from './server-pool.js';

export interface StreamableHttpOptions {
  /** Servers whose handlers take the caller from the request's auth info (`callerFromAuthInfo`). */
  servers: McpServerPool;
  logger: Logger;
}

/** A JSON-RPC error response with no request id (the request could not be read or is not allowed). */
export function jsonRpcError(code: number, message: string) {
  return { jsonrpc: '2.0' as const, error: { code, message }, id: null };
}

export async function handleStatelessPost(ctx: Context, user: McpUser, body: unknown, options: StreamableHttpOptions): Promise<void> {
  // Only progress notifications need an event stream: this server sends nothing else before a result.
  if (asksForProgress(body)) return streamedPost(ctx, user, body, options);
  let messages;
  try {
    messages = mcpMessagesOf(ctx.req, body);
  } catch (refusal) {
    if (!(refusal instanceof RefusedMcpRequest)) throw refusal;
    ctx.respond = false;
    writeRefusal(ctx.res, refusal);
    return;
  }
  const server = options.servers.take();
  const transport = new JsonResponseTransport();
  giveBackOnClose(ctx, server, options);
  await server.connect(transport);
  ctx.respond = false;
  try {
    const responses = await transport.deliver(messages, { authInfo: withCaller(user), requestInfo: { headers: ctx.req.headers, url: new URL(ctx.href) } });
    if (!ctx.res.destroyed) writeJsonResponses(ctx.res, responses);
  } catch (err) {
    internalError(ctx, err, options.logger);
  }
}

/** A request that asked for progress: the SDK's transport answers it with an event stream. */
async function streamedPost(ctx: Context, user: McpUser, body: unknown, options: StreamableHttpOptions): Promise<void> {
  const server = options.servers.take();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  giveBackOnClose(ctx, server, options);
  await server.connect(transport);
  // The SDK passes `req.auth` to the handlers as `extra.authInfo`.
  (ctx.req as IncomingMessage & { auth?: AuthInfo }).auth = withCaller(user);
  ctx.respond = false;
  try {
    await transport.handleRequest(ctx.req, ctx.res, body);
  } catch (err) {
    internalError(ctx, err, options.logger);
  }
}

/** Closing aborts tool calls still waiting on a reply stream, so their readers stop; the server then waits for the next request. */
function giveBackOnClose(ctx: Context, server: McpServer, options: StreamableHttpOptions) {
  ctx.res.once('close', () => {
    void options.servers.giveBack(server).catch((err: unknown) => options.logger.warn({ err }, 'an MCP server could not be closed after its request'));
  });
}

function internalError(ctx: Context, err: unknown, logger: Logger) {
  logger.error({ err }, 'MCP request failed');
  if (!ctx.res.headersSent) {
    ctx.res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify(jsonRpcError(-32603, 'Internal server error')));
  }
}

/** True when some JSON-RPC message of the body carries a progress token (`params._meta.progressToken`). */
export function asksForProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken !== undefined);
}

export function methodNotAllowed(ctx: Context): void {
  ctx.status = 405;
  ctx.set('Allow', 'POST');
  ctx.body = jsonRpcError(-32000, 'Method not allowed: this MCP endpoint is stateless; POST JSON-RPC messages to it.');
}
