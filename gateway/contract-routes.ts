/**
 * The HTTP routes kinds declare in their contracts, mounted generically:
 *
 *   `http`   e.g. GET /formats, POST /games/:id/moves — params, query and JSON body are validated
 *            against the route's schemas and become one message; the reply is the JSON body (or, for
 *            a `stream` route such as POST /chat, the reply stream as SSE), and a failure keeps its
 *            code and gets its status.
 *   `reads`  e.g. GET /conversations/:id — the owner's view of the committed state, without a turn.
 *   `cancels` e.g. POST /conversations/:id/cancel — aborts the running turn (its caller gets `cancelled`).
 *   `batches` e.g. POST /documents — many messages as one batch job, answered 202 with where to follow it;
 *            upload routes also take multipart/form-data files.
 *   `feeds`  e.g. GET /games/:id/events — SSE of one actor's feed: an optional `snapshot` first, then
 *            every entry meant for everyone or for the caller, resumable with Last-Event-ID.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { ActorId } from '../queues/envelope.js';
import type { ActorClient } from '../actors/runtime/client.js';
import { RuntimeError } from '../actors/runtime/runtime-error.js';
import {
  RequestError,
  type ActorKind,
  type ActorMessage,
  type AnyKind,
  type BatchRouteContract,
  type CancelRouteContract,
  type FeedRouteContract,
  type HttpRouteContract,
  type StateRouteContract,
} from '../actors/runtime/contract.js';
import type { ReplyEvent } from '../queues/reply-stream.js';
import { callActor, DEFAULT_REPLY_IDLE_TIMEOUT_MS, failureError, failureOf, postMessage, type ActorCallDeps } from './actor-call.js';
import { ApiError } from './error-response.js';
import type { UserLimits } from './limits.js';
import { lastEventIdOf, streamEvents } from './sse.js';
import { readUploadBody } from './upload-body.js';
import type { GatewayState } from './state.js';

type Schemas = { params: z.ZodObject<z.ZodRawShape>; query: z.ZodObject<z.ZodRawShape>; body: z.ZodObject<z.ZodRawShape> };

/** Refuses two kinds claiming the same route, at start-up rather than by shadowing. */
export function httpRouteCatalogue(kinds: AnyKind[]): Array<{ kind: AnyKind; route: HttpRouteContract; schemas: Schemas }> {
  const seen = new Map<string, string>();
  const claim = (key: string, kind: string) => {
    const other = seen.get(key);
    if (other !== undefined) throw new Error(`${key} is declared by both ${other} and ${kind}`);
    seen.set(key, kind);
  };
  for (const kind of kinds) {
    for (const feed of kind.feeds ?? []) claim(`GET ${feed.path}`, kind.kind);
    for (const batch of kind.batches ?? []) claim(`POST ${batch.path}`, kind.kind);
    if (!kind.stateful) continue;
    for (const read of kind.reads ?? []) claim(`GET ${read.path}`, kind.kind);
    for (const cancel of kind.cancels ?? []) claim(`POST ${cancel.path}`, kind.kind);
  }
  return kinds.flatMap((kind) =>
    (kind.http ?? []).map((route) => {
      claim(`${route.method} ${route.path}`, kind.kind);
      return {
        kind,
        route,
        schemas: { params: z.object(route.params ?? {}).strict(), query: z.object(route.query ?? {}).strict(), body: z.object(route.body ?? {}).strict() },
      };
    }),
  );
}

function parsed(schema: z.ZodObject<z.ZodRawShape>, value: unknown, what: string): Record<string, unknown> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const summary = result.error.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');
  throw new ApiError(400, 'bad_request', `invalid ${what}: ${summary}`, { issues: result.error.issues });
}

/** A contract's toMessage may refuse a combination its schemas let through: that is the caller's error. */
function messageOf<M extends ActorMessage | ActorMessage[]>(build: () => M): M {
  try {
    return build();
  } catch (thrown) {
    if (thrown instanceof RequestError) throw failureError({ code: thrown.code, message: thrown.message, details: thrown.details ?? {} });
    throw thrown;
  }
}

const userOf = (ctx: Context & { state: GatewayState }) => {
  const user = ctx.state.user;
  if (!user) throw new ApiError(401, 'unauthorized', 'an API key is required');
  return user;
};

