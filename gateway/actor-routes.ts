/**
 * HTTP routes for every actor kind, mounted generically from the runtime's contracts:
 *
 *   POST /actors/:kind/:id/messages   a message to a stateful actor   (SSE with Accept: text/event-stream, else JSON)
 *   GET  /actors/:kind/:id            the actor's committed state
 *   POST /services/:kind/messages     a request to a stateless service kind
 *   GET  /replies/:messageId          a reply stream as SSE (Last-Event-ID resumes)
 *   POST /batches                     many messages as one batch job
 *   GET  /batches/:id                 batch progress;  GET /batches/:id/events  progress as SSE
 *   GET  /batches/:id/results         each finished message's reply or error, a page at a time
 *
 * The gateway only translates: validate, check limits, post, then stream the reply stream back.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { ActorId, ActorKindName, type ActorRef } from '../queues/envelope.js';
import type { ActorClient } from '../actors/runtime/client.js';
import { RuntimeError } from '../actors/runtime/runtime-error.js';
import type { AnyKind } from '../actors/runtime/contract.js';
import { failureError } from './actor-call.js';
import { ApiError } from './error-response.js';
import type { UserLimits } from './limits.js';
import type { HopTracer } from './hop-tracer.js';
import { lastEventIdOf, streamEvents, type OutgoingEvent } from './sse.js';
import type { GatewayState } from './state.js';

export interface ActorRoutesDeps {
  client: ActorClient;
  limits: UserLimits;
  /** Called with the time from posting each message to its final reply event (a metric). */
  observeReply?: (kind: string, seconds: number, outcome: 'reply' | 'error') => void;
  /** How long a JSON request waits for its reply before answering 504 (the message still runs). */
  replyTimeoutMs?: number;
  /** Set with TRACE_HOPS: messages carry hop timestamps and their paths are logged. */
  tracer?: HopTracer;
}

export const SendBody = z
  .object({
    type: z.string().min(1).max(100),
    payload: z.unknown().default({}),
    timeoutMs: z.number().int().positive().max(24 * 60 * 60 * 1000).optional(),
  })
  .strict();

export const BatchBody = z
  .object({
    kind: ActorKindName,
    messages: z
      .array(z.object({ id: ActorId.optional(), type: z.string().min(1).max(100), payload: z.unknown().default({}) }).strict())
      .min(1)
      .max(10_000),
  })
  .strict();

export const ResultsQuery = z
  .object({
    after: z.string().regex(/^[0-9a-f]{24}$/, 'the `next` cursor of the previous page').optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  })
  .strict();

export const IdempotencyKey = z.string().min(1).max(200).regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');
export const MessageId = z.string().uuid();

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiError(400, 'bad_request', `invalid ${what}`, { issues: result.error.issues });
  return result.data;
}

function runtimeError(e: unknown): never {
  if (e instanceof RuntimeError) {
    const status = e.code === 'not_found' ? 404 : e.code === 'conflict' ? 409 : 400;
    throw new ApiError(status, e.code, e.message, e.details === undefined ? {} : { issues: e.details });
  }
  throw e;
}

const wantsStream = (ctx: Context) => (ctx.get('accept') ?? '').includes('text/event-stream');

const CLIENT_GONE = Object.freeze({ name: 'AbortError', message: 'the client disconnected' });

/** Aborts when the HTTP client goes away (the response closes; the request closes as soon as its body is read). */
function disconnectSignal(ctx: Context): AbortSignal {
  const controller = new AbortController();
  ctx.res.once('close', () => controller.abort(CLIENT_GONE));
  return controller.signal;
}

