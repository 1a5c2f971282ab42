/**
 * MCP prompts, registered generically like tools and resources: a kind may declare `prompts`, each a
 * ready-made request for one of its workflows that expands to a user message. No actor runs.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { KindMcpSurface, PromptContract } from '../../actors/runtime/contract.js';

/** Collects every kind's prompts once, refusing undescribed or duplicate ones. */
export function promptCatalogue(kinds: KindMcpSurface[]): PromptContract[] {
  const seen = new Set<string>();
  const prompts: PromptContract[] = [];
  for (const kind of kinds) {
    for (const prompt of kind.prompts ?? []) {
      if (prompt.description.trim() === '') throw new Error(`prompt ${prompt.name} of kind ${kind.kind} has no description`);
      if (seen.has(prompt.name)) throw new Error(`prompt ${prompt.name} is declared twice`);
      seen.add(prompt.name);
      prompts.push(prompt);
    }
  }
  return prompts;
}

export function registerPrompts(server: McpServer, prompts: PromptContract[]): void {
  for (const prompt of prompts) {
    server.registerPrompt(
      prompt.name,
      { title: prompt.title, description: prompt.description, argsSchema: (prompt.args ?? {}) as Record<string, z.ZodType<string>> },
      (args: Record<string, string | undefined>): GetPromptResult => ({
        description: prompt.description,
        messages: [{ role: 'user', content: { type: 'text', text: prompt.text(args) } }],
      }),
    );
  }
}
