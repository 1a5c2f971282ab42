/**
 * The HTTP routes kinds declare in their contracts, mounted generically:
 *
 *   `http`   e.g. GET /formats, POST /games/:id/moves — params, query and JSON body are validated
 *            against the route's schemas and become one message; the reply is the JSON body, and a
 *            failure keeps its code and gets its status.
 *   `feeds`  e.g. GET /games/:id/events — SSE of one actor's feed: an optional `snapshot` first, then
 *            every entry meant for everyone or for the caller, resumable with Last-Event-ID.
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { ActorId } from '../queues/envelope.js';
import type { ActorClient } from '../actors/runtime/client.js';
import { RequestError, type ActorMessage, type AnyKind, type FeedRouteContract, type HttpRouteContract } from '../actors/runtime/contract.js';
import type { ReplyEvent } from '../queues/reply-stream.js';
import { callActor, failureStatus, type ActorCallDeps } from './actor-call.js';
import { ApiError } from './error-response.js';
import { lastEventIdOf, streamEvents } from './sse.js';
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
  for (const kind of kinds) for (const feed of kind.feeds ?? []) claim(`GET ${feed.path}`, kind.kind);
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
function messageOf(build: () => ActorMessage): ActorMessage {
  try {
    return build();
  } catch (thrown) {
    if (thrown instanceof RequestError) throw new ApiError(failureStatus(thrown.code), thrown.code, thrown.message, thrown.details ?? {});
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
  client: ActorCallDeps['client'] & Pick<ActorClient, 'followFeed' | 'feedPosition'>;
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
      const answer = await callActor(deps, { user, kind, message: messageOf(() => route.toMessage(input, { userId: user.id, name: user.name })), signal: closeSignal(ctx) });
      if (!answer.ok) throw new ApiError(failureStatus(answer.failure.code), answer.failure.code, answer.failure.message, answer.failure.details);
      ctx.body = answer.data;
    };
    if (route.method === 'GET') router.get(route.path, handler);
    else router.post(route.path, handler);
  }
  for (const kind of kinds) for (const feed of kind.feeds ?? []) mountFeed(router, kind, feed, deps);
  return router;
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
      if (!answer.ok) throw new ApiError(failureStatus(answer.failure.code), answer.failure.code, answer.failure.message, answer.failure.details);
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
