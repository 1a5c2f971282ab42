/**
 * Stateless streamable HTTP at /mcp: every POST gets a new transport (a stateless transport cannot be
 * reused) connected to a pooled server, so any gateway process can answer any request and no session
 * affinity is needed. GET (a standalone notification stream) and DELETE (ending a session) mean nothing
 * without sessions; they answer 405 with a JSON-RPC error body, as the SDK's stateless example does.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '../../actors/runtime/contract.js';
import type { McpUser } from '../actor-call.js';
import { withCaller } from './server.js';
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
  const server = options.servers.take();
  // A plain JSON answer (one write, no event-stream framing) unless a request asked for progress: only
  // progress notifications need the stream, this server sends nothing else before a result.
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !asksForProgress(body) });
  // Closing aborts tool calls still waiting on a reply stream, so their readers stop; the server then
  // waits for the next request.
  ctx.res.once('close', () => {
    void options.servers.giveBack(server).catch((err: unknown) => options.logger.warn({ err }, 'an MCP server could not be closed after its request'));
  });
  await server.connect(transport);
  // The SDK passes `req.auth` to the handlers as `extra.authInfo`.
  (ctx.req as IncomingMessage & { auth?: AuthInfo }).auth = withCaller(user);
  ctx.respond = false;
  try {
    await transport.handleRequest(ctx.req, ctx.res, body);
  } catch (err) {
    options.logger.error({ err }, 'MCP request failed');
    if (!ctx.res.headersSent) {
      ctx.res.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify(jsonRpcError(-32603, 'Internal server error')));
    }
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