/** Aborts when the HTTP client goes away. */
function closeSignal(ctx: Context): AbortSignal {
  const controller = new AbortController();
  ctx.res.once('close', () => controller.abort());
  return controller.signal;
}

export interface ContractRoutesDeps extends ActorCallDeps {
  client: ActorCallDeps['client'] & Pick<ActorClient, 'followFeed' | 'feedPosition' | 'state' | 'cancel' | 'sendBatch'>;
  limits: ActorCallDeps['limits'] & Pick<UserLimits, 'admit'>;
}

/** Paths whose bodies the upload routes read themselves (the JSON body middleware leaves them alone). */
export const uploadPaths = (kinds: AnyKind[]): string[] => kinds.flatMap((kind) => (kind.batches ?? []).filter((b) => b.upload).map((b) => b.path));

/** The runtime's refusals (unknown or another user's actor, nothing to cancel) as HTTP errors. */
function runtimeRefusal(thrown: unknown): never {
  if (thrown instanceof RuntimeError) {
    const status = thrown.code === 'not_found' ? 404 : thrown.code === 'conflict' ? 409 : 400;
    throw new ApiError(status, thrown.code, thrown.message, thrown.details === undefined ? {} : { issues: thrown.details });
  }
  throw thrown;
}

function actorRefOf(kind: AnyKind, actorId: string) {
  return { kind: kind.kind, id: parsed(z.object({ id: ActorId }), { id: actorId }, 'actor id').id as string };
}

export function createContractRouter(kinds: AnyKind[], deps: ContractRoutesDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  for (const { kind, route, schemas } of httpRouteCatalogue(kinds)) {
    const handler = async (ctx: Context & { state: GatewayState }) => {
      const user = userOf(ctx);
      const input = {
        params: parsed(schemas.params, ctx.params, 'path'),
        query: parsed(schemas.query, ctx.query, 'query'),
        body: route.method === 'POST' ? parsed(schemas.body, ctx.request.body, 'body') : {},
      };
      const message = messageOf(() => route.toMessage(input, { userId: user.id, name: user.name }));
      if (route.stream) {
        await streamMessage(ctx, deps, { user, kind, message, omit: new Set(route.stream.omit ?? []) });
        return;
      }
      const answer = await callActor(deps, { user, kind, message, signal: closeSignal(ctx) });
      if (!answer.ok) throw failureError(answer.failure);
      ctx.body = answer.data;
    };
    if (route.method === 'GET') router.get(route.path, handler);
    else if (route.method === 'DELETE') router.delete(route.path, handler);
    else router.post(route.path, handler);
  }
  for (const kind of kinds) {
    for (const feed of kind.feeds ?? []) mountFeed(router, kind, feed, deps);
    for (const batch of kind.batches ?? []) mountBatch(router, kind, batch, deps);
    if (!kind.stateful) continue;
    for (const read of kind.reads ?? []) mountRead(router, kind, read, deps);
    for (const cancel of kind.cancels ?? []) mountCancel(router, kind, cancel, deps);
  }
  return router;
}

/**
 * Answers with the message's reply stream as SSE (resumable at GET /replies/:messageId, named in
 * X-Message-Id). The stream opens with the first event, so a message refused at once (an unknown
 * conversation, a limit) still answers with its JSON error and status.
 */
async function streamMessage(
  ctx: Context & { state: GatewayState },
  deps: ContractRoutesDeps,
  call: { user: { id: string; name?: string }; kind: AnyKind; message: ActorMessage; omit: Set<string> },
) {
  const posted = await postMessage(deps, call);
  if (!posted.ok) throw failureError(posted.failure);
  ctx.set('X-Message-Id', posted.messageId);
  const gone = closeSignal(ctx);
  const events = deps.client.replies(posted.replyStream, { signal: gone, idleTimeoutMs: deps.replyIdleTimeoutMs ?? DEFAULT_REPLY_IDLE_TIMEOUT_MS });
  const first = await events.next();
  if (!first.done && first.value.event === 'error') {
    throw failureError(failureOf(first.value.data));
  }
  await streamEvents(ctx, async function* () {
    if (first.done) return;
    if (!call.omit.has(first.value.event)) yield first.value;
    for await (const event of events) if (!call.omit.has(event.event)) yield event;
  });
}

