/**
 * The queue dashboard (bull-board) at /admin/queues and its browser session at /admin/session, for
 * users with the admin role. Everyone else gets the gateway's plain 404, as if the routes did not
 * exist. An admin is recognised by an API key (Bearer or X-API-Key) or by the session cookie.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { KoaAdapter } from '@bull-board/koa';
import { Router, type RouterContext } from '@koa/router';
import { Queue } from 'bullmq';
import { createRedisClient } from '../queues/redis-client.js';
import type { Middleware } from 'koa';
import { z } from 'zod';
import type { AnyKind } from '../actors/runtime/contract.js';
import type { QueueName, RedisNames } from '../queues/keys.js';
import { clearSessionCookie, sessionTokenOf, setSessionCookie, type AdminSessions } from './admin-session.js';
import { apiKeyFromHeaders, type ApiKeyVerifier } from './auth.js';
import { ApiError } from './error-response.js';
import type { GatewayState } from './state.js';
import type { AuthenticatedUser, UserDirectory } from './users.js';

export const DASHBOARD_PATH = '/admin/queues';
export const SESSION_PATH = '/admin/session';

/**
 * bull-board's UI is a React bundle served from /admin/queues/static that talks to /admin/queues/api:
 * scripts, images and requests stay same-origin. Relaxed from the web client's policy, each because
 * the UI breaks without it (checked in chromium):
 * - `style-src 'unsafe-inline'`: its job editor (CodeMirror) inserts `<style>` elements whose content it
 *   generates at run time, so no hash can list them; the page and its Redis icon also carry inline
 *   styles. Injected CSS still cannot reach another origin: images load from 'self' only, fonts not at all.
 * - `base-uri 'self'`: the page sets `<base href="/admin/queues/">` to resolve its assets.
 * Its Google Fonts stylesheet stays blocked: no third-party requests; the UI falls back to local fonts.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export interface TroupeQueue {
  queue: QueueName;
  description: string;
}

/**
 * Every BullMQ queue troupe's workers consume: the drain queues of each stateful kind (one, or one per
 * partition on a cluster), a request queue per service kind, and the one schedule queue (ctx.schedule). Batches have no queue of their
 * own: their messages travel on their kind's drain or service queue.
 */
export function troupeQueues(kinds: readonly AnyKind[], names: RedisNames): TroupeQueue[] {
  return [
    ...kinds.flatMap((kind) =>
      kind.stateful
        ? names.allDrainQueues().map((index) => ({
            queue: names.actorQueue(kind.kind, index),
            description:
              names.drainQueues === 'per-kind'
                ? `drain jobs of ${kind.kind} actors (one per actor with mail)`
                : `drain jobs of ${kind.kind} actors in partition ${index} of ${names.partitions} (one per actor with mail)`,
          }))
        : [{ queue: names.serviceQueue(kind.kind), description: `requests to the ${kind.kind} service` }],
    ),
    { queue: names.scheduleQueue(), description: 'delayed messages (ctx.schedule), posted to mailboxes when due' },
  ];
}

export interface AdminRoutesDeps {
  users: ApiKeyVerifier & Pick<UserDirectory, 'activeAdmin'>;
  sessions: AdminSessions;
  queues: readonly TroupeQueue[];
  /** The dashboard's own Redis connection, opened on its first use. */
  redisUrl: string;
}

export interface AdminRoutes {
  /** Mount with the public routers: it checks credentials itself. */
  router: Router<GatewayState>;
  /** Closes the dashboard's queues and connection, if it was ever opened. */
  close(): Promise<void>;
}

interface Board {
  middleware: Middleware;
  close(): Promise<void>;
}

function openBoard(queues: readonly TroupeQueue[], redisUrl: string): Board {
  const connection = createRedisClient(redisUrl, { maxRetriesPerRequest: 3 });
  const bullQueues = queues.map(({ queue }) => new Queue(queue.name, { connection, prefix: queue.prefix }));
  const serverAdapter = new KoaAdapter().setBasePath(DASHBOARD_PATH);
  createBullBoard({
    // Read-only: retrying, removing or adding a job by hand would go around the runtime's mailboxes,
    // fencing and outbox; the dashboard is for looking (depths, stuck and failed jobs).
    queues: bullQueues.map((queue, i) => new BullMQAdapter(queue, { description: queues[i]!.description, readOnlyMode: true, allowRetries: false })),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'troupe queues' } },
  });
  return {
    middleware: serverAdapter.registerPlugin(),
    async close() {
      await Promise.all(bullQueues.map((queue) => queue.close()));
      await connection.quit().catch(() => connection.disconnect());
    },
  };
}

/** Nothing is accepted in the body: the key is the whole request. */
const SessionBody = z.object({}).strict();

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * SameSite=Strict already keeps the cookie off cross-site requests; this also refuses requests from
 * another origin of the same site (a sibling subdomain). Browsers send Sec-Fetch-Site or at least
 * Origin on every unsafe request; a client that sends neither is not a browser being misused.
 */