export function createActorRouter(deps: ActorRoutesDeps): Router<GatewayState> {
  const { client, limits } = deps;
  const router = new Router<GatewayState>();

  const userOf = (ctx: Context & { state: GatewayState }) => {
    const user = ctx.state.user;
    if (!user) throw new ApiError(401, 'unauthorized', 'an API key is required');
    return user;
  };

  const kindOf = (name: string, stateful: boolean): AnyKind => {
    const kind = client.kind(parse(ActorKindName, name, 'actor kind'));
    if (!kind || kind.stateful !== stateful) {
      throw new ApiError(404, 'not_found', `no ${stateful ? 'actor' : 'service'} kind '${name}'`, { kinds: client.kinds().filter((k) => k.stateful === stateful).map((k) => k.kind) });
    }
    return kind;
  };

  /** Validate, admit through the user's limits, post; the lease is released here if posting fails. */
  async function post(ctx: Context & { state: GatewayState }, kind: AnyKind, actor: ActorRef) {
    const trace = deps.tracer?.start();
    const user = userOf(ctx);
    const body = parse(SendBody, ctx.request.body ?? {}, 'message body');
    const idempotencyKey = ctx.get('idempotency-key') ? parse(IdempotencyKey, ctx.get('idempotency-key'), 'Idempotency-Key header') : undefined;
    try {
      client.validate({ actor, type: body.type, payload: body.payload });
    } catch (e) {
      runtimeError(e);
    }
    const started = Date.now();
    const sent = await limits.enqueueAdmitted(user.id, kind, (admission) =>
      client.send({ actor, ownerId: user.id, type: body.type, payload: body.payload, idempotencyKey, timeoutMs: body.timeoutMs, admission, trace }).catch(runtimeError),
      body.type,
    );
    ctx.set('X-Message-Id', sent.messageId);
    await answer(ctx, kind.kind, sent.replyStream, started);
  }

  async function answer(ctx: Context & { state: GatewayState }, kind: string, stream: string, started: number) {
    // Only answered messages count: a client that left or a reply timeout saw no final event.
    const observeFinal = (event: OutgoingEvent | undefined) => {
      if (event) deps.tracer?.heard(kind, event);
      if (event?.event === 'done' || event?.event === 'error') deps.observeReply?.(kind, (Date.now() - started) / 1000, event.event === 'error' ? 'error' : 'reply');
    };
    if (wantsStream(ctx)) {
      const lastEventId = lastEventIdOf(ctx);
      await streamEvents(ctx, (signal) => client.replies(stream, { lastEventId, signal }), { onEvent: observeFinal });
      return;
    }
    const signal = disconnectSignal(ctx);
    const events = await client.reply(stream, { signal, idleTimeoutMs: deps.replyTimeoutMs ?? 120_000 });
    observeFinal(events[events.length - 1]);
    const last = events[events.length - 1];
    const messageId = stream.slice(client.names.replies('').length);
    if (!last || (last.event !== 'done' && last.event !== 'error')) {
      throw new ApiError(504, 'reply_timeout', 'no reply yet; follow it at the replies URL', { messageId, replies: `/replies/${messageId}` });
    }
    if (last.event === 'error') {
      const data = last.data as { code?: string; message?: string; details?: unknown };
      throw failureError({ code: data.code ?? 'turn_failed', message: data.message ?? 'the message failed', details: data.details ? { issues: data.details } : {} });
    }
    ctx.body = {
      messageId,
      reply: events.find((e) => e.event === 'reply')?.data ?? null,
      events: events.filter((e) => e.event !== 'reply' && e.event !== 'done').map((e) => ({ id: e.id, event: e.event, data: e.data })),
    };
  }

  router.post('/actors/:kind/:id/messages', async (ctx) => {
    const kind = kindOf(ctx.params.kind, true);
    await post(ctx, kind, { kind: kind.kind, id: parse(ActorId, ctx.params.id, 'actor id') });
  });

  router.get('/actors/:kind/:id', async (ctx) => {
    const user = userOf(ctx);
    const kind = kindOf(ctx.params.kind, true);
    const actor = { kind: kind.kind, id: parse(ActorId, ctx.params.id, 'actor id') };
    try {
      ctx.body = { kind: actor.kind, id: actor.id, state: (await client.state(actor, user.id)) ?? null };
    } catch (e) {
      runtimeError(e);
    }
  });

  router.post('/services/:kind/messages', async (ctx) => {
    const kind = kindOf(ctx.params.kind, false);
    await post(ctx, kind, { kind: kind.kind, id: 'service' });
  });

  router.get('/replies/:messageId', async (ctx) => {
    const user = userOf(ctx);
    const messageId = parse(MessageId, ctx.params.messageId, 'message id');
    if (!(await client.ownsReply(messageId, user.id))) throw new ApiError(404, 'not_found', `no reply stream ${messageId}`);
    const lastEventId = lastEventIdOf(ctx);
    await streamEvents(ctx, (signal) => client.followReply(messageId, { lastEventId, signal }));
  });

  router.post('/batches', async (ctx) => {
    const user = userOf(ctx);
    const body = parse(BatchBody, ctx.request.body ?? {}, 'batch body');
    const kind = client.kind(body.kind);
    if (!kind) throw new ApiError(404, 'not_found', `no actor kind '${body.kind}'`);
    if (kind.stateful && body.messages.some((m) => m.id === undefined)) {
      throw new ApiError(400, 'bad_request', `every message to the stateful kind '${kind.kind}' needs an actor id`);
    }
    const messages = body.messages.map((m) => ({ actor: { kind: kind.kind, id: m.id ?? 'service' }, type: m.type, payload: m.payload }));
    // A batch counts once against the rate limit; it holds no concurrency lease (it is bulk work).
    await limits.admit(user.id, kind, { holdLease: false });
    let batchId: string;
    try {
      batchId = await client.sendBatch(user.id, kind.kind, messages);
    } catch (e) {
      runtimeError(e);
    }
    ctx.status = 202;
    ctx.body = { batchId, total: messages.length, progress: `/batches/${batchId}`, events: `/batches/${batchId}/events` };
  });

  router.get('/batches/:id', async (ctx) => {
    const user = userOf(ctx);
    const progress = await client.batch(parse(z.string().uuid(), ctx.params.id, 'batch id'), user.id);
    if (!progress) throw new ApiError(404, 'not_found', `no batch ${ctx.params.id}`);
    ctx.body = progress;
  });

  router.get('/batches/:id/results', async (ctx) => {
    const user = userOf(ctx);
    const batchId = parse(z.string().uuid(), ctx.params.id, 'batch id');
    const page = parse(ResultsQuery, ctx.query, 'query');
    const results = await client.batchResults(batchId, user.id, page);
    if (!results) throw new ApiError(404, 'not_found', `no batch ${batchId}`);
    ctx.body = results;
  });

  router.get('/batches/:id/events', async (ctx) => {
    const user = userOf(ctx);
    const batchId = parse(z.string().uuid(), ctx.params.id, 'batch id');
    const progress = await client.batch(batchId, user.id);
    if (!progress) throw new ApiError(404, 'not_found', `no batch ${batchId}`);
    const lastEventId = lastEventIdOf(ctx);
    await streamEvents(ctx, (signal) => client.followBatch(batchId, { lastEventId, signal }));
  });

  return router;
}
