/**
 * The plain HTTP reads kinds declare in their contracts (`http`), e.g. the meta service's
 * `GET /formats` and `GET /archetypes?format=F`: the query is validated against the route's schema,
 * becomes one message, and the reply is the JSON body; a failure keeps its code and gets its status.
 */
import Router from '@koa/router';
import { z } from 'zod';
import type { AnyKind, HttpRouteContract } from '../actors/runtime/contract.js';
import { callActor, failureStatus, type ActorCallDeps } from './actor-call.js';
import { ApiError } from './error-response.js';
import type { GatewayState } from './state.js';

/** Refuses two kinds claiming the same path, at start-up rather than by shadowing. */
export function httpRouteCatalogue(kinds: AnyKind[]): Array<{ kind: AnyKind; route: HttpRouteContract; query: z.ZodObject<z.ZodRawShape> }> {
  const seen = new Map<string, string>();
  return kinds.flatMap((kind) =>
    (kind.http ?? []).map((route) => {
      const key = `${route.method} ${route.path}`;
      const other = seen.get(key);
      if (other !== undefined) throw new Error(`${key} is declared by both ${other} and ${kind.kind}`);
      seen.set(key, kind.kind);
      return { kind, route, query: z.object(route.query).strict() };
    }),
  );
}

export function createContractRouter(kinds: AnyKind[], deps: ActorCallDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  for (const { kind, route, query } of httpRouteCatalogue(kinds)) {
    router.get(route.path, async (ctx) => {
      const user = ctx.state.user;
      if (!user) throw new ApiError(401, 'unauthorized', 'an API key is required');
      const parsed = query.safeParse(ctx.query);
      if (!parsed.success) {
        const summary = parsed.error.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');
        throw new ApiError(400, 'bad_request', `invalid query: ${summary}`, { issues: parsed.error.issues });
      }
      const controller = new AbortController();
      ctx.res.once('close', () => controller.abort());
      const answer = await callActor(deps, { user, kind, message: route.toMessage(parsed.data, { userId: user.id }), signal: controller.signal });
      if (!answer.ok) throw new ApiError(failureStatus(answer.failure.code), answer.failure.code, answer.failure.message, answer.failure.details);
      ctx.body = answer.data;
    });
  }
  return router;
}
