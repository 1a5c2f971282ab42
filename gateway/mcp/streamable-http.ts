/**
 * Stateless streamable HTTP at /mcp: every POST gets a new McpServer and transport (a stateless transport
 * cannot be reused), so any gateway process can answer any request and no session affinity is needed.
 * GET (a standalone notification stream) and DELETE (ending a session) mean nothing without sessions;
 * they answer 405 with a JSON-RPC error body, as the SDK's stateless example does.
 */
import type { Context } from 'koa';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '../../actors/runtime/contract.js';
import type { McpUser } from '../actor-call.js';
import { buildMcpServer, type McpCatalogue, type McpServerDeps } from './server.js';

export interface StreamableHttpOptions {
  catalogue: McpCatalogue;
  serverDeps: McpServerDeps;
  logger: Logger;
}

/** A JSON-RPC error response with no request id (the request could not be read or is not allowed). */
export function jsonRpcError(code: number, message: string) {
  return { jsonrpc: '2.0' as const, error: { code, message }, id: null };
}

export async function handleStatelessPost(ctx: Context, user: McpUser, body: unknown, options: StreamableHttpOptions): Promise<void> {
  const server = buildMcpServer(options.catalogue, options.serverDeps, user);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  // Closing aborts tool calls still waiting on a reply stream, so their readers stop.
  ctx.res.once('close', () => {
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  });
  await server.connect(transport);
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

export function methodNotAllowed(ctx: Context): void {
  ctx.status = 405;
  ctx.set('Allow', 'POST');
  ctx.body = jsonRpcError(-32000, 'Method not allowed: this MCP endpoint is stateless; POST JSON-RPC messages to it.');
}
