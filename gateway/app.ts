import Koa from 'koa';
import type { Logger } from '../scripts/logger.js';
import { bareErrorStatusResponse, errorResponse } from './error-response.js';
import { createHealthRouter } from './health.js';
import type { ReadinessChecks } from './readiness.js';
import { requestLogging } from './request-logging.js';
import type { GatewayState } from './state.js';

export interface GatewayDependencies {
  logger: Logger;
  /** Named dependency checks behind GET /readyz (e.g. redis, mongo). */
  readinessChecks: ReadinessChecks;
  readinessTimeoutMs?: number;
}

/** The gateway's Koa app. Everything it talks to is passed in, so tests can wire fakes or real servers. */
export function createGatewayApp({ logger, readinessChecks, readinessTimeoutMs }: GatewayDependencies): Koa<GatewayState> {
  const app = new Koa<GatewayState>();
  const health = createHealthRouter({ readinessChecks, checkTimeoutMs: readinessTimeoutMs });

  app.use(requestLogging(logger));
  app.use(errorResponse());
  app.use(bareErrorStatusResponse());
  app.use(health.routes());
  app.use(health.allowedMethods());

  return app;
}
