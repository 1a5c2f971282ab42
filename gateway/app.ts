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
 * Order: request id + logging -> error body -> CORS -> metrics -> JSON body -> public routes
 * (/healthz, /readyz, /metrics, POST /auth/login, the web client) -> API key -> `routers`.
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

  const publicRoutes: Router<GatewayState>[] = [
    createHealthRouter({ readinessChecks, checkTimeoutMs: readinessTimeoutMs }),
    createMetricsRouter(metrics, { token: deps.metricsToken }),
  ];
  if (users) publicRoutes.push(createLoginRouter(users), createWebClientRouter(deps.webClientDir));
  publicRoutes.push(...(deps.publicRouters ?? []));
  for (const router of publicRoutes) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }

  if (users && routers.length > 0) {
    // @koa/router runs `use` middleware only when one of its routes matches, so the key is checked
    // for every authenticated route and an unknown path stays a plain 404.
    const authenticated = new Router<GatewayState>();
    authenticated.use(requireApiKey(users));
    for (const router of routers) authenticated.use(router.routes());
    app.use(authenticated.routes());
    app.use(authenticated.allowedMethods());
  }

  return app;
}
