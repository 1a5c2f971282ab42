/**
 * What an actor kind declares: its messages (zod), its pure turn handler, its limits, and the MCP tools
 * through which it is reached. The gateway mounts these generically; adding a kind adds a folder.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { Connection } from 'mongoose';
import type { z } from 'zod';
import type { Embedder } from '../documents/embeddings.js';
import type { MailSettings } from '../mail/settings.js';
import type { Narrator } from '../llm/narration.js';
import type { ActorRef } from '../../queues/envelope.js';

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/** A message as a handler receives it: validated payload of one of the kind's message types. */
export interface Message<P = unknown> {
  messageId: string;
  type: string;
  payload: P;
  ownerId: string;
  createdAt: number;
}

export interface TurnContext {
  readonly actor: ActorRef;
  readonly ownerId: string;
  /** Streams a partial event (tokens, tool progress) to the caller now. At-least-once: a retried turn emits again. */
  emit(event: string, data: unknown): void;
  /** The turn's answer, delivered as the `reply` event once the new state is committed. */
  reply(data: unknown): void;
  /**
   * Answers with this error instead, yet commits the new state (unlike throwing it): the turn recorded
   * a failure the caller must hear of, e.g. a file that could not be read is kept as `failed`.
   */
  fail(error: RequestError): void;
  /**
   * Messages another actor; delivered only after this turn commits (outbox). It goes as this turn's
   * owner, or as `as` — for the platform's own deliveries to another user's actor (mail between inboxes).
   */
  send(to: ActorRef, type: string, payload: unknown, options?: { as?: string }): void;
  /** Sends this actor a message later (a durable delayed job), also only after commit. */
  schedule(delayMs: number, type: string, payload: unknown): void;
  /**
   * Appends an event to the actor's feed after the commit, for everyone following it (GET
   * /actors/:kind/:id/events or a kind's feed route), or only for the user `to`.
   */
  publish(event: string, data: unknown, options?: { to?: string }): void;
  /** Aborted when the worker shuts down, the turn overruns its time, or (cancellable kinds) the user cancels it; a long turn should stop and throw. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** What the worker lends handlers: MongoDB, the language model, MCP access. */
  readonly resources: ActorResources;
}

export type DoubleTexting = 'enqueue' | 'reject';

export interface KindLimits {
  /** Messages a user may send to actors of this kind per window (a fixed window counted in Redis). */
  rate?: { points: number; durationSeconds: number };
  /** Turns of this kind a user may have queued or running at once (Redis lease semaphore). */
  concurrent?: number;
  /**
   * The message types the rate limit counts, and what to call them in the refusal (default: every
   * message, "messages"), e.g. scouting counts the runs started, not the approvals that follow.
   */
  rateCounts?: { types: string[]; noun: string };
}

/** Who is calling, as the gateway authenticated them. */
export interface Caller {
  userId: string;
  name?: string;
}

/** The message a tool call or an HTTP route becomes: to an actor of the declaring kind, or of `kind` (e.g. a lobby service). */
export interface ActorMessage {
  kind?: string;
  actorId: string;
  type: string;
  payload: unknown;
}

/** An MCP tool that becomes one message to one actor of the kind. */
export interface ToolContract<I extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title?: string;
  description: string;
  input: I;
  /** zod shape of structuredContent; the reply data is validated against it. */
  output?: z.ZodRawShape;
  /** The text copy in `content` (default: the reply as JSON), e.g. an agent's answer in prose. */
  text?(reply: unknown): string;
  /** Which actor receives the call, and with which message. */
  toMessage(args: z.infer<z.ZodObject<I>>, caller: Caller): ActorMessage;
  /**
   * A tool that waits (mail's wait_for_reply): once the message is answered, the gateway follows the
   * feed of the actor `feed(reply)` names until `answer` returns the tool's result for an entry, or
   * `waitMs(reply)` passes (`timedOut(reply)`). The wait is the gateway's: it holds no worker.
   */
  follow?: {
    feed(reply: unknown): ActorRef;
    /** The feed position to follow from (a stream id); default: where the feed stands once answered. */
    from?(reply: unknown): string | undefined;
    /** An answer the reply already holds (what arrived before the call): no wait at all. */
    ready?(reply: unknown): unknown;
    waitMs(reply: unknown): number;
    answer(entry: { event: string; data: unknown }, reply: unknown): unknown;
    timedOut(reply: unknown): unknown;
  };
}

