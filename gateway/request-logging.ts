import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../logging/logger.js';
import type { GatewayState } from './state.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives each request an id (kept from X-Request-Id when sane) and a child logger carrying it and, once
 * authenticated, the user id. The child is made on first use: most requests log nothing, and making
 * one per request is a measurable share of the gateway's CPU.
 */
export function requestLogging(logger: Logger): Middleware<GatewayState> {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    let child: Logger | undefined;
    let childUserId: string | undefined;
    Object.defineProperty(ctx.state, 'logger', {
      configurable: true,
      enumerable: true,
      get: () => {
        const userId = ctx.state.user?.id;
        if (!child || childUserId !== userId) {
          child = logger.child(userId === undefined ? { requestId } : { requestId, userId });
          childUserId = userId;
        }
        return child;
      },
    });
    ctx.set('x-request-id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      if (logger.isLevelEnabled('debug')) {
        ctx.state.logger.debug({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) }, 'request');
      }
    }
  };
}
