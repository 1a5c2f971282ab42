import { STATUS_CODES } from 'node:http';
import type { Middleware } from 'koa';
import { BROKER_RESET_CODE } from './broker-reset-code.js';
import { dependencyOutageOf, OUTAGE_CODES } from './dependency-outage.js';
import type { GatewayState } from './state.js';

/** The JSON body of every error the gateway returns. */
export interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> };
}

/**
 * An error meant for the client: its status, code, message and details are sent as they are, with
 * `headers` (e.g. `Retry-After`, `WWW-Authenticate`) on the response, wherever the error was thrown.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

/** `Method Not Allowed` -> `method_not_allowed`. */
export function statusCode(status: number): string {
  return (STATUS_CODES[status] ?? 'error').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
}

interface KoaStyleError {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  message?: unknown;
  headers?: unknown;
}

/**
 * Maps anything thrown downstream to a status and an ErrorBody; server faults never leak their message.
 * Redis or MongoDB being unreachable is no fault of the server's code: 503 with Retry-After.
 */
export function toErrorResponse(thrown: unknown): { status: number; body: ErrorBody; headers: Record<string, string> } {
  if (thrown instanceof ApiError) {
    return { status: thrown.status, body: errorBody(thrown.code, thrown.message, thrown.details), headers: { ...thrown.headers } };
  }
  const outage = dependencyOutageOf(thrown);
  if (outage) {
    return { status: outage.status, body: errorBody(outage.code, outage.message, outage.details), headers: { 'Retry-After': String(outage.retryAfterSeconds) } };
  }
  const candidate = (typeof thrown === 'object' && thrown !== null ? thrown : {}) as KoaStyleError;
  const rawStatus = candidate.status ?? candidate.statusCode;
  const status = typeof rawStatus === 'number' && rawStatus >= 400 && rawStatus <= 599 ? rawStatus : 500;
  // http-errors (ctx.throw, router.allowedMethods) marks client errors as safe to show.
  const exposable = status < 500 && candidate.expose === true && typeof candidate.message === 'string';
  const message = exposable ? (candidate.message as string) : (STATUS_CODES[status] ?? 'Error');
  const headers: Record<string, string> = {};
  if (typeof candidate.headers === 'object' && candidate.headers !== null) {
    for (const [name, value] of Object.entries(candidate.headers)) {
      if (typeof value === 'string') headers[name] = value;
    }
  }
  return { status, body: errorBody(statusCode(status), message, {}), headers };
}

/** Outermost middleware: renders every error as an ErrorBody and logs server faults. */
export function errorResponse(): Middleware<GatewayState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const { status, body, headers } = toErrorResponse(thrown);
      if (OUTAGE_CODES.has(body.error.code)) ctx.state.logger.warn({ err: thrown, code: body.error.code }, 'request refused: a dependency is unavailable');
      // broker_reset is no fault of this request, and the gateway has logged the Redis data loss once.
      else if (status >= 500 && body.error.code !== BROKER_RESET_CODE) ctx.state.logger.error({ err: thrown }, 'request failed');
      ctx.set(headers);
      ctx.status = status;
      ctx.body = body;
    }
  };
}

/**
 * Gives a bare error status set downstream an ErrorBody: "no route matched" (404) and the router's
 * 405/501 (which also sets the Allow header, so it is not thrown).
 */
export function bareErrorStatusResponse(): Middleware<GatewayState> {
  return async (ctx, next) => {
    await next();
    if (ctx.status < 400 || (ctx.body !== undefined && ctx.body !== null && ctx.body !== '')) return;
    const status = ctx.status;
    if (status === 404) {
      ctx.body = errorBody('not_found', `no route for ${ctx.method} ${ctx.path}`, { method: ctx.method, path: ctx.path });
    } else {
      ctx.body = errorBody(statusCode(status), STATUS_CODES[status] ?? 'Error', { method: ctx.method, path: ctx.path });
    }
    // Assigning a body resets an unset status to 200; keep the one downstream chose.
    ctx.status = status;
  };
}

function errorBody(code: string, message: string, details: Record<string, unknown>): ErrorBody {
  return { error: { code, message, details } };
}
