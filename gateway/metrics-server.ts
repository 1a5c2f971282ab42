/**
 * `GET /metrics` on a port of its own, for processes that run no gateway (`troupe worker` with
 * METRICS_PORT). Same route, token rule and error bodies as the gateway's; every other path is 404.
 */
import Koa from 'koa';
import type { Logger } from '../logging/logger.js';
import { bareErrorStatusResponse, errorResponse } from './error-response.js';
import { startHttpServer, type RunningHttpServer } from './http-server.js';
import { createMetricsRouter, type TroupeMetrics } from './metrics.js';
import { requestLogging } from './request-logging.js';
import type { GatewayState } from './state.js';

export interface MetricsServerOptions {
  host: string;
  /** 0 = any free port. */
  port: number;
  /** METRICS_TOKEN: when set, GET /metrics needs it as a Bearer token. */
  token?: string;
  logger: Logger;
}

export async function startMetricsServer(metrics: TroupeMetrics, { host, port, token, logger }: MetricsServerOptions): Promise<RunningHttpServer> {
  const app = new Koa<GatewayState>();
  app.on('error', (error: unknown) => logger.debug({ err: error }, 'connection error after the response started'));
  app.use(requestLogging(logger));
  app.use(errorResponse());
  app.use(bareErrorStatusResponse());
  const router = createMetricsRouter(metrics, { token });
  app.use(router.routes());
  app.use(router.allowedMethods());
  // A scrape is one short request: no grace period to wait out on shutdown.
  return startHttpServer(app, { host, port, closeGraceMs: 1_000 });
}
