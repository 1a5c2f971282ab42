/**
 * CORS for browser clients on other origins (CORS_ORIGINS). None by default: the web UI is served by
 * the gateway itself, and API keys travel in headers, never cookies, so credentials are never allowed.
 */
import cors from '@koa/cors';
import type { Middleware } from 'koa';
import type { GatewayState } from './state.js';

/** `*`, or the exact origins allowed; an empty list sends no CORS headers at all. */
export type CorsOrigins = '*' | readonly string[];

const ALLOW_HEADERS = [
  'Authorization',
  'X-API-Key',
  'Content-Type',
  'Accept',
  'Idempotency-Key',
  'Last-Event-ID',
  'X-Request-Id',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
];
const EXPOSE_HEADERS = ['X-Request-Id', 'X-Message-Id', 'Retry-After', 'WWW-Authenticate', 'Mcp-Session-Id'];

export function corsPolicy(origins: CorsOrigins): Middleware<GatewayState> {
  if (origins !== '*' && origins.length === 0) return (_ctx, next) => next();
  const allowed = origins === '*' ? undefined : new Set(origins);
  return cors({
    // A function returning '' leaves a request from an origin not on the list without CORS headers.
    origin: allowed === undefined ? '*' : (ctx) => (allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: ALLOW_HEADERS,
    exposeHeaders: EXPOSE_HEADERS,
    maxAge: 600,
    credentials: false,
  }) as unknown as Middleware<GatewayState>;
}
