/**
 * Idle MCP servers for the stateless endpoint. A stateless request needs a transport of its own, but
 * not a server of its own: a server closed after its request can be connected to the next one. Taking
 * a server from here instead of building one spares each request registering every tool, resource and
 * prompt again (the tool handlers find their caller in the request's auth info, see
 * `callerFromAuthInfo`). Servers in use are not held; at most `maxIdle` wait here.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export const DEFAULT_MAX_IDLE_SERVERS = 64;

export class McpServerPool {
  private readonly idle: McpServer[] = [];

  constructor(
    private readonly build: () => McpServer,
    private readonly maxIdle = DEFAULT_MAX_IDLE_SERVERS,
  ) {}

  /** An idle server, or a new one when none waits. */
  take(): McpServer {
    return this.idle.pop() ?? this.build();
  }

  /** Closes the server's connection (aborting calls still running) and keeps it for the next request. */
  async giveBack(server: McpServer): Promise<void> {
    await server.close();
    if (this.idle.length < this.maxIdle) this.idle.push(server);
  }

  /** Servers waiting to be taken (for tests). */
  get idleCount(): number {
    return this.idle.length;
  }
}
