/**
 * The deck-coach conversation actor: one actor per conversation, running the coach graph for each
 * chat message and committing the conversation the graph ends with. Its events are the spec's SSE
 * events (metadata, thinking, tool_call, content, state); the reply is the answer with the state.
 */
import { actorStates } from '../../models/actor-record.js';
import { MetaQueries } from '../meta/meta-queries.js';
import { RequestError, type ActorKind, type ServiceKind, type TurnContext } from '../runtime/contract.js';
import { cancels, CONVERSATION_KIND, CONVERSATION_LIST_KIND, http, listMessages, messages, reads, tools, type ChatPayload } from './contract.js';
import type { CoachDeps, CoachEvent, CoachStateType } from './graph.js';
import { looksLikeDeck } from './intent.js';
import { McpUnavailable, reasonOf, toolsFor, type ConnectedTools } from './mcp-tools.js';
import { welcomeText } from './prompts.js';
import { conversationSummary, initialConversation, switchedFormat, uiState, type ConversationState, type WelcomeInfo } from './state.js';
import { workflowsWith } from './workflows.js';

const LIST_LIMIT = 100;
/** Formats change only when data loads: a worker asks MongoDB at most this often. */
const FORMATS_TTL_MS = 60_000;
const formatsCache = new WeakMap<object, { formats: Promise<string[]>; until: number }>();

function formatsWithData(ctx: TurnContext): Promise<string[]> {
  const cached = formatsCache.get(ctx.resources.mongo);
  if (cached && cached.until > Date.now()) return cached.formats;
  const formats = new MetaQueries(ctx.resources.mongo).formats();
  formatsCache.set(ctx.resources.mongo, { formats, until: Date.now() + FORMATS_TTL_MS });
  formats.catch(() => formatsCache.delete(ctx.resources.mongo));
  return formats;
}

export const conversationKind: ActorKind<ConversationState> = {
  kind: CONVERSATION_KIND,
  stateful: true,
  description: 'Deck-coach conversations: a LangGraph agent that researches the MTG meta and coaches decks with the meta tools over MCP.',
  messages,
  http,
  reads,
  cancels,
  tools,
  limits: { rate: { points: 60, durationSeconds: 60 }, concurrent: 4 },
  turnTimeoutMs: 5 * 60 * 1000,
  initialState: (ref) => initialConversation(ref.id),
  async handle(state, message, ctx) {
    switch (message.type) {
      case 'welcome':
        return welcome(state, ctx);
      case 'chat':
        return chat(state, message.payload as ChatPayload, message.messageId, ctx);
      case 'delete':
        return remove(state, ctx);
      default:
        throw new RequestError('bad_request', `unknown message ${message.type}`);
    }
  },
};

const exists = (state: ConversationState) => state.created_at !== null && !state.deleted;
const notFound = (state: ConversationState) => new RequestError('not_found', `conversation ${state.conversation_id} not found`);

/** The tools, connected once per turn on first use. */
function lazyTools(ctx: TurnContext): () => Promise<ConnectedTools> {
  let connecting: Promise<ConnectedTools> | undefined;
  return () => (connecting ??= toolsFor(ctx.resources.mcp, ctx.ownerId));
}

async function welcome(state: ConversationState, ctx: TurnContext): Promise<ConversationState> {
  if (exists(state)) throw new RequestError('conflict', `conversation ${state.conversation_id} already exists`);
  const [catalog, formats] = await Promise.all([
    lazyTools(ctx)().then(
      (connected) => ({ tools: connected.catalog, problem: undefined }),
      (error: unknown) => ({ tools: [], problem: error instanceof McpUnavailable ? error.message : reasonOf(error) }),
    ),
    formatsWithData(ctx),
  ]);
  const info: WelcomeInfo = { tool_catalog: catalog.tools, available_formats: formats, workflows: workflowsWith(catalog.tools) };
  const fallback = welcomeText(info, catalog.problem);
  const narration = await ctx.resources.narrator
    .narrate({ task: 'coach_welcome', instructions: 'Welcome the player: say what you can help with (the workflows and their tools) and suggest example queries. Conversational, short.', facts: info, fallback }, ctx.signal)
    .catch(() => ({ text: fallback }));
  const at = new Date().toISOString();
  ctx.reply({
    conversation_id: state.conversation_id,
    message: narration.text,
    available_formats: info.available_formats,
    workflows: info.workflows,
    tool_count: info.tool_catalog.length,
    ...(catalog.problem ? { mcp_error: catalog.problem } : {}),
  });
  return { ...state, created_at: at, welcome: info, messages: [{ role: 'assistant', content: narration.text, at, message_id: 'welcome' }] };
}

