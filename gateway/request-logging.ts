import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../logging/logger.js';
import type { EventStreamObserver } from './sse.js';
import type { GatewayState } from './state.js';
import type { AuthenticatedUser } from './users.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * A request's `ctx.state`. Its logger (a child carrying the request id and, once authenticated, the
 * user id) is made on first use: most requests log nothing, and making one per request is a measurable
 * share of the gateway's CPU. The getter is the class's, not defined on each request's object: an
 * accessor defined per object gives it a map of its own in the old generation, which keeps everything
 * the getter's closure reaches (the whole request) alive through young-generation GCs.
 */
export class RequestState implements GatewayState {
  user?: AuthenticatedUser;
  eventStreams?: EventStreamObserver;
  private child?: Logger;
  private childUserId?: string;

  constructor(
    private readonly base: Logger,
    readonly requestId: string,
  ) {}

  get logger(): Logger {
    const userId = this.user?.id;
    if (!this.child || this.childUserId !== userId) {
      this.child = this.base.child(userId === undefined ? { requestId: this.requestId } : { requestId: this.requestId, userId });
      this.childUserId = userId;
    }
    return this.child;
  }
}

/** Gives each request an id (kept from X-Request-Id when sane) and its state with a logger that carries it. */
export function requestLogging(logger: Logger): Middleware<GatewayState> {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state = new RequestState(logger, requestId);
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
