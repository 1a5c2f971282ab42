/**
 * What the coach says without tools: prompts for a missing input (the blocking rules), help for a
 * message it cannot place, the welcome, and the system prompt a model works under. Pure.
 */
import type { Block } from './plan.js';
import type { ConversationState, WelcomeInfo, WorkflowInfo } from './state.js';

const TOOL_NAMES: Record<string, string> = {
  get_format_meta_rankings: 'the meta rankings',
  get_format_matchup_stats: 'the matchup matrix',
  get_format_archetypes: 'the archetype list',
  get_enriched_deck: 'your deck',
  get_deck_matchup_stats: 'your deck’s matchups',
  generate_deck_matchup_strategy: 'a matchup strategy',
  optimize_mainboard: 'main-deck advice',
  optimize_sideboard: 'sideboard advice',
};

const list = (items: string[]) => items.map((item) => `- ${item}`).join('\n');

/** The prompt for the first missing input; no tool was called for it. */
export function blockPrompt(block: Block): string {
  const wanted = block.tool ? TOOL_NAMES[block.tool] ?? block.tool : 'that';
  switch (block.missing) {
    case 'format':
      return `Which format should I look at? Pick one from the format dropdown (or name it in your message) before I fetch ${wanted}. Formats with data:\n${list(block.suggestions)}`;
    case 'current_days':
      return `Over how many days should I look? Set the meta days slider (or say, for example, "the last 14 days") before I fetch ${wanted}; I will not assume a window for you. Common choices: ${block.suggestions.join(', ')} days.`;
    case 'deck':
      return `To give you ${wanted} I need your deck first. Paste your decklist (MTGO, Arena or Moxfield export, sideboard after a blank line or "Sideboard").`;
    case 'archetype':
      return `Which archetype is your deck? Pick it from the archetype dropdown before I work on ${wanted}.${block.suggestions.length ? ` The most played right now:\n${list(block.suggestions)}` : ''}`;
    case 'opponent':
      return `Which opponent should the strategy be against? Name an archetype${block.suggestions.length ? `, for example:\n${list(block.suggestions)}` : '.'}`;
  }
}

/** After a deck is parsed without an archetype selected. */
export function archetypeAfterDeck(suggestions: string[]): string {
  return `Now pick your deck’s archetype from the archetype dropdown, so I can compare it with the tournament data.${suggestions.length ? ` The most played right now:\n${list(suggestions)}` : ''}`;
}

/** For a message that is neither meta research nor deck coaching. */
export function helpText(state: ConversationState, workflows: WorkflowInfo[]): string {
  const lines = workflows.map((w) => `- **${w.name === 'meta_research' ? 'Meta research' : 'Deck coaching'}**: ${w.description} For example: “${w.example_queries[0]}”`);
  const where = state.format ? `We are looking at ${state.format}${state.current_days ? ` over the last ${state.current_days} days` : ''}.` : 'Start by choosing a format.';
  return `I can help with two things:\n${lines.join('\n')}\n\n${where}`;
}

/** The welcome, from templates (the offline narrator adds its notice). */
export function welcomeText(info: WelcomeInfo, mcpProblem: string | undefined): string {
  const tools = info.tool_catalog.length;
  const toolLine = mcpProblem
    ? `My tools are unavailable right now (${mcpProblem}), so I cannot fetch tournament data until they are back.`
    : `I work from real tournament results through ${tools} tools.`;
  const workflows = info.workflows.map((w) => `- **${w.name === 'meta_research' ? 'Meta research' : 'Deck coaching'}**: ${w.description}\n  Try: “${w.example_queries.join('”, “')}”`);
  return `Welcome! I am your Magic: The Gathering meta and deck coach. ${toolLine}\n\n${workflows.join('\n')}\n\nFormats with data: ${info.available_formats.join(', ') || 'none loaded yet'}. Pick a format and a time window to begin.`;
}

/** The system prompt of the model: the session, the tools and the rules it works within. */
export function systemPrompt(state: ConversationState): string {
  const session = [
    `format: ${state.format ?? 'not chosen'}`,
    `current_days: ${state.current_days ?? 'not chosen'}`,
    `previous_days: ${state.previous_days ?? state.current_days ?? 'not chosen'}`,
    `archetype: ${state.archetype ?? 'not chosen'}`,
    `deck: ${state.card_details ? `${state.card_details.reduce((n, c) => n + c.quantity, 0)} cards parsed` : 'not provided'}`,
    `matchup stats: ${state.matchup_stats ? `for ${state.matchup_stats.archetype}` : 'not fetched'}`,
    `last meta results: ${state.meta ? `${state.meta.format}, ${state.meta.days} days, leaders ${state.meta.top.slice(0, 5).map((a) => `${a.name} ${a.meta_share}%`).join(', ')}` : 'none'}`,
  ];
  const catalog = state.welcome?.tool_catalog.map((t) => `- ${t.name}: ${t.description}`).join('\n') ?? '';
  return [
    'You are an experienced Magic: The Gathering coach helping a player with meta research and deck coaching, using tools over real tournament data.',
    'Call tools to get facts; never invent cards, archetypes or statistics. Every number you state must come from a tool result in this conversation.',
    'The session supplies format, days, archetype, the parsed deck (card_details), matchup stats and top_n to the tools: do not ask for or pass them yourself. If something is missing, the system asks the user for it.',
    'Write for a player: conversational, concise, Markdown allowed. Never show raw JSON.',
    '',
    'Session:',
    ...session.map((line) => `- ${line}`),
    ...(catalog ? ['', 'Tools (from the MCP server):', catalog] : []),
  ].join('\n');
}
