/**
 * The gateway's MCP endpoints, ready to mount:
 *
 *   POST /mcp                  stateless streamable HTTP (GET and DELETE answer 405)
 *   GET  /sse                  legacy SSE transport: opens a session's stream
 *   POST /messages?sessionId=  legacy SSE transport: a client message (relayed across processes)
 *
 * Every endpoint authenticates like the HTTP API (401 without a valid key). Tools and resources come
 * from the actor kinds' contracts; nothing here names a kind.
 */
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { ActorClient } from '../../actors/runtime/client.js';
import type { Logger } from '../../actors/runtime/contract.js';
import type { UserLimits } from '../limits.js';
import type { HopTracer } from '../hop-tracer.js';
import { DEFAULT_HEARTBEAT_MS } from '../sse.js';
import type { GatewayState } from '../state.js';
import { requireUser, type Authenticate } from './authentication.js';
import { LegacySseSessions } from './legacy-sse.js';
import { buildMcpServer, callerFromAuthInfo, mcpCatalogue } from './server.js';
import { SessionRelay } from './session-relay.js';
import { handleStatelessPost, methodNotAllowed } from './streamable-http.js';
import { McpServerPool } from './server-pool.js';

export interface McpRouterDeps {
  /** `names` gives the Redis prefix of the relay's channels (the deployment's REDIS_PREFIX). */
  client: Pick<ActorClient, 'kinds' | 'kind' | 'validate' | 'send' | 'replies' | 'names' | 'followFeed' | 'feedPosition'>;
  limits: Pick<UserLimits, 'enqueueAdmitted'>;
  /** Set with TRACE_HOPS: tool calls carry hop timestamps and their paths are logged. */
  tracer?: HopTracer;
  authenticate: Authenticate;
  logger: Logger;
  /** Redis for the legacy-SSE relay between gateway processes. */
  redisUrl: string;
  /** Paths as clients see them; set `messages` to include the prefix if the router is mounted under one. */
  paths?: { mcp?: string; sse?: string; messages?: string };
  /** Longest quiet gap in a reply stream before a tool call gives up (default 120 s). */
  replyIdleTimeoutMs?: number;
  /** Keep-alive comments on idle legacy SSE streams (default 15 s; 0 = off). */
  sseKeepAliveMs?: number;
}

export interface McpRouter {
  router: Router<GatewayState>;
  /** Ends open SSE sessions and the relay's Redis connections (call on shutdown, after the HTTP server stops accepting). */
  close(): Promise<void>;
}

/** MCP clients send JSON-RPC; the SDK's own limit for one message is 4 MB. */
const MAX_MESSAGE_SIZE = '4mb';

export function createMcpRouter(deps: McpRouterDeps): McpRouter {
  const paths = { mcp: '/mcp', sse: '/sse', messages: '/messages', ...deps.paths };
  // Compiled once: a bad contract (duplicate or undescribed tool) fails start-up, not every request.
  const catalogue = mcpCatalogue(deps.client.kinds());
  const serverDeps = { client: deps.client, limits: deps.limits, logger: deps.logger, replyIdleTimeoutMs: deps.replyIdleTimeoutMs, tracer: deps.tracer };
  const servers = new McpServerPool(() => buildMcpServer(catalogue, serverDeps, callerFromAuthInfo));
  const relay = new SessionRelay(deps.redisUrl, deps.client.names, deps.logger);
  const sessions = new LegacySseSessions({
    catalogue,
    serverDeps,
    relay,
    logger: deps.logger,
    messagesPath: paths.messages,
    keepAliveMs: deps.sseKeepAliveMs ?? DEFAULT_HEARTBEAT_MS,
  });

  // The gateway app parses JSON bodies already; this keeps the router usable on its own (it skips parsed bodies).
  const json = bodyParser({ enableTypes: ['json'], jsonLimit: MAX_MESSAGE_SIZE });
  const router = new Router<GatewayState>();

  router.post(paths.mcp, json, async (ctx) => {
    const user = await requireUser(ctx, deps.authenticate);
    await handleStatelessPost(ctx, user, ctx.request.body, { servers, logger: deps.logger });
  });
  router.get(paths.mcp, methodNotAllowed);
  router.delete(paths.mcp, methodNotAllowed);

  router.get(paths.sse, async (ctx) => {
    const user = await requireUser(ctx, deps.authenticate);
    await sessions.open(ctx, user);
  });

  router.post(paths.messages, json, async (ctx) => {
    const user = await requireUser(ctx, deps.authenticate);
    await sessions.post(ctx, user, ctx.request.body);
  });

  return {
    router,
    async close() {
      await sessions.closeAll();
      await relay.close();
    },
  };
}
