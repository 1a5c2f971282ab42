/**
 * The legacy HTTP+SSE transport (protocol 2024-11-05, the SDK's deprecated SSEServerTransport), kept for
 * older clients: `GET /sse` opens a session's stream (the first event names the POST endpoint with the
 * session id), `POST /messages?sessionId=…` delivers client messages. The stream lives in the process
 * that answered the GET; a POST that lands on another process is relayed to it (session-relay.ts).
 */
import type { Context } from 'koa';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Logger } from '../../actors/runtime/contract.js';
import { ApiError } from '../error-response.js';
import type { McpUser } from '../actor-call.js';
import { buildMcpServer, fixedCaller, type McpCatalogue, type McpServerDeps } from './server.js';
import type { RelayedMessage, SessionRelay } from './session-relay.js';

const SessionId = z.string().uuid();

export interface LegacySseOptions {
  catalogue: McpCatalogue;
  serverDeps: McpServerDeps;
  relay: SessionRelay;
  logger: Logger;
  /** The POST endpoint as clients must call it (including any prefix the router is mounted under). */
  messagesPath: string;
  /** Interval of keep-alive comments on idle streams (ms); 0 turns them off. */
  keepAliveMs: number;
}

interface HeldSession {
  transport: SSEServerTransport;
  userId: string;
}

export class LegacySseSessions {
  private readonly sessions = new Map<string, HeldSession>();

  constructor(private readonly options: LegacySseOptions) {}

  /** GET /sse: opens the stream; the session lives until the client disconnects. */
  async open(ctx: Context, user: McpUser): Promise<void> {
    const { logger, relay } = this.options;
    const transport = new SSEServerTransport(this.options.messagesPath, ctx.res);
    const { sessionId } = transport;
    const server = buildMcpServer(this.options.catalogue, this.options.serverDeps, fixedCaller(user));
    this.sessions.set(sessionId, { transport, userId: user.id });
    // Subscribed before the endpoint event goes out, so a POST elsewhere right after it finds the session.
    try {
      await relay.hold(sessionId, (relayed) => this.deliverRelayed(sessionId, relayed));
    } catch (err) {
      this.sessions.delete(sessionId);
      throw err;
    }
    let keepAlive: ReturnType<typeof setInterval> | undefined;
    // Runs before the server's own close handling, which aborts the session's tool calls; closing the
    // server from here would close the transport again and recurse.
    transport.onclose = () => {
      clearInterval(keepAlive);
      if (this.sessions.get(sessionId)?.transport !== transport) return;
      this.sessions.delete(sessionId);
      void relay.release(sessionId);
      logger.debug({ sessionId }, 'MCP SSE session closed');
    };
    transport.onerror = (err) => logger.warn({ err, sessionId }, 'MCP SSE session error');
    ctx.respond = false;
    await server.connect(transport);
    // A client that left while we subscribed never triggers the transport's own 'close' listener.
    if (ctx.res.destroyed) {
      await transport.close();
      return;
    }
    if (this.options.keepAliveMs > 0) {
      // The SDK's SSE transport sends nothing while idle; proxies drop silent connections after 30-60 s.
      keepAlive = setInterval(() => ctx.res.writableEnded || ctx.res.write(': keepalive\n\n'), this.options.keepAliveMs);
      keepAlive.unref();
    }
    logger.debug({ sessionId, userId: user.id }, 'MCP SSE session opened');
  }

  /** POST /messages: hands the message to the session here, or relays it to the process holding it. */
  async post(ctx: Context, user: McpUser, body: unknown): Promise<void> {
    const sessionId = SessionId.safeParse(ctx.query.sessionId);
    if (!sessionId.success) throw new ApiError(400, 'bad_request', 'sessionId query parameter must be the id the SSE stream announced');
    const message = JSONRPCMessageSchema.safeParse(body);
    if (!message.success) throw new ApiError(400, 'bad_request', 'the body is not a JSON-RPC message', { issues: message.error.issues });
    const local = this.sessions.get(sessionId.data);
    if (local) {
      if (local.userId !== user.id) throw notFound(sessionId.data);
      await local.transport.handleMessage(message.data, { requestInfo: { headers: ctx.req.headers } });
    } else {
      const receivers = await this.options.relay.deliver(sessionId.data, { userId: user.id, message: message.data });
      if (receivers === 0) throw notFound(sessionId.data);
    }
    ctx.status = 202;
    ctx.body = 'Accepted';
  }

  /** Ends every session this process holds (shutdown). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
  }

  private deliverRelayed(sessionId: string, relayed: RelayedMessage) {
    const held = this.sessions.get(sessionId);
    // Another user's POST for this session id is dropped: sessions are bound to the key that opened them.
    if (!held || held.userId !== relayed.userId) {
      this.options.logger.warn({ sessionId }, 'relayed MCP message for a session of another user dropped');
      return;
    }
    held.transport.handleMessage(relayed.message).catch((err: unknown) => this.options.logger.warn({ err, sessionId }, 'relayed MCP message rejected'));
  }
}

const notFound = (sessionId: string) => new ApiError(404, 'not_found', `no MCP SSE session ${sessionId}`, { sessionId });
