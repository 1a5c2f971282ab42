/**
 * The document's shared components: named schemas (registered as operations use them), the error
 * responses every route shares, and the security schemes.
 */
import type { z } from 'zod';
import { isZodSchema, responseSchema, type JsonSchema } from './json-schema.js';
import type { Reference, Response, SecurityRequirement } from './openapi-types.js';
import { ErrorBody } from './platform-schemas.js';

/** Named response schemas, converted once and referenced from every operation that answers with them. */
export class SchemaComponents {
  private readonly schemas = new Map<string, JsonSchema>();

  constructor() {
    this.named('Error', ErrorBody);
  }

  named(name: string, schema: z.ZodType | JsonSchema): Reference {
    if (!this.schemas.has(name)) this.schemas.set(name, isZodSchema(schema) ? responseSchema(schema) : schema);
    return { $ref: `#/components/schemas/${name}` };
  }

  all(): Record<string, JsonSchema> {
    return Object.fromEntries(this.schemas);
  }
}

const ERROR_RESPONSES = {
  400: ['BadRequest', 'Invalid request: the message names the field (`details.issues` has zod\'s issues).'],
  401: ['Unauthorized', 'No valid API key (`WWW-Authenticate: Bearer`).'],
  403: ['Forbidden', 'Not allowed for you (e.g. another player\'s seat).'],
  404: ['NotFound', 'Unknown, deleted, or another user\'s.'],
  409: ['Conflict', 'The actor\'s state does not allow it now (e.g. not your turn, nothing to cancel, a taken name).'],
  413: ['PayloadTooLarge', 'The body is larger than BODY_LIMIT (or an upload\'s limit).'],
  415: ['UnsupportedMediaType', 'Bodies are JSON (`Content-Type: application/json`).'],
  422: ['TurnFailed', 'The actor could not carry the message out (`turn_failed`, `request_failed`).'],
  429: ['RateLimited', 'A per-user limit: `rate_limited` or `too_many_concurrent`; `Retry-After` says when to retry.'],
  503: ['Unavailable', 'A dependency is not reachable or a data set is not ready: `broker_unavailable` (Redis), `store_unavailable` (MongoDB), `unavailable`; retry after `Retry-After` seconds, with the same Idempotency-Key.'],
  504: ['Timeout', 'No reply in time (`reply_timeout`, `turn_timeout`); a message keeps running: follow `details.replies`.'],
} as const satisfies Record<number, readonly [string, string]>;

export type ErrorStatus = keyof typeof ERROR_RESPONSES;

/** `components.responses`: one entry per error status, all with the common error body. */
export function errorResponseComponents(): Record<string, Response> {
  return Object.fromEntries(
    Object.values(ERROR_RESPONSES).map(([name, description]) => [
      name,
      {
        description,
        ...(name === 'RateLimited' ? { headers: { 'Retry-After': { description: 'Seconds until a retry may succeed', schema: { type: 'integer' } } } } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );
}

/** References to the shared error responses for these statuses. */
export function errorResponses(...statuses: ErrorStatus[]): Record<string, Reference> {
  return Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/${ERROR_RESPONSES[status][0]}` }]));
}

/** Errors of any authenticated route, and of one that reads a JSON body. */
export const AUTHENTICATED: ErrorStatus[] = [401];
export const JSON_BODY: ErrorStatus[] = [400, 413, 415];
/** Errors of a route that becomes a message: validation, the actor's refusals, the user's limits, timeouts. */
export const ACTOR_CALL: ErrorStatus[] = [400, 401, 403, 404, 409, 422, 429, 503, 504];

export const API_KEY_SECURITY: SecurityRequirement[] = [{ bearerApiKey: [] }, { headerApiKey: [] }];

export const securitySchemes = {
  bearerApiKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key (`trp_…`) as `Authorization: Bearer KEY`: from `npx troupe users create NAME`, `npx troupe users key NAME`, POST /auth/login or POST /me/keys.',
  },
  headerApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The same API key in `X-API-Key`.' },
  metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when it is set (GET /metrics is open otherwise).' },
};
