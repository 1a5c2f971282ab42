/**
 * zod schemas of what the platform's own routes answer (health, account, login, the generic actor and
 * batch routes, webhooks). The handlers build these bodies inline, so the shapes are written here from
 * them; test/integration/openapi.test.ts checks real answers against them.
 */
import { z } from 'zod';

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().describe('Machine-readable: bad_request, unauthorized, not_found, conflict, rate_limited, too_many_concurrent, …'),
      message: z.string().describe('For people'),
      details: z.record(z.string(), z.unknown()).describe('e.g. `issues` of a validation error, `retryAfterSeconds`, `validMoves`'),
    }),
  })
  .describe('Every error the gateway answers has this shape.');

export const Health = z.object({ status: z.literal('ok') });

export const Readiness = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), z.enum(['ok', 'failed'])).describe('redis, mongo, workers (a live worker for every actor kind)'),
  errors: z.record(z.string(), z.string()).optional().describe('The reason of each failed check (503 only)'),
});

export const LoginAnswer = z.object({ apiKey: z.string().describe('A new API key, shown this once'), user: z.object({ id: z.string(), name: z.string() }) });

export const Me = z.object({ id: z.string(), name: z.string(), created_at: z.string().nullable(), roles: z.array(z.enum(['admin'])).describe('admin: may open the queue dashboard') });

export const KeyList = z.object({
  keys: z.array(
    z.object({
      prefix: z.string(),
      label: z.string(),
      created_at: z.string(),
      revoked_at: z.string().nullable(),
      expires_at: z.string().nullable(),
      current: z.boolean().describe('The key of this request'),
    }),
  ),
});

export const NewKey = z.object({ key: z.string().describe('The secret, shown this once'), prefix: z.string(), label: z.string(), note: z.string() });

export const RevokedKey = z.object({ prefix: z.string(), revoked: z.literal(true), already_revoked: z.boolean() });

export const Usage = z.object({
  kinds: z.array(
    z.object({
      kind: z.string(),
      rate: z
        .object({ points: z.number().int(), windowSeconds: z.number().int(), counts: z.string(), used: z.number().int(), remaining: z.number().int(), resetsInSeconds: z.number().int() })
        .nullable()
        .describe('null: no rate limit'),
      concurrent: z.object({ limit: z.number().int(), inUse: z.number().int() }).nullable().describe('null: no concurrency cap'),
    }),
  ),
});

const StreamEvent = z.object({ id: z.string(), event: z.string(), data: z.unknown() });

export const MessageAnswer = z.object({
  messageId: z.string(),
  reply: z.unknown().describe('The actor\'s reply (the `reply` event\'s data), or null'),
  events: z.array(StreamEvent).describe('The partial events before the reply, in order'),
});

export const ActorStateAnswer = z.object({ kind: z.string(), id: z.string(), state: z.unknown().describe('The committed state, or null for an actor that has none yet') });

const batchLinks = {
  batchId: z.string(),
  total: z.number().int(),
  progress: z.string().describe('GET this for the progress'),
  events: z.string().describe('GET this for the progress as SSE'),
};

export const BatchAccepted = z.object(batchLinks);

/** What a kind's batch route answers: the links, and what its contract adds about the items. */
export const ContractBatchAccepted = z.object({ ...batchLinks, results: z.string().describe('GET this for each finished message') });

export const BatchProgress = z.object({ batchId: z.string(), total: z.number().int(), done: z.number().int(), failed: z.number().int(), finished: z.boolean() });

export const BatchResults = z.object({
  batchId: z.string(),
  results: z.array(
    z.object({
      messageId: z.string(),
      actorId: z.string().nullable(),
      ok: z.boolean(),
      reply: z.unknown().optional().describe('When ok'),
      error: z.unknown().optional().describe('When not ok: {code, message, details}'),
      finishedAt: z.string().nullable(),
    }),
  ),
  next: z.string().nullable().describe('The `after` cursor of the next page; null on the last'),
});

export const MailDelivery = z.object({ delivered: z.array(z.string()), unknown: z.array(z.string()) });