async function chat(state: ConversationState, payload: ChatPayload, messageId: string, ctx: TurnContext): Promise<ConversationState> {
  if (state.deleted || (!exists(state) && !payload.create)) throw notFound(state);
  const started = performance.now();
  const formats = await formatsWithData(ctx);
  const conversation = withContext(exists(state) ? state : { ...state, created_at: new Date().toISOString() }, payload, formats);
  ctx.emit('metadata', { conversation_id: conversation.conversation_id, message_id: messageId, format: conversation.format, archetype: conversation.archetype, new: !exists(state) });

  const deckGiven = payload.deck_text !== undefined || looksLikeDeck(payload.message);
  if (payload.deck_text === undefined && deckGiven) conversation.deck_text = payload.message;
  const deps: CoachDeps = { tools: lazyTools(ctx), chatModel: ctx.resources.chatModel, narrator: ctx.resources.narrator, signal: ctx.signal };
  const input = { message: payload.message, messageId, deckGiven, formats, at: new Date().toISOString() };
  let end: CoachStateType | undefined;
  const toolCalls: Array<{ tool: string; status: string; summary: string }> = [];
  // The graph (LangGraph and LangChain's core, some 500 modules) loads on the first coach turn, not at start.
  const { coachGraph, turnStart } = await import('./graph.js');
  try {
    const stream = await coachGraph.stream(turnStart(conversation, input, ctx.resources.chatModel), {
      streamMode: ['custom', 'values'],
      configurable: { coach: deps },
      signal: ctx.signal,
      recursionLimit: 40,
    });
    for await (const [mode, chunk] of stream as AsyncIterable<[string, unknown]>) {
      if (mode === 'values') end = chunk as CoachStateType;
      else {
        const { event, data } = chunk as CoachEvent;
        if (event === 'tool_call' && data.status !== 'calling') toolCalls.push({ tool: String(data.tool), status: String(data.status), summary: String(data.summary ?? data.error ?? '') });
        ctx.emit(event, data);
      }
    }
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    if (error instanceof McpUnavailable) throw new RequestError('unavailable', `${error.message}; the coach cannot fetch tournament data until it is back`);
    throw error;
  }
  const final = end!.conversation;
  const ui = uiState(final);
  ctx.emit('state', ui);
  const graphMs = performance.now() - started;
  ctx.reply({
    conversation_id: final.conversation_id,
    answer: end!.streamed,
    state: ui,
    tool_calls: toolCalls,
    timings: { turn_ms: round(graphMs), graph_ms: round(graphMs - end!.toolMs), tools_ms: round(end!.toolMs) },
  });
  return final;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** The request's dropdowns, slider and deck box, over what the conversation held. */
function withContext(state: ConversationState, payload: ChatPayload, formats: string[]): ConversationState {
  const next = { ...state };
  if (payload.format !== undefined) {
    const format = formats.find((f) => f.toLowerCase() === payload.format!.toLowerCase());
    if (!format) throw new RequestError('bad_request', `unknown format '${payload.format}'; valid formats: ${formats.join(', ')}`, { valid: formats });
    if (format !== next.format) Object.assign(next, switchedFormat(format));
  }
  if (payload.current_days !== undefined) next.current_days = payload.current_days;
  if (payload.previous_days !== undefined) next.previous_days = payload.previous_days;
  if (payload.archetype !== undefined) {
    const known = [...(next.known_archetypes?.names ?? []), ...(next.meta?.top.map((a) => a.name) ?? [])];
    next.archetype = known.find((a) => a.toLowerCase() === payload.archetype!.toLowerCase()) ?? payload.archetype;
  }
  if (payload.deck_text !== undefined && payload.deck_text !== next.deck_text) Object.assign(next, { deck_text: payload.deck_text, card_details: null, matchup_stats: null });
  return next;
}

function remove(state: ConversationState, ctx: TurnContext): ConversationState {
  if (!exists(state)) throw notFound(state);
  ctx.reply({ conversation_id: state.conversation_id, deleted: true });
  // A tombstone: the history and the deck are gone; the id stays taken (and answers 404).
  return { ...initialConversation(state.conversation_id), created_at: state.created_at, deleted: true };
}

/** GET /conversations: the caller's own conversations, newest first. */
export const conversationListKind: ServiceKind = {
  kind: CONVERSATION_LIST_KIND,
  stateful: false,
  description: 'Lists your deck-coach conversations.',
  messages: listMessages,
  concurrency: 4,
  async handle(message, ctx) {
    const states = await actorStates<ConversationState>(ctx.resources.mongo, CONVERSATION_KIND, { ownerId: message.ownerId, 'state.deleted': false, 'state.created_at': { $ne: null } }, LIST_LIMIT);
    return { conversations: states.map(conversationSummary) };
  },
};
