/**
 * The deck coach's contract: its messages, the HTTP surface of the spec (GET /welcome, POST /chat as
 * SSE, the conversation reads, list, delete and cancel) and the `coach_chat` MCP tool for agents.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { CancelRouteContract, HttpRouteContract, StateRouteContract, ToolContract } from '../runtime/contract.js';
import { conversationView, type ConversationState } from './state.js';

export const CONVERSATION_KIND = 'conversation';
export const CONVERSATION_LIST_KIND = 'conversation-list';

const Days = z.number().int().min(1).max(365);
const ConversationId = z.string().uuid({ error: 'a conversation id from GET /welcome or an earlier chat' });

/** What a chat request may set besides the message: the UI's dropdowns, slider and deck box. */
const context = {
  format: z.string().trim().min(1).max(60).optional().describe('Format, e.g. "Modern" (see GET /formats)'),
  current_days: Days.optional().describe('Days of the meta window, ending at the newest tournament in the data'),
  previous_days: Days.optional().describe('Days of the window before it, for comparison (default: current_days)'),
  archetype: z.string().trim().min(1).max(120).optional().describe('Your deck\'s archetype (see GET /archetypes)'),
  deck_text: z.string().trim().min(1).max(100_000).optional().describe('Your decklist (MTGO, Arena or Moxfield export)'),
};
const Context = z.object(context).strict();
export type ChatContext = z.infer<typeof Context>;

const Message = z.string().trim().min(1, { error: 'message must not be empty' }).max(20_000);

export const ChatPayload = z.object({ message: Message, create: z.boolean().default(false), ...context }).strict();
export type ChatPayload = z.infer<typeof ChatPayload>;

export const messages = {
  welcome: z.object({}).strict(),
  chat: ChatPayload,
  delete: z.object({}).strict(),
};

export const listMessages = { list: z.object({}).strict() };

/** A chat request as the routes and the tool take it; `context` is the spec's nested form of the same fields. */
function chatMessage(input: Record<string, unknown>) {
  const nested = (input.context ?? {}) as ChatContext;
  const id = input.conversation_id as string | null | undefined;
  const fields = Object.fromEntries(Object.keys(context).map((key) => [key, input[key] ?? nested[key as keyof ChatContext]]).filter(([, v]) => v !== undefined));
  return { actorId: id ?? randomUUID(), type: 'chat', payload: { message: input.message, create: !id, ...fields } };
}

const idParams = { id: ConversationId };

export const http: HttpRouteContract[] = [
  {
    method: 'GET',
    path: '/welcome',
    description: 'Starts a conversation: a welcome message, the workflows with their tools, and the formats.',
    toMessage: () => ({ actorId: randomUUID(), type: 'welcome', payload: {} }),
  },
  {
    method: 'POST',
    path: '/chat',
    description: 'One turn of the coach, answered as SSE: metadata, thinking, tool_call, content, state, done (or error).',
    body: { message: Message, conversation_id: ConversationId.nullable().optional(), ...context, context: Context.optional() },
    stream: { omit: ['reply'] },
    toMessage: ({ body }) => chatMessage(body),
  },
  {
    method: 'GET',
    path: '/conversations',
    description: 'Your conversations, newest first.',
    toMessage: () => ({ kind: CONVERSATION_LIST_KIND, actorId: 'service', type: 'list', payload: {} }),
  },
  {
    method: 'DELETE',
    path: '/conversations/:id',
    description: 'Deletes a conversation and its history.',
    params: idParams,
    toMessage: ({ params }) => ({ actorId: params.id as string, type: 'delete', payload: {} }),
  },
];

export const reads: StateRouteContract[] = [
  {
    path: '/conversations/:id',
    description: 'A conversation\'s state (format, archetype, days, has_deck) and its history.',
    params: idParams,
    actorId: (params) => params.id as string,
    view: (state) => conversationView(state as ConversationState),
  },
];

export const cancels: CancelRouteContract[] = [
  {
    path: '/conversations/:id/cancel',
    description: 'Stops the running turn (and any sent before it): its stream ends with an error event, code cancelled.',
    params: idParams,
    actorId: (params) => params.id as string,
  },
];

export const coachReply = {
  conversation_id: z.string(),
  answer: z.string(),
  state: z.record(z.string(), z.unknown()),
  tool_calls: z.array(z.object({ tool: z.string(), status: z.string(), summary: z.string() })),
  timings: z.object({ turn_ms: z.number(), graph_ms: z.number(), tools_ms: z.number() }),
};

export const tools: ToolContract[] = [
  {
    name: 'coach_chat',
    title: 'Ask the MTG deck coach',
    description:
      'Consults the Magic: The Gathering deck coach, an agent over real tournament data: meta research (top archetypes, shares, matchups over a time window) and deck coaching (paste a decklist, then matchups, a strategy against an opponent, main-deck and sideboard advice). ' +
      'Omit conversation_id to start a conversation; pass the returned one to continue it (the coach remembers format, days, archetype and deck). Partial answers arrive as progress notifications.',
    input: { message: Message.describe('What to ask the coach'), conversation_id: ConversationId.optional().describe('Continue this conversation'), ...context },
    output: coachReply,
    text: (reply) => (reply as { answer: string }).answer,
    toMessage: (args) => chatMessage(args as Record<string, unknown>),
  },
];
