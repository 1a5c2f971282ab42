import { Router } from '@koa/router';
import { runReadinessChecks, type ReadinessChecks } from './readiness.js';
import type { GatewayState } from './state.js';

export interface HealthRoutesOptions {
  readinessChecks: ReadinessChecks;
  checkTimeoutMs?: number;
}

/**
 * GET /healthz: the process is up (liveness; touches no dependency, so a Redis outage does not get
 * the process restarted). GET /readyz: every dependency answers (readiness).
 */
export function createHealthRouter({ readinessChecks, checkTimeoutMs = 2_000 }: HealthRoutesOptions): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const report = await runReadinessChecks(readinessChecks, checkTimeoutMs);
    if (report.ready) {
      ctx.body = { status: 'ready', checks: report.checks };
    } else {
      ctx.state.logger.warn({ checks: report.checks, errors: report.errors }, 'not ready');
      ctx.status = 503;
      ctx.body = { status: 'not_ready', checks: report.checks, errors: report.errors };
    }
  });

  return router;
}
