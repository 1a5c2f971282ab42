import type { Connection } from 'mongoose';
import { embedderFor } from '../actors/documents/embeddings.js';
import { createChatModel } from '../actors/llm/chat-model.js';
import { createNarrator } from '../actors/llm/narrator.js';
import { mcpEndpoint } from '../actors/mcp/delegated-endpoint.js';
import type { WorkerOptions } from '../actors/runtime/workers.js';
import type { Config } from './config.js';

/**
 * What workers lend agents and tools: the configured language model (as narrator and as chat model),
 * the MCP server agents call tools on, the embeddings provider and the scouting gate timeout. `gatewayUrl` says where this process's own gateway listens
 * (`troupe start`), known only once it does; a worker alone uses GATEWAY_URL.
 */
export async function agentResources(
  config: Config,
  mongo: Connection,
  gatewayUrl: () => string | undefined = () => config.agents.gatewayUrl,
): Promise<Pick<WorkerOptions, 'narrator' | 'chatModel' | 'mcp' | 'embedder' | 'gateTimeoutMs' | 'mail'>> {
  const { mcpUrl, mcpHeader } = config.agents;
  return {
    embedder: config.scouting.embeddings ? embedderFor(config.scouting.embeddings) : null,
    gateTimeoutMs: config.scouting.gateTimeoutMs,
    mail: config.mail.settings,
    narrator: await createNarrator(config.llm),
    chatModel: await createChatModel(config.llm),
    mcp: mcpEndpoint(mongo, mcpUrl ? { own: false, url: mcpUrl, header: mcpHeader } : { own: true, gatewayUrl }),
  };
}
