/**
 * API-key authentication: `Authorization: Bearer KEY` or `X-API-Key: KEY` (the header MCP clients such
 * as `troupe mcp` send). The middleware guards every route mounted after it; `authenticateRequest` is
 * the same check for code that sees raw Node headers (the MCP transports).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Middleware } from 'koa';
import { ApiError } from './error-response.js';
import type { GatewayState } from './state.js';
import type { AuthenticatedUser } from './users.js';

/** The part of the user directory authentication needs (tests pass fakes). */
export interface ApiKeyVerifier {
  authenticate(key: string): Promise<AuthenticatedUser | undefined>;
}

const BEARER = /^Bearer[ \t]+([^\s,]+)[ \t]*$/i;
const REALM = 'Bearer realm="troupe"';

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The API key a request carries: the Bearer token if there is an Authorization header, else X-API-Key. */
export function apiKeyFromHeaders(headers: IncomingHttpHeaders): string | undefined {
  const authorization = firstValue(headers.authorization);
  if (authorization !== undefined && authorization.trim() !== '') {
    const bearer = BEARER.exec(authorization.trim());
    if (bearer) return bearer[1];
  }
  const apiKey = firstValue(headers['x-api-key'])?.trim();
  return apiKey ? apiKey : undefined;
}

/** The user behind a request's API key, or undefined (missing, malformed, unknown or revoked key). */
export async function authenticateRequest(users: ApiKeyVerifier, headers: IncomingHttpHeaders): Promise<AuthenticatedUser | undefined> {
  const key = apiKeyFromHeaders(headers);
  return key === undefined ? undefined : users.authenticate(key);
}

/** 401 with the RFC 6750 challenge; `invalid_token` when a key was sent but not accepted. */
export function unauthorizedError(keyWasSent: boolean): ApiError {
  return keyWasSent
    ? new ApiError(401, 'unauthorized', 'the API key is invalid or revoked', {}, { 'WWW-Authenticate': `${REALM}, error="invalid_token"` })
    : new ApiError(
        401,
        'unauthorized',
        'an API key is required: send Authorization: Bearer KEY or X-API-Key: KEY',
        {},
        { 'WWW-Authenticate': REALM },
      );
}

/** Sets `ctx.state.user` (the request's logger then carries the user id), or answers 401. */
export function requireApiKey(users: ApiKeyVerifier): Middleware<GatewayState> {
  return async (ctx, next) => {
    const key = apiKeyFromHeaders(ctx.req.headers);
    const user = key === undefined ? undefined : await users.authenticate(key);
    if (!user) throw unauthorizedError(key !== undefined);
    ctx.state.user = user;
    await next();
  };
}
