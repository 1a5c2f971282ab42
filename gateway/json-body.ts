/**
 * JSON request bodies: parsed by @koa/bodyparser (co-body) up to a size limit, into
 * `ctx.request.body`. Refusals are ErrorBody answers: 413 beyond the limit, 400 for malformed JSON
 * (or JSON that is not an object/array), 415 for a body that is not JSON at all. Requests without a
 * body pass with `{}`. Paths in `rawBodyPaths` are left alone so an upload route can read the stream.
 */
import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import { ApiError } from './error-response.js';
import type { GatewayState } from './state.js';

export interface JsonBodyOptions {
  limitBytes: number;
  /** Path prefixes whose routes read the raw request themselves (e.g. uploads). */
  rawBodyPaths?: readonly string[];
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

interface BodyError {
  status?: unknown;
  message?: unknown;
}

function bodyError(thrown: unknown, limitBytes: number): ApiError {
  const { status, message } = (typeof thrown === 'object' && thrown !== null ? thrown : {}) as BodyError;
  if (status === 413) {
    return new ApiError(413, 'payload_too_large', `the request body is larger than the limit of ${limitBytes} bytes`, { limitBytes });
  }
  if (status === 415) {
    // e.g. an unsupported Content-Encoding
    return new ApiError(415, 'unsupported_media_type', typeof message === 'string' ? message : 'unsupported request body encoding');
  }
  const reason = typeof message === 'string' ? message.slice(0, 200) : 'unreadable body';
  return new ApiError(400, 'bad_request', 'the request body is not valid JSON (an object or array)', { reason });
}

function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
}

export function jsonBody({ limitBytes, rawBodyPaths = [] }: JsonBodyOptions): Middleware<GatewayState> {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: limitBytes,
    jsonStrict: true,
    // The type was checked below (JSON, any +json type, or no body at all).
    detectJSON: () => true,
    onError: (error) => {
      throw bodyError(error, limitBytes);
    },
  }) as unknown as Middleware<GatewayState>;

  return async (ctx, next) => {
    if (!BODY_METHODS.has(ctx.method) || rawBodyPaths.some((prefix) => isUnder(ctx.path, prefix))) return next();
    // type-is counts `Content-Length: 0` (what clients send for a body-less POST) as a body.
    const hasBody = ctx.get('transfer-encoding') !== '' || (ctx.request.length ?? 0) > 0;
    if (hasBody && ctx.request.is('json', '+json') === false) {
      throw new ApiError(415, 'unsupported_media_type', 'request bodies must be JSON (Content-Type: application/json)', {
        contentType: ctx.get('content-type') || null,
      });
    }
    return parse(ctx, next);
  };
}
