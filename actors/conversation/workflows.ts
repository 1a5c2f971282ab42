/** The coach's two workflows as /welcome describes them, with the tools each uses (filled from the MCP catalogue). */
import type { ToolInfo, WorkflowInfo } from './state.js';

const WORKFLOWS: Array<Omit<WorkflowInfo, 'tool_details'> & { tools: string[] }> = [
  {
    name: 'meta_research',
    description: 'Research a format: which archetypes are played and winning over a time window, how that changed, and how they fare against each other.',
    example_queries: ['What are the top Modern decks over the last two weeks?', 'Show me the Pioneer matchup matrix for the last 30 days', 'Which archetypes are there in Legacy?'],
    tools: ['get_format_meta_rankings', 'get_format_matchup_stats', 'get_format_archetypes'],
  },
  {
    name: 'deck_coaching',
    description: 'Coach your own deck: paste a list, pick its archetype, then see its matchups, a plan against an opponent, and main-deck and sideboard changes backed by tournament data.',
    example_queries: ['Here is my deck: (paste a decklist)', 'How do I beat the top archetype with my deck?', 'What should my sideboard look like?'],
    tools: ['get_enriched_deck', 'get_deck_matchup_stats', 'generate_deck_matchup_strategy', 'optimize_mainboard', 'optimize_sideboard'],
  },
];

/** The tools the coach uses; an MCP server's other tools (games, the coach itself) are not its business. */
export const COACH_TOOL_NAMES: ReadonlySet<string> = new Set(WORKFLOWS.flatMap((w) => w.tools));

/** Workflows with the details of the tools the MCP server actually offers (none when it is unreachable). */
export function workflowsWith(catalog: ToolInfo[]): WorkflowInfo[] {
  return WORKFLOWS.map(({ tools, ...workflow }) => ({ ...workflow, tool_details: catalog.filter((tool) => tools.includes(tool.name)) }));
}