/** An MCP resource: a read of `uriTemplate` becomes one message to one actor; the reply is the text. */
export interface ResourceContract {
  name: string;
  title?: string;
  description: string;
  /** RFC 6570 URI template, e.g. `email://thread/{thread_id}`. */
  uriTemplate: string;
  /** Of the text `render` returns; default application/json. */
  mimeType?: string;
  /** Which actor answers a read, and with which message. */
  toMessage(variables: Record<string, string>, caller: { userId: string }): ActorMessage;
  /** The reply as the resource's text; default: JSON. */
  render?(data: unknown): string;
}

/**
 * An MCP prompt: a ready-made request for a common workflow ("play a game of Dominion against a bot"),
 * with string arguments the client fills in. Pure text: getting one runs no actor.
 */
export interface PromptContract {
  name: string;
  title?: string;
  description: string;
  /** Each argument a (possibly optional) string schema, as MCP prompt arguments are. */
  args?: Record<string, z.ZodType<string | undefined>>;
  /** The user message the prompt expands to. */
  text(args: Record<string, string | undefined>): string;
}

/**
 * An HTTP route that becomes one message to one actor; the reply is the JSON body. `path` is a
 * @koa/router path (`/games/:id/moves`); params, query and body are validated against their shapes.
 */
export interface HttpRouteContract {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  description: string;
  params?: z.ZodRawShape;
  /** Values arrive as strings: use z.coerce for numbers. */
  query?: z.ZodRawShape;
  /** A JSON object body (POST). */
  body?: z.ZodRawShape;
  toMessage(input: { params: Record<string, unknown>; query: Record<string, unknown>; body: Record<string, unknown> }, caller: Caller): ActorMessage;
  /**
   * Answer as SSE: the message's reply stream (partial events, then `done` or `error`), without the
   * events named in `omit` (e.g. `reply`, when the partial events already carry the answer). A failure
   * before the first event still answers as a JSON error with its status.
   */
  stream?: { omit?: string[] };
}

/** A file of a multipart upload, as a batch route receives it. */
export interface UploadedFile {
  /** The file name the client gave (its last path segment). */
  name: string;
  contentType: string;
  bytes: Buffer;
}

/**
 * A POST route that becomes many messages run as one batch job (document ingestion, bulk scouting):
 * it answers `202` at once with the batch id and where to follow it (GET /batches/:id, its events and
 * results). The rate limit counts each message it would count alone. With `upload`, the route also
 * takes multipart/form-data: its files arrive in `files` and its other fields in `body`.
 */
export interface BatchRouteContract {
  path: string;
  description: string;
  body?: z.ZodRawShape;
  upload?: { maxFileBytes: number; maxFiles: number };
  toMessages(input: { body: Record<string, unknown>; files: UploadedFile[] }, caller: Caller): ActorMessage[];
  /** What the 202 answer says besides the batch, e.g. the ids of the documents being ingested. */
  describe?(messages: ActorMessage[]): Record<string, unknown>;
}

/**
 * A GET route answered from an actor's committed state, without a turn (so it answers at once even
 * while a long turn runs). Only the owner reads; `view` shapes what they see, or returns undefined
 * for "not found" (e.g. a deleted conversation).
 */
export interface StateRouteContract {
  path: string;
  description: string;
  params: z.ZodRawShape;
  actorId(params: Record<string, unknown>): string;
  view(state: unknown): unknown;
}

/**
 * A POST route that cancels an actor's running turn and the messages queued before it (the stop
 * button): the turn's `ctx.signal` aborts and its caller gets an `error` event with code `cancelled`.
 */
export interface CancelRouteContract {
  path: string;
  description: string;
  params: z.ZodRawShape;
  actorId(params: Record<string, unknown>): string;
}

/**
 * An SSE route following one actor's feed (what it `publish`es), e.g. `/games/:id/events`: each
 * follower sees the entries meant for everyone and those meant for them. `snapshot`, when given, is
 * asked first and its reply sent as a `snapshot` event (what the follower sees now).
 */
