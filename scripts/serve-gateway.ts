import type { RedisClient } from '../queues/redis-client.js';
import type { Connection } from 'mongoose';
import type { ActorClient } from '../actors/runtime/client.js';
import type { AnyKind } from '../actors/runtime/contract.js';
import { createAccountRouter } from '../gateway/account-routes.js';
import { createAdminRoutes, troupeQueues } from '../gateway/admin-queues.js';
import { AdminSessions } from '../gateway/admin-session.js';
import { createActorRouter } from '../gateway/actor-routes.js';
import { HopTracer } from '../gateway/hop-tracer.js';
import { createGatewayApp } from '../gateway/app.js';
import { authenticateRequest } from '../gateway/auth.js';
import { recoverFromBrokerReset } from '../gateway/broker-reset.js';
import { startHttpServer } from '../gateway/http-server.js';
import { UserLimits } from '../gateway/limits.js';
import { createContractRouter, uploadPaths } from '../gateway/contract-routes.js';
import { createMailWebhookRouter, startSmtpListener, WEBHOOK_PATH } from '../gateway/mail-inbound.js';
import { createMcpRouter } from '../gateway/mcp/router.js';
import { createApiDocsRouter } from '../gateway/openapi/router.js';
import { TroupeMetrics } from '../gateway/metrics.js';
import { mongoReadinessCheck, redisReadinessCheck } from '../gateway/readiness.js';
import { ResetAwareActorClient } from '../gateway/reset-aware-client.js';
import { setSendBufferCap } from '../gateway/send-buffer-cap.js';
import { UserDirectory } from '../gateway/users.js';
import { BrokerEpochWatcher, brokerEpochKey } from '../queues/broker-epoch.js';
import type { RedisNames } from '../queues/keys.js';
import type { Config } from './config.js';
import type { Logger } from '../logging/logger.js';

export interface ServeGatewayDeps {
  config: Config;
  logger: Logger;
  redis: RedisClient;
  redisUrl: string;
  mongo: Connection;
  kinds: AnyKind[];
  names: RedisNames;
  /** The web client build to serve at `/` (see web-build.ts). */
  webClientDir?: string;
  /** The registry /metrics serves; `troupe start` passes the one its workers report to. Default: a new one. */
  metrics?: TroupeMetrics;
}

export interface ServedGateway {
  url: string;
  users: UserDirectory;
  close(): Promise<void>;
}

/** Readiness also needs a live worker for every kind the gateway routes to (else messages would only queue). */
function workersReadinessCheck(client: ActorClient) {
  return async () => {
    const live = await client.liveWorkers();
    const missing = Object.entries(live).filter(([, n]) => n === 0).map(([kind]) => kind);
    if (missing.length) throw new Error(`no live worker for: ${missing.join(', ')}`);
  };
}

/** The gateway of one process: actor routes and MCP behind auth and limits, health and metrics, on HTTP. */
export async function serveGateway({ config, logger, redis, redisUrl, mongo, kinds, names, webClientDir, metrics = new TroupeMetrics() }: ServeGatewayDeps): Promise<ServedGateway> {
  const users = await UserDirectory.open(mongo);
  const client = new ResetAwareActorClient(redisUrl, mongo, kinds, names);
  // Redis coming back without its data is noticed here; waiting requests are answered broker_reset.
  const brokerLogger = logger.child({ component: 'broker-epoch' });
  const brokerEpoch = new BrokerEpochWatcher(redisUrl, brokerEpochKey(names), {
    logger: brokerLogger,
    onReset: () => recoverFromBrokerReset({ answerWaiters: () => client.answerBrokerReset(), redis, names, mongo, logger: brokerLogger }),
  });
  await brokerEpoch.start();
  metrics.observeQueues(() => client.queueStats());
  const limits = new UserLimits(redis, { ...config.limits, keyPrefix: names.prefix, onRefusal: (kind, limit) => metrics.recordLimitRejection(kind, limit) });
  const tracer = config.gateway.traceHops ? new HopTracer(logger.child({ component: 'hops' })) : undefined;
  const actorRoutes = createActorRouter({ client, limits, tracer, observeReply: (kind, seconds, outcome) => metrics.observeReply(kind, seconds, outcome) });
  const contractRoutes = createContractRouter(kinds, { client, limits, tracer });
  const mcp = createMcpRouter({ client, limits, tracer, authenticate: (headers) => authenticateRequest(users, headers), logger: logger.child({ component: 'mcp' }), redisUrl });
  const mailDeps = { mongo, client, logger: logger.child({ component: 'mail' }) };
  const webhooks = createMailWebhookRouter({ ...mailDeps, secrets: config.mail.webhooks });
  const admin = createAdminRoutes({ users, sessions: new AdminSessions(redis, names.prefix), queues: troupeQueues(kinds, names), redisUrl });
  const app = createGatewayApp({
    logger: logger.child({ component: 'gateway' }),
    readinessChecks: { redis: redisReadinessCheck(redis), mongo: mongoReadinessCheck(mongo), workers: workersReadinessCheck(client) },
    users,
    metrics,
    routers: [actorRoutes, mcp.router, contractRoutes, createAccountRouter({ users, limits, kinds })],
    rawBodyPaths: [...uploadPaths(kinds), WEBHOOK_PATH],
    publicRouters: [webhooks, admin.router, createApiDocsRouter(kinds)],
    webClientDir,
    ...config.gateway,
  });
  setSendBufferCap(app, config.sse.sendBufferCapBytes);
  const http = await startHttpServer(app, config.http);
  // SMTP_PORT: this process also receives mail over SMTP.
  const smtp = config.mail.smtp ? await startSmtpListener(mailDeps, config.mail.smtp) : undefined;
  if (smtp) logger.info({ port: smtp.port }, `receiving mail over SMTP on ${config.mail.smtp!.host}:${smtp.port}`);
  return {
    url: http.url,
    users,
    async close() {
      await smtp?.close();
      // Open MCP SSE sessions first: the HTTP server would otherwise wait its grace period for them.
      await mcp.close();
      await http.close();
      await admin.close();
      await brokerEpoch.close();
      await client.close();
    },
  };
}
