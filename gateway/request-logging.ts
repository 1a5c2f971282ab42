import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../scripts/logger.js';
import type { GatewayState } from './state.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Gives each request an id (kept from X-Request-Id when sane) and a child logger carrying it. */
export function requestLogging(logger: Logger): Middleware<GatewayState> {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.logger = logger.child({ requestId });
    ctx.set('x-request-id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      ctx.state.logger.debug(
        { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) },
        'request',
      );
    }
  };
}
