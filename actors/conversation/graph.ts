/**
 * The deck coach as a LangGraph StateGraph:
 *
 *   route ─┬─ (offline) plan ─┐
 *          └─ (model) agent ──┴─ gate ─ tools ─┬─ (model) agent …
 *                                              └─ answer ─ END
 *   route / agent ─ answer  (nothing to call: help, or the model's final text)
 *
 * route reads the message (workflow, format, window, deck, archetype); plan (the deterministic policy)
 * or agent (a chat model with the MCP tools bound) proposes tool calls; gate applies the spec's
 * blocking dependencies; tools calls the MCP server; answer writes the reply (the model's text, or the
 * narrator's from the tool results). Nodes stream the spec's events through the graph's custom stream.
 * The graph's state starts from the actor's committed state each turn and the actor commits its end:
 * no checkpointer, so a re-run turn after a crash starts from the last commit and adds nothing twice.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { Annotation, END, START, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import type { Narrator } from '../llm/narration.js';
import { OFFLINE_NOTICE } from '../llm/offline-narrator.js';
import { archetypesIn, daysIn, formatIn, routeIntent } from './intent.js';
import type { ConnectedTools } from './mcp-tools.js';
import { archetypeSuggestions, argsFor, gate, knownNames, offlinePlan, SESSION_ARGS, type Block, type Gated, type ToolCall } from './plan.js';
import { archetypeAfterDeck, blockPrompt, helpText, systemPrompt } from './prompts.js';
import { switchedFormat, type ChatEntry, type ConversationState, type Workflow } from './state.js';
import { applyToolResult } from './tool-results.js';
import { describeOutcomes, toolSummary, type MetaToolName, type ToolOutcome } from './tool-prose.js';
import { workflowsWith } from './workflows.js';

/** Model → tools rounds in one turn before the model must answer. */
const MAX_MODEL_ROUNDS = 4;
/** How much of a tool result a model sees (the full result goes to the state and the narrator). */
const RESULT_CHARS_FOR_MODEL = 8_000;

export interface TurnInput {
  message: string;
  messageId: string;
  /** Deck text given with this message (context or pasted in it). */
  deckGiven: boolean;
  /** Formats with data, as the data spells them. */
  formats: string[];
  at: string;
}

/** What a turn runs with; passed in `configurable.coach`. */
export interface CoachDeps {
  /** The tools, connected on first use (a turn that needs none never connects). */
  tools: () => Promise<ConnectedTools>;
  chatModel: BaseChatModel | null;
  narrator: Narrator;
  signal: AbortSignal;
}

/** An event for the client (`thinking`, `tool_call`, `content`), written to the graph's custom stream. */
export interface CoachEvent {
  event: string;
  data: Record<string, unknown>;
}

export const CoachState = Annotation.Root({
  conversation: Annotation<ConversationState>(),
  input: Annotation<TurnInput>(),
  mode: Annotation<'model' | 'offline'>(),
  workflow: Annotation<Workflow>(),
  proposed: Annotation<ToolCall[]>(),
  gated: Annotation<Gated | null>(),
  outcomes: Annotation<ToolOutcome[]>(),
  /** The model's working messages this turn (not persisted; the history is). */
  working: Annotation<BaseMessage[]>(),
  rounds: Annotation<number>(),
  /** Text already streamed as content this turn. */
  streamed: Annotation<string>(),
  notes: Annotation<string[]>(),
  toolMs: Annotation<number>(),
});
export type CoachStateType = typeof CoachState.State;

const depsOf = (config: LangGraphRunnableConfig): CoachDeps => (config.configurable as { coach: CoachDeps }).coach;
const write = (config: LangGraphRunnableConfig, event: string, data: Record<string, unknown>) => config.writer?.({ event, data } satisfies CoachEvent);

/** Splits text into content chunks a line at a time (what a client renders as it arrives). */
export function contentChunks(text: string): string[] {
  return text.match(/[^\n]*\n+|[^\n]+$/g) ?? [];
}

