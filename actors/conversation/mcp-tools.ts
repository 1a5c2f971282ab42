/**
 * The coach's tools, over MCP as a real client: `@langchain/mcp-adapters` MultiServerMCPClient with
 * the streamable-HTTP transport (named "http" in JS), at the worker's MCP endpoint, authenticated as
 * the conversation's owner. A connected client is kept per (URL, credentials) for a few minutes, so a
 * turn does not pay for the handshake and tools/list; the server is stateless, so a kept client stays
 * valid. A failure to connect is `McpUnavailable`, with the reason.
 */
import type { DynamicStructuredTool } from '@langchain/core/tools';
import type { MultiServerMCPClient } from '@langchain/mcp-adapters';
import type { McpEndpoint } from '../runtime/contract.js';
import type { ToolInfo } from './state.js';
import { COACH_TOOL_NAMES } from './workflows.js';

const SERVER = 'troupe';
const CLIENT_TTL_MS = 5 * 60 * 1000;
const CLIENTS_KEPT = 200;
/** A tool call taking longer is abandoned (the meta tools answer in well under a second). */
export const TOOL_TIMEOUT_MS = 60_000;

export class McpUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpUnavailable';
  }
}

export interface ConnectedTools {
  catalog: ToolInfo[];
  /** JSON schemas of the tools' inputs, by name (for binding a model). */
  schemas: Map<string, Record<string, unknown>>;
  /** Calls a tool; resolves with its structuredContent, rejects with the tool's error text. */
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
}

interface Held {
  tools: Promise<ConnectedTools>;
  client: MultiServerMCPClient;
  until: number;
}

const held = new WeakMap<McpEndpoint, Map<string, Held>>();

/** The endpoint's tools for `userId`, connecting (initialize + tools/list) only when no kept client fits. */
export async function toolsFor(endpoint: McpEndpoint, userId: string): Promise<ConnectedTools> {
  const url = endpoint.url();
  if (!url) throw new McpUnavailable('no MCP server is configured for agents (set COACH_MCP_URL or GATEWAY_URL)');
  const headers = await endpoint.headersFor(userId);
  // Imported on the first coach turn, not at start: the adapters bring LangChain's core with them.
  const { MultiServerMCPClient } = await import('@langchain/mcp-adapters');
  const key = `${url}\n${JSON.stringify(headers)}`;
  let clients = held.get(endpoint);
  if (!clients) held.set(endpoint, (clients = new Map()));
  const now = Date.now();
  const kept = clients.get(key);
  if (kept && kept.until > now) return kept.tools;
  if (kept) void kept.client.close().catch(() => undefined);
  if (clients.size >= CLIENTS_KEPT) {
    for (const old of clients.values()) void old.client.close().catch(() => undefined);
    clients.clear();
  }
  const client = new MultiServerMCPClient({
    mcpServers: { [SERVER]: { transport: 'http', url, headers, automaticSSEFallback: false, defaultToolTimeout: TOOL_TIMEOUT_MS } },
    throwOnLoadError: true,
    onConnectionError: 'throw',
  });
  const entry: Held = { client, until: now + CLIENT_TTL_MS, tools: connect(client, url) };
  clients.set(key, entry);
  entry.tools.catch(() => {
    if (clients.get(key) === entry) clients.delete(key);
    void client.close().catch(() => undefined);
  });
  return entry.tools;
}

async function connect(client: MultiServerMCPClient, url: string): Promise<ConnectedTools> {
  let tools: DynamicStructuredTool[];
  try {
    tools = (await client.getTools()).filter((tool) => COACH_TOOL_NAMES.has(tool.name));
  } catch (error) {
    throw new McpUnavailable(`the MCP server at ${url} is unreachable or refused the connection: ${reasonOf(error)}`);
  }
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    catalog: tools.map((tool) => ({ name: tool.name, description: tool.description })),
    schemas: new Map(tools.map((tool) => [tool.name, jsonSchemaOf(tool.schema)])),
    async call(name, args, signal) {
      const tool = byName.get(name);
      if (!tool) throw new Error(`the MCP server offers no tool ${name}`);
      const message = await tool.invoke({ type: 'tool_call', id: `call-${name}`, name, args }, { signal });
      return structuredOf(message);
    },
  };
}

/** structuredContent from the ToolMessage's artifact; else the text, parsed when it is JSON. */
function structuredOf(message: unknown): unknown {
  const { artifact, content } = (message ?? {}) as { artifact?: unknown; content?: unknown };
  if (Array.isArray(artifact)) {
    const structured = artifact.find((a) => (a as { type?: unknown })?.type === 'mcp_structured_content') as { data?: unknown } | undefined;
    if (structured) return structured.data;
  }
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((c) => (c as { text?: string }).text ?? '').join('') : '';
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function jsonSchemaOf(schema: unknown): Record<string, unknown> {
  return schema && typeof schema === 'object' && 'properties' in schema ? (schema as Record<string, unknown>) : { type: 'object', properties: {} };
}

export function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${message}${cause}`.replace(/Bearer\s+\S+/g, 'Bearer ***').slice(0, 300);
}
