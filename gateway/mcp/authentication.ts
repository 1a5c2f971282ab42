/** The MCP endpoints authenticate exactly like the HTTP API: an API key in the request headers. */
import type { IncomingHttpHeaders } from 'node:http';
import type { ParameterizedContext } from 'koa';
import { apiKeyFromHeaders, unauthorizedError } from '../auth.js';
import type { GatewayState } from '../state.js';
import type { McpUser } from '../actor-call.js';

/** `(headers) => authenticateRequest(users, headers)` from gateway/auth.ts (tests may pass fakes). */
export type Authenticate = (headers: IncomingHttpHeaders) => Promise<McpUser | undefined> | McpUser | undefined;

/** The caller, or a 401 (with the RFC 6750 challenge). Reuses `ctx.state.user` when the auth middleware ran first. */
export async function requireUser(ctx: ParameterizedContext<GatewayState>, authenticate: Authenticate): Promise<McpUser> {
  const user = ctx.state.user ?? (await authenticate(ctx.req.headers));
  if (!user) throw unauthorizedError(apiKeyFromHeaders(ctx.req.headers) !== undefined);
  return user;
}