function route(state: CoachStateType, config: LangGraphRunnableConfig): Partial<CoachStateType> {
  const { input } = state;
  const conversation = { ...state.conversation };
  const found: string[] = [];
  const format = formatIn(input.message, input.formats);
  if (format && format !== conversation.format) {
    Object.assign(conversation, switchedFormat(format));
    found.push(`format ${format}`);
  }
  const days = daysIn(input.message);
  if (days !== undefined) {
    conversation.current_days = days;
    found.push(`a ${days}-day window`);
  }
  const own = /\b(i(?:'m| am) (?:playing|on)|my (?:deck|archetype) is)\b(.*)/i.exec(input.message);
  const ownArchetype = own ? archetypesIn(own[2]!, knownNames(conversation))[0] : undefined;
  if (ownArchetype) {
    conversation.archetype = ownArchetype;
    found.push(`your archetype ${ownArchetype}`);
  }
  const workflow = routeIntent(input.message, input.deckGiven, conversation.current_workflow, found.length > 0);
  if (workflow !== 'unknown') conversation.current_workflow = workflow;
  const entry: ChatEntry = { role: 'user', content: input.message, at: input.at, message_id: input.messageId };
  conversation.messages = [...conversation.messages, entry];
  const reading = workflow === 'unknown' ? 'not clearly meta research or deck coaching' : workflow === 'meta_research' ? 'meta research' : 'deck coaching';
  write(config, 'thinking', { content: `Reading your message: ${reading}${found.length ? `; you named ${found.join(', ')}` : ''}.`, workflow });
  return { conversation, workflow };
}

function plan(state: CoachStateType): Partial<CoachStateType> {
  return { proposed: offlinePlan(state.conversation, state.input.message, state.workflow, state.input.deckGiven) };
}

async function agent(state: CoachStateType, config: LangGraphRunnableConfig): Promise<Partial<CoachStateType>> {
  const deps = depsOf(config);
  const model = deps.chatModel!;
  // Unreachable tools end the turn with `unavailable` (as offline): a model without them would answer from nothing.
  const tools: ConnectedTools | undefined = state.rounds < MAX_MODEL_ROUNDS ? await deps.tools() : undefined;
  const working = state.working.length ? state.working : [new SystemMessage(systemPrompt(state.conversation)), ...historyMessages(state.conversation)];
  const bound = tools && model.bindTools ? model.bindTools(toolDefinitions(tools)) : model;
  let reply: AIMessageChunk | undefined;
  let streamed = state.streamed;
  try {
    for await (const chunk of await bound.stream(working, { signal: deps.signal })) {
      reply = reply ? reply.concat(chunk) : chunk;
      const text = textOf(chunk.content);
      if (text) {
        streamed += text;
        write(config, 'content', { text });
      }
    }
  } catch (error) {
    if (deps.signal.aborted) throw error;
    // The answer still comes: from the deterministic policy, with a note saying why.
    const note = `The language model failed (${error instanceof Error ? error.message : String(error)}), so this answer was put together without it.`;
    write(config, 'thinking', { content: note });
    return { mode: 'offline', notes: [...state.notes, note] };
  }
  const message = new AIMessage({ content: reply?.content ?? '', tool_calls: reply?.tool_calls ?? [] });
  const calls = (message.tool_calls ?? []).map((call) => ({ tool: call.name as MetaToolName, args: call.args as Record<string, unknown>, id: call.id }));
  if (calls.length) write(config, 'thinking', { content: `The model chose ${calls.map((c) => c.tool).join(', ')}.` });
  return { working: [...working, message], proposed: calls, rounds: state.rounds + 1, streamed };
}

function gateNode(state: CoachStateType, config: LangGraphRunnableConfig): Partial<CoachStateType> {
  const gated = gate(state.conversation, state.proposed, state.input.formats);
  if (gated.block) write(config, 'thinking', { content: `Cannot call ${gated.block.tool ?? 'the tools'} yet: ${gated.block.missing.replace('_', ' ')} is missing.` });
  const inserted = gated.calls.filter((call) => !state.proposed.includes(call));
  if (inserted.length) write(config, 'thinking', { content: `First fetching ${inserted.map((c) => c.tool).join(', ')}, which the next step needs.` });
  return { gated };
}

async function tools(state: CoachStateType, config: LangGraphRunnableConfig): Promise<Partial<CoachStateType>> {
  const deps = depsOf(config);
  let conversation = state.conversation;
  const outcomes = [...state.outcomes];
  const working = [...state.working];
  let block: Block | null = state.gated?.block ?? null;
  let toolMs = state.toolMs;
  const connected = await deps.tools();
  for (const call of state.gated?.calls ?? []) {
    const built = argsFor(conversation, call);
    if ('missing' in built) {
      block = { missing: built.missing, tool: call.tool, suggestions: archetypeSuggestions(conversation).filter((a) => a !== conversation.archetype) };
      break;
    }
    const { args } = built;
    write(config, 'tool_call', { status: 'calling', tool: call.tool, args: shownArgs(args) });
    const started = performance.now();
    let outcome: ToolOutcome;
    try {
      const result = await connected.call(call.tool, args, deps.signal);
      outcome = { tool: call.tool, args, result };
      conversation = applyToolResult(conversation, call.tool, args, result);
    } catch (error) {
      if (deps.signal.aborted) throw error;
      outcome = { tool: call.tool, args, error: toolErrorText(error) };
    }
    toolMs += performance.now() - started;
    outcomes.push(outcome);
    write(config, 'tool_call', outcome.error === undefined ? { status: 'complete', tool: call.tool, summary: toolSummary(outcome) } : { status: 'error', tool: call.tool, error: outcome.error });
    const id = (call as ToolCall & { id?: string }).id;
    if (state.mode === 'model' && id) working.push(new ToolMessage({ tool_call_id: id, content: forModel(outcome) }));
  }
  const gated = state.gated ? { ...state.gated, block } : null;
  return { conversation, outcomes, working, gated, toolMs };
}

async function answer(state: CoachStateType, config: LangGraphRunnableConfig): Promise<Partial<CoachStateType>> {
  const deps = depsOf(config);
  const { conversation } = state;
  const parts: string[] = [];
  const block = state.gated?.block ?? null;
  const parsedDeck = state.outcomes.some((o) => o.tool === 'get_enriched_deck' && o.error === undefined);
  if (parsedDeck && !conversation.archetype && block?.missing !== 'archetype') parts.push(archetypeAfterDeck(archetypeSuggestions(conversation)));
  if (block) parts.push(blockPrompt(block));
  let text: string;
  if (state.mode === 'model' && state.streamed.trim()) {
    // The model's answer is out already; what the rules add follows it.
    text = parts.length ? `\n\n${parts.join('\n\n')}` : '';
  } else {
    // The tools' own offline prose carries the notice too; the narrator adds it once.
    const body = state.outcomes.length ? describeOutcomes(state.outcomes).split(`\n\n${OFFLINE_NOTICE}`).join('').split(OFFLINE_NOTICE).join('').trim() : '';
    const help = !state.outcomes.length && !block && parts.length === 0 ? helpText(conversation, conversation.welcome?.workflows ?? workflowsWith([])) : '';
    const fallback = [...state.notes, body, ...parts, help].filter(Boolean).join('\n\n');
    const narration = await deps.narrator.narrate({ task: 'coach_answer', instructions: 'Answer the player from these tool results.', facts: state.outcomes, fallback }, deps.signal).catch(() => ({ text: fallback }));
    text = narration.text;
  }
  for (const chunk of contentChunks(text)) write(config, 'content', { text: chunk });
  const full = `${state.streamed}${text}`.trim();
  const entry: ChatEntry = { role: 'assistant', content: full, at: new Date().toISOString(), message_id: state.input.messageId };
  return { conversation: { ...conversation, messages: [...conversation.messages, entry] }, streamed: full };
}

const afterRoute = (state: CoachStateType) => (state.mode === 'model' ? 'agent' : 'plan');
const afterAgent = (state: CoachStateType) => (state.mode === 'offline' ? 'plan' : state.proposed.length ? 'gate' : 'answer');
const afterGate = (state: CoachStateType) => (state.gated?.calls.length ? 'tools' : 'answer');
const afterTools = (state: CoachStateType) => (state.mode === 'model' && !state.gated?.block ? 'agent' : 'answer');

export const coachGraph = new StateGraph(CoachState)
  .addNode('route', route)
  .addNode('plan', plan)
  .addNode('agent', agent)
  .addNode('gate', gateNode)
  .addNode('tools', tools)
  .addNode('answer', answer)
  .addEdge(START, 'route')
  .addConditionalEdges('route', afterRoute, ['plan', 'agent'])
  .addEdge('plan', 'gate')
  .addConditionalEdges('agent', afterAgent, ['plan', 'gate', 'answer'])
  .addConditionalEdges('gate', afterGate, ['tools', 'answer'])
  .addConditionalEdges('tools', afterTools, ['agent', 'answer'])
  .addEdge('answer', END)
  .compile();

/** The start of a turn's graph state. */
export function turnStart(conversation: ConversationState, input: TurnInput, chatModel: BaseChatModel | null): CoachStateType {
  return {
    conversation,
    input,
    mode: chatModel ? 'model' : 'offline',
    workflow: 'unknown',
    proposed: [],
    gated: null,
    outcomes: [],
    working: [],
    rounds: 0,
    streamed: '',
    notes: [],
    toolMs: 0,
  };
}

function historyMessages(state: ConversationState): BaseMessage[] {
  return state.messages.slice(-20).map((m) => (m.role === 'user' ? new HumanMessage(m.content) : new AIMessage(m.content)));
}

/** The tools as a model sees them: session fields left out of their inputs (the session supplies them). */
function toolDefinitions(connected: ConnectedTools) {
  return connected.catalog.map((tool) => {
    const schema = connected.schemas.get(tool.name) ?? { type: 'object', properties: {} };
    const properties = { ...((schema.properties as Record<string, unknown>) ?? {}) };
    for (const key of SESSION_ARGS) delete properties[key];
    const required = ((schema.required as string[] | undefined) ?? []).filter((key) => key in properties);
    return { type: 'function' as const, function: { name: tool.name, description: tool.description, parameters: { type: 'object', properties, required } } };
  });
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof part === 'string' ? part : (part as { type?: string; text?: string }).type === 'text' ? (part as { text: string }).text : '')).join('');
}

/** Arguments as the client sees them: the deck as a card count, not 60 objects. */
function shownArgs(args: Record<string, unknown>): Record<string, unknown> {
  const shown = { ...args };
  if (Array.isArray(shown.card_details)) shown.card_details = `${(shown.card_details as Array<{ quantity?: number }>).reduce((n, c) => n + (c.quantity ?? 0), 0)} cards`;
  if (typeof shown.deck === 'string') shown.deck = `${shown.deck.split(/\r?\n/).filter((l) => l.trim()).length} lines`;
  return shown;
}

function forModel(outcome: ToolOutcome): string {
  if (outcome.error !== undefined) return `Error: ${outcome.error}`;
  const json = JSON.stringify(outcome.result);
  return json.length > RESULT_CHARS_FOR_MODEL ? `${json.slice(0, RESULT_CHARS_FOR_MODEL)}… (cut; summary: ${toolSummary(outcome)})` : json;
}

/** The tool's own words, without the adapter's "MCP tool 'x' on server 'y' returned an error:" prefix. */
function toolErrorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^MCP tool '[^']*' on server '[^']*' returned an error:\s*/, '').slice(0, 500);
}