function isSameOrigin(ctx: RouterContext<GatewayState>): boolean {
  const site = ctx.get('sec-fetch-site');
  if (site !== '') return site === 'same-origin';
  const origin = ctx.get('origin');
  if (origin === '') return true;
  try {
    return new URL(origin).host === ctx.host;
  } catch {
    return false;
  }
}

type Credential = 'key' | 'session';

export function createAdminRoutes({ users, sessions, queues, redisUrl }: AdminRoutesDeps): AdminRoutes {
  const router = new Router<GatewayState>();
  let board: Board | undefined;

  /** The admin behind the request: its API key decides when it sends one, else the session cookie. */
  async function adminOf(ctx: RouterContext<GatewayState>, accept: readonly Credential[]): Promise<{ user: AuthenticatedUser; via: Credential } | undefined> {
    const key = apiKeyFromHeaders(ctx.req.headers);
    if (key !== undefined) {
      if (!accept.includes('key')) return undefined;
      const user = await users.authenticate(key);
      const admin = user && (await users.activeAdmin(user.id));
      return admin ? { user: admin, via: 'key' } : undefined;
    }
    if (!accept.includes('session')) return undefined;
    const userId = await sessions.userOf(sessionTokenOf(ctx));
    const admin = userId === undefined ? undefined : await users.activeAdmin(userId);
    return admin ? { user: admin, via: 'session' } : undefined;
  }

  /** Run for admins only; everyone else gets the gateway's unknown-path 404. */
  function forAdmins(accept: readonly Credential[], handle: (ctx: RouterContext<GatewayState>, admin: AuthenticatedUser) => Promise<void>) {
    return async (ctx: RouterContext<GatewayState>) => {
      const admin = await adminOf(ctx, accept);
      if (!admin) {
        ctx.status = 404; // bareErrorStatusResponse writes the same body as for any unknown path
        return;
      }
      ctx.state.user = admin.user;
      if (admin.via === 'session' && UNSAFE_METHODS.has(ctx.method) && !isSameOrigin(ctx)) {
        throw new ApiError(403, 'forbidden', 'cross-origin requests with the admin session cookie are refused');
      }
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Content-Security-Policy', DASHBOARD_CSP);
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Referrer-Policy', 'no-referrer');
      await handle(ctx, admin.user);
    };
  }

  async function startSession(ctx: RouterContext<GatewayState>, admin: AuthenticatedUser): Promise<void> {
    const body = SessionBody.safeParse(ctx.request.body ?? {});
    if (!body.success) throw new ApiError(400, 'bad_request', 'POST /admin/session takes no body: send the API key as Authorization: Bearer KEY', { issues: body.error.issues });
    const token = await sessions.start(admin.id);
    setSessionCookie(ctx, token, sessions.ttlMs);
    ctx.state.logger.info('admin session started');
    ctx.status = 204;
  }

  async function endSession(ctx: RouterContext<GatewayState>): Promise<void> {
    await sessions.end(sessionTokenOf(ctx));
    clearSessionCookie(ctx);
    ctx.status = 204;
  }

  async function refuseMethod(ctx: RouterContext<GatewayState>): Promise<void> {
    throw new ApiError(405, 'method_not_allowed', `${ctx.method} ${SESSION_PATH} is not supported: POST starts a session, DELETE ends it`, {}, { Allow: 'POST, DELETE' });
  }

  const sessionMethods: Record<string, (ctx: RouterContext<GatewayState>) => Promise<void>> = {
    // A session is started with the key only: a session cookie cannot renew itself.
    POST: forAdmins(['key'], startSession),
    DELETE: forAdmins(['key', 'session'], endSession),
  };
  const otherSessionMethod = forAdmins(['key', 'session'], refuseMethod);
  // `all`, not `post`/`delete`: the router's own 405 would tell anyone that the route exists.
  router.all(SESSION_PATH, (ctx) => (sessionMethods[ctx.method] ?? otherSessionMethod)(ctx));

  // bull-board is a Koa app of its own (body parser, error handler, router, static files). It gets no
  // `next`: what it does not answer stays a 404, and the gateway's later routes never run inside
  // bull-board's error handler.
  const dashboard = forAdmins(['key', 'session'], async (ctx) => {
    board ??= openBoard(queues, redisUrl);
    await board.middleware(ctx, async () => {});
    // bull-board answered its own error body and hid the error from us: at least say that it failed.
    if (ctx.status >= 500) ctx.state.logger.error({ status: ctx.status, path: ctx.path }, 'queue dashboard request failed');
  });
  router.all(/^\/admin\/queues(?:\/.*)?$/, dashboard);

  return {
    router,
    async close() {
      await board?.close();
      board = undefined;
    },
  };
}