export interface FeedRouteContract {
  path: string;
  description: string;
  params: z.ZodRawShape;
  actorId(params: Record<string, unknown>): string;
  snapshot?(params: Record<string, unknown>, caller: Caller): ActorMessage;
  /** True when the snapshot shows the actor will publish nothing more (a finished game): the stream then ends with `done`. */
  finished?(snapshot: unknown): boolean;
}

interface KindBase {
  kind: string;
  description: string;
  /** Payload schema of each message type. */
  messages: Record<string, z.ZodType>;
  limits?: KindLimits;
  tools?: ToolContract[];
  resources?: ResourceContract[];
  prompts?: PromptContract[];
  http?: HttpRouteContract[];
  batches?: BatchRouteContract[];
  feeds?: FeedRouteContract[];
}

/** A stateful actor: one turn at a time per actor id, state persisted with fencing. */
export interface ActorKind<S = unknown> extends KindBase {
  stateful: true;
  initialState(ref: ActorRef, ownerId: string): S;
  handle(state: S, message: Message, ctx: TurnContext): S | Promise<S>;
  /** A new message while the actor is busy: queue it (default) or answer 409. */
  doubleTexting?: DoubleTexting;
  /** A turn running longer is abandoned: `ctx.signal` aborts and the caller gets `turn_timeout`. Default 10 minutes. */
  turnTimeoutMs?: number;
  /** Routes that cancel a running turn (see CancelRouteContract); a kind with one is cancellable. */
  cancels?: CancelRouteContract[];
  /** Routes answered from the committed state (see StateRouteContract). */
  reads?: StateRouteContract[];
  /**
   * `owner` (default): only the user whose message created the actor may message it; others get 404.
   * `shared`: any user may (a game others join by id); the handler decides what each may do and see,
   * and the raw state is never served (it may hold what some users must not see).
   */
  access?: 'owner' | 'shared';
}

/**
 * A caller's mistake or a missing precondition, reported to the caller as an `error` event with this
 * code (and as a 4xx over HTTP, a tool error over MCP). Anything else a handler throws is a failure.
 */
export class RequestError extends Error {
  constructor(
    readonly code: 'bad_request' | 'forbidden' | 'not_found' | 'conflict' | 'unavailable' | 'rate_limited',
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

/** What a worker process lends the handlers it runs. */
export interface ActorResources {
  /** The process's MongoDB connection (mongoose). */
  mongo: Connection;
  /** Explains computed results in prose: the configured language model, or the offline narrator. */
  narrator: Narrator;
  /** The configured chat model (LLM_PROVIDER), or null when offline. Agents share it with the tools. */
  chatModel: BaseChatModel | null;
  /** The MCP server agents call tools on, with credentials of the user they act for. */
  mcp: McpEndpoint;
  /** EMBEDDINGS_PROVIDER's vectors for document search, or null (BM25 only). */
  embedder: Embedder | null;
  /** How long a scouting run waits at a gate (SCOUTING_GATE_TIMEOUT_SECONDS); null: forever. */
  gateTimeoutMs: number | null;
  /** Mail settings (MAIL_*), or null where mail is not configured for this worker (defaults apply). */
  mail?: MailSettings;
}

/** An MCP server an agent calls tools on, on behalf of a user (so that user's limits apply). */
export interface McpEndpoint {
  /** The streamable-HTTP URL, or undefined when none is known (no gateway and no URL configured). */
  url(): string | undefined;
  /** The headers that authenticate a call as `userId`. */
  headersFor(userId: string): Promise<Record<string, string>>;
}

export interface ServiceContext {
  emit(event: string, data: unknown): void;
  readonly resources: ActorResources;
  readonly signal: AbortSignal;
  readonly logger: Logger;
}

/** A stateless service actor: requests run in parallel (worker concurrency > 1), no state. */
export interface ServiceKind extends KindBase {
  stateful: false;
  concurrency?: number;
  handle(message: Message, ctx: ServiceContext): unknown | Promise<unknown>;
}

export type AnyKind = ActorKind<any> | ServiceKind; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What a kind shows over MCP: its name, tools, resources and prompts (actors/mcp-surfaces.ts lists them without the handlers). */
export type KindMcpSurface = Pick<KindBase, 'kind' | 'tools' | 'resources' | 'prompts'>;
