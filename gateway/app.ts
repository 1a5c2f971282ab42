import { Router } from '@koa/router';
import Koa from 'koa';
import type { Logger } from '../logging/logger.js';
import { requireApiKey, type ApiKeyVerifier } from './auth.js';
import { corsPolicy, type CorsOrigins } from './cors.js';
import { bareErrorStatusResponse, errorResponse } from './error-response.js';
import { createHealthRouter } from './health.js';
import { jsonBody } from './json-body.js';
import { createLoginRouter } from './login.js';
import { createWebClientRouter } from './web-client.js';
import { createMetricsRouter, TroupeMetrics } from './metrics.js';
import type { ReadinessChecks } from './readiness.js';
import { requestLogging } from './request-logging.js';
import type { GatewayState } from './state.js';
import type { UserDirectory } from './users.js';

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

export interface GatewayDependencies {
  logger: Logger;
  /** Named dependency checks behind GET /readyz (e.g. redis, mongo). */
  readinessChecks: ReadinessChecks;
  readinessTimeoutMs?: number;
  /** API keys and login tokens: enables POST /auth/login and guards `routers`. Required with `routers`. */
  users?: ApiKeyVerifier & Pick<UserDirectory, 'exchangeLoginToken'>;
  /** Default: a fresh registry for this app. Pass one to share it with workers (turn latency). */
  metrics?: TroupeMetrics;
  /** JSON body size limit (BODY_LIMIT). */
  bodyLimitBytes?: number;
  /** CORS_ORIGINS; default none (same-origin only). */
  corsOrigins?: CorsOrigins;
  /** METRICS_TOKEN: when set, GET /metrics needs it as a Bearer token. */
  metricsToken?: string;
  /** Path prefixes whose routes read non-JSON request bodies themselves (uploads). */
  rawBodyPaths?: readonly string[];
  /**
   * The extension point for authenticated routes (actor routes, MCP): mounted behind the API-key
   * check, which sets `ctx.state.user`. Unknown paths still answer 404, without asking for a key.
   * Tried in order: the busiest first.
   */
  routers?: ReadonlyArray<Router<GatewayState>>;
  /** The built web client served at `/` (scripts/web-build.ts); undefined: `/` says to build it. */
  webClientDir?: string;
  /** Routes that check their own credentials (signed webhooks): mounted before the API-key check. */
  publicRouters?: ReadonlyArray<Router<GatewayState>>;
}

/**
 * The gateway's Koa app. Everything it talks to is passed in, so tests can wire fakes or real servers.
 *
 * Order: request id + logging -> error body -> CORS -> metrics -> JSON body -> API key -> `routers`
 * -> public routes (/healthz, /readyz, /metrics, POST /auth/login, the web client).
 */
export function createGatewayApp(deps: GatewayDependencies): Koa<GatewayState> {
  const { logger, readinessChecks, readinessTimeoutMs, users, routers = [] } = deps;
  if (routers.length > 0 && users === undefined) {
    throw new Error('createGatewayApp: routers are mounted behind authentication and need `users`');
  }
  const app = new Koa<GatewayState>();
  const metrics = deps.metrics ?? new TroupeMetrics();
  // What reaches here failed outside the middleware (errorResponse catches the rest): mostly a client
  // dropping or garbling its connection mid-response. Into the JSON log, not Koa's console.error.
  app.on('error', (error: unknown) => logger.debug({ err: error }, 'connection error after the response started'));

  app.use(requestLogging(logger));
  app.use(errorResponse());
  app.use(bareErrorStatusResponse());
  app.use(corsPolicy(deps.corsOrigins ?? []));
  app.use(metrics.httpMiddleware());
  app.use(jsonBody({ limitBytes: deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES, rawBodyPaths: deps.rawBodyPaths }));

  const mount = (router: Router<GatewayState>) => {
    app.use(router.routes());
    app.use(router.allowedMethods());
  };
  if (users) {
    // Each router behind its own key check: @koa/router runs `use` middleware only when one of its
    // routes matches, so the key is checked for every authenticated route and an unknown path stays a
    // plain 404. Mounted apart and ahead of the public routes (no path is in both), so a message is
    // matched against its own router's few routes: @koa/router allocates for every route it tries
    // (a debug call each), and under load the gateway's GC pauses (its p99) pay for that.
    const checkKey = requireApiKey(users);
    for (const router of routers) {
      const guarded = new Router<GatewayState>();
      guarded.use(checkKey);
      guarded.use(router.routes());
      mount(guarded);
    }
  }

  mount(createHealthRouter({ readinessChecks, checkTimeoutMs: readinessTimeoutMs }));
  mount(createMetricsRouter(metrics, { token: deps.metricsToken }));
  if (users) {
    mount(createLoginRouter(users));
    mount(createWebClientRouter(deps.webClientDir));
  }
  for (const router of deps.publicRouters ?? []) mount(router);

  return app;
}
