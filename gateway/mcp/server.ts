/**
 * The MCP server troupe exposes: the kinds' tools, resources and prompts, bound to one
 * authenticated user. Transports build one per stateless request or per SSE session; building is cheap
 * because the catalogue (schemas, name checks) is compiled once.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import packageJson from '../../package.json' with { type: 'json' };
import type { AnyKind, Logger } from '../../actors/runtime/contract.js';
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

export function mcpCatalogue(kinds: AnyKind[]): McpCatalogue {
  return { tools: toolCatalogue(kinds), resources: resourceCatalogue(kinds), prompts: promptCatalogue(kinds) };
}

export interface McpServerDeps extends ToolDeps {
  logger: Logger;
}

export function buildMcpServer(catalogue: McpCatalogue, deps: McpServerDeps, user: McpUser): McpServer {
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
  registerTools(server, catalogue.tools, deps, user);
  registerResources(server, catalogue.resources, deps, user);
  registerPrompts(server, catalogue.prompts);
  return server;
}