function mountBatch(router: Router<GatewayState>, kind: AnyKind, route: BatchRouteContract, deps: ContractRoutesDeps) {
  const body = z.object(route.body ?? {}).strict();
  router.post(route.path, async (ctx) => {
    const user = userOf(ctx);
    const upload = route.upload ? await readUploadBody(ctx, route.upload) : { body: ctx.request.body as Record<string, unknown>, files: [] };
    const input = { body: parsed(body, upload.body, 'body'), files: upload.files };
    const messages = messageOf(() => {
      const all = route.toMessages(input, { userId: user.id, name: user.name });
      if (all.length === 0) throw new RequestError('bad_request', 'nothing to do: the request names no items');
      return all;
    });
    const sends = messages.map((m) => ({ actor: actorRefOf(m.kind === undefined ? kind : deps.client.kind(m.kind)!, m.actorId), type: m.type, payload: m.payload }));
    try {
      for (const send of sends) deps.client.validate(send);
    } catch (thrown) {
      runtimeRefusal(thrown);
    }
    const counts = kind.limits?.rateCounts;
    const points = counts ? sends.filter((m) => counts.types.includes(m.type)).length : 1;
    // Bulk work holds no concurrency slot; the rate limit counts what the messages would count alone.
    if (points > 0) await deps.limits.admit(user.id, kind, { holdLease: false, type: sends[0]!.type, points });
    const batchId = await deps.client.sendBatch(user.id, kind.kind, sends).catch(runtimeRefusal);
    ctx.status = 202;
    ctx.body = {
      batchId,
      total: sends.length,
      progress: `/batches/${batchId}`,
      events: `/batches/${batchId}/events`,
      results: `/batches/${batchId}/results`,
      ...route.describe?.(messages),
    };
  });
}

function mountRead(router: Router<GatewayState>, kind: ActorKind<unknown>, read: StateRouteContract, deps: ContractRoutesDeps) {
  const params = z.object(read.params).strict();
  router.get(read.path, async (ctx) => {
    const user = userOf(ctx);
    const actor = actorRefOf(kind, read.actorId(parsed(params, ctx.params, 'path')));
    const state = await deps.client.state(actor, user.id).catch(runtimeRefusal);
    const view = state == null ? undefined : read.view(state);
    if (view === undefined) throw new ApiError(404, 'not_found', `${kind.kind} ${actor.id} not found`);
    ctx.body = view;
  });
}

function mountCancel(router: Router<GatewayState>, kind: ActorKind<unknown>, cancel: CancelRouteContract, deps: ContractRoutesDeps) {
  const params = z.object(cancel.params).strict();
  router.post(cancel.path, async (ctx) => {
    const user = userOf(ctx);
    const actor = actorRefOf(kind, cancel.actorId(parsed(params, ctx.params, 'path')));
    const { cancelled } = await deps.client.cancel(actor, user.id).catch(runtimeRefusal);
    ctx.status = 202;
    ctx.body = { [`${kind.kind}_id`]: actor.id, cancelling: true, messages: cancelled };
  });
}

function mountFeed(router: Router<GatewayState>, kind: AnyKind, feed: FeedRouteContract, deps: ContractRoutesDeps) {
  const params = z.object(feed.params).strict();
  router.get(feed.path, async (ctx) => {
    const user = userOf(ctx);
    const values = parsed(params, ctx.params, 'path');
    const actor = { kind: kind.kind, id: parsed(z.object({ id: ActorId }), { id: feed.actorId(values) }, 'actor id').id as string };
    const lastEventId = lastEventIdOf(ctx);
    // Where the feed stands before the snapshot is taken: nothing published after it is missed.
    const from = lastEventId ?? (await deps.client.feedPosition(actor));
    let snapshot: ReplyEvent | undefined;
    if (feed.snapshot && lastEventId === undefined) {
      const snapshotOf = feed.snapshot;
      const answer = await callActor(deps, { user, kind, message: messageOf(() => snapshotOf(values, { userId: user.id, name: user.name })), signal: closeSignal(ctx) });
      if (!answer.ok) throw failureError(answer.failure);
      snapshot = { id: from, event: 'snapshot', data: answer.data };
    }
    await streamEvents(ctx, async function* (signal) {
      if (snapshot) {
        yield snapshot;
        if (feed.finished?.(snapshot.data)) {
          yield { id: from, event: 'done', data: { finished: true } };
          return;
        }
      }
      yield* deps.client.followFeed(actor, user.id, { lastEventId: from, signal });
    });
  });
}
