/**
 * The MCP server troupe exposes: the kinds' tools, resources and prompts. Who calls is resolved per
 * request (`CallerOf`): an SSE session's server serves its one user; the stateless endpoint's servers
 * are pooled and take the user from the request's auth info (see server-pool.ts). The catalogue
 * (schemas, name checks) is compiled once per process.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import packageJson from '../../package.json' with { type: 'json' };
import type { KindMcpSurface, Logger } from '../../actors/runtime/contract.js';
import type { McpUser } from '../actor-call.js';
import type { PromptContract } from '../../actors/runtime/contract.js';
import { promptCatalogue, registerPrompts } from './prompts.js';
import { registerResources, resourceCatalogue, type CatalogueResource } from './resources.js';
import { registerTools, toolCatalogue, type CatalogueTool, type ToolDeps } from './tools.js';

export const SERVER_DESCRIPTION =
  'troupe: actors on a message broker. Each tool sends one message to an actor (a game, a conversation, a ' +
  'scouting run, an inbox) and returns its reply; long calls report progress.';

/** Upper bound on the values in one tool call's arguments: a deep or huge payload is refused before parsing. */
const MAX_TOOL_INPUT_ELEMENTS = 10_000;

export interface McpCatalogue {
  tools: CatalogueTool[];
  resources: CatalogueResource[];
  prompts: PromptContract[];
}

export function mcpCatalogue(kinds: KindMcpSurface[]): McpCatalogue {
  return { tools: toolCatalogue(kinds), resources: resourceCatalogue(kinds), prompts: promptCatalogue(kinds) };
}

export interface McpServerDeps extends ToolDeps {
  logger: Logger;
}

/** Who made a request, from what the transport passed along with it. */
export type CallerOf = (extra: { authInfo?: AuthInfo }) => McpUser;

/** The caller of a server that serves one user (an SSE session). */
export const fixedCaller =
  (user: McpUser): CallerOf =>
  () =>
    user;

/** The caller the gateway put into the request's auth info (`withCaller`), for servers shared by users. */
export const callerFromAuthInfo: CallerOf = (extra) => {
  const user = extra.authInfo?.extra?.[CALLER_KEY] as McpUser | undefined;
  // The gateway authenticates before any MCP handling: a request without a caller is a bug, not a guest.
  if (!user) throw new Error('an MCP request reached a shared server without its authenticated caller');
  return user;
};

const CALLER_KEY = 'troupeUser';

/** Auth info carrying the authenticated caller, as the SDK's transports read it from `req.auth`. */
export const withCaller = (user: McpUser): AuthInfo => ({ token: '', clientId: user.id, scopes: [], extra: { [CALLER_KEY]: user } });

export function buildMcpServer(catalogue: McpCatalogue, deps: McpServerDeps, callerOf: CallerOf): McpServer {
  const server = new McpServer(
    { name: 'troupe', title: 'troupe', version: packageJson.version, description: SERVER_DESCRIPTION },
    {
      // Declared up front so tools/list, resources/list and prompts/list answer (with empty lists) even
      // when nothing of that sort is registered; conformance clients call all three.
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions: SERVER_DESCRIPTION,
      maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS,
    },
  );
  registerTools(server, catalogue.tools, deps, callerOf);
  registerResources(server, catalogue.resources, deps, callerOf);
  registerPrompts(server, catalogue.prompts);
  return server;
}
