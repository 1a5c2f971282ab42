/**
 * One request-reply round trip to an actor on behalf of a caller: validate the message, admit it
 * through the user's limits, post it, and follow its reply stream to the terminal event. MCP tools and
 * resources and the kinds' declared HTTP routes are built on this; it answers with data or a failure,
 * and throws only on faults: RedisClient or MongoDB unreachable (a 503, see dependency-outage.ts) or a bug (an
 * opaque internal error).
 */
import type { ActorClient } from '../actors/runtime/client.js';
import { RuntimeError } from '../actors/runtime/runtime-error.js';
import type { ActorMessage, AnyKind } from '../actors/runtime/contract.js';
import { ActorRef } from '../queues/envelope.js';
import type { ReplyEvent } from '../queues/reply-stream.js';
import { BROKER_RESET_CODE } from './broker-reset-code.js';
import { OUTAGE_CODES, OUTAGE_RETRY_AFTER_SECONDS } from './dependency-outage.js';
import { ApiError } from './error-response.js';
import type { UserLimits } from './limits.js';
import type { HopTracer } from './hop-tracer.js';

/** Who is calling, as the gateway's authentication resolves an API key. */
export interface McpUser {
  id: string;
  name?: string;
}

export interface ActorCallDeps {
  client: Pick<ActorClient, 'validate' | 'send' | 'replies' | 'kind'>;
  limits: Pick<UserLimits, 'enqueueAdmitted'>;
  /** Longest quiet gap in a reply stream before the call gives up (the message itself still runs). */
  replyIdleTimeoutMs?: number;
  /** Set with TRACE_HOPS: messages carry hop timestamps and their paths are logged. */
  tracer?: HopTracer;
}

/** Default quiet gap: long enough for an LLM turn, short enough that a lost reply does not hang an agent. */
export const DEFAULT_REPLY_IDLE_TIMEOUT_MS = 120_000;

export interface ActorFailure {
  code: string;
  message: string;
  details: Record<string, unknown>;
}

/** The HTTP status of a failure, by the code the runtime or the handler gave it. */
const FAILURE_STATUS: Record<string, number> = {
  bad_request: 400,
  not_found: 404,
  forbidden: 403,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
  deadline_exceeded: 504,
  reply_timeout: 504,
  turn_failed: 422,
  turn_timeout: 504,
  request_failed: 422,
  broker_unavailable: 503,
  store_unavailable: 503,
  broker_reset: 503,
};

export const failureStatus = (code: string): number => FAILURE_STATUS[code] ?? 422;

/** Failures a client should simply retry shortly: outages, and a Redis that came back without its data. */
const RETRY_SHORTLY_CODES: ReadonlySet<string> = new Set([...OUTAGE_CODES, BROKER_RESET_CODE]);

/** A failure as the HTTP error it is: its status, and Retry-After when it says when to retry (or is an outage). */
export function failureError(failure: ActorFailure): ApiError {
  const retryAfter = failure.details.retryAfterSeconds ?? (RETRY_SHORTLY_CODES.has(failure.code) ? OUTAGE_RETRY_AFTER_SECONDS : undefined);
  const headers: Record<string, string> = typeof retryAfter === 'number' ? { 'Retry-After': String(Math.max(1, Math.ceil(retryAfter))) } : {};
  return new ApiError(failureStatus(failure.code), failure.code, failure.message, failure.details, headers);
}

export type ActorAnswer = { ok: true; data: unknown } | { ok: false; failure: ActorFailure };

export interface ActorCall {
  user: McpUser;
  kind: AnyKind;
  /** `message.kind`, when set, names the kind that receives it instead of `kind`. */
  message: ActorMessage;
  /** Aborts the wait (the MCP request was cancelled or its connection closed). */
  signal: AbortSignal;
  /** Every non-terminal event of the reply stream (partial output, progress), in order. */
  onEvent?: (event: ReplyEvent) => void;
}

const failure = (code: string, message: string, details: Record<string, unknown> = {}): ActorAnswer => ({ ok: false, failure: { code, message, details } });

export type Posted = { ok: true; messageId: string; replyStream: string } | { ok: false; failure: ActorFailure };

/** Validates the message, admits it through the user's limits and posts it; refusals are failures. */
export async function postMessage(deps: ActorCallDeps, call: Omit<ActorCall, 'signal' | 'onEvent'>): Promise<Posted> {
  const { user, message } = call;
  const kind = message.kind === undefined ? call.kind : deps.client.kind(message.kind);
  if (!kind) throw new Error(`${call.kind.kind} addressed a message to the unknown kind '${message.kind}'`);
  const ref = ActorRef.safeParse({ kind: kind.kind, id: message.actorId });
  if (!ref.success) return { ok: false, failure: { code: 'bad_request', message: `invalid actor id for ${kind.kind}`, details: { issues: ref.error.issues } } };
  const actor = ref.data;
  const trace = deps.tracer?.start();
  try {
    deps.client.validate({ actor, type: message.type, payload: message.payload });
    const sent = await deps.limits.enqueueAdmitted(user.id, kind, (admission) =>
      deps.client.send({ actor, ownerId: user.id, type: message.type, payload: message.payload, admission, trace }),
      message.type,
    );
    return { ok: true, messageId: sent.messageId, replyStream: sent.replyStream };
  } catch (thrown) {
    if (thrown instanceof RuntimeError) {
      return { ok: false, failure: { code: thrown.code, message: thrown.message, details: thrown.details === undefined ? {} : { issues: thrown.details } } };
    }
    if (thrown instanceof ApiError && thrown.status < 500) return { ok: false, failure: { code: thrown.code, message: thrown.message, details: thrown.details } };
    throw thrown;
  }
}

export async function callActor(deps: ActorCallDeps, call: ActorCall): Promise<ActorAnswer> {
  const { signal } = call;
  const posted = await postMessage(deps, call);
  if (!posted.ok) return posted;
  const { replyStream } = posted;
  const kind = call.message.kind === undefined ? call.kind : deps.client.kind(call.message.kind)!;
  const actor = { id: call.message.actorId };

  let reply: unknown = null;
  for await (const event of deps.client.replies(replyStream, { signal, idleTimeoutMs: deps.replyIdleTimeoutMs ?? DEFAULT_REPLY_IDLE_TIMEOUT_MS })) {
    if (event.event === 'reply') reply = event.data;
    else if (event.event === 'done') {
      deps.tracer?.heard(kind.kind, event);
      return { ok: true, data: reply };
    }
    else if (event.event === 'error') return { ok: false, failure: failureOf(event.data) };
    else call.onEvent?.(event);
  }
  if (signal.aborted) return failure('cancelled', 'the call was cancelled before the actor answered');
  return failure('reply_timeout', `no answer from ${kind.kind} ${actor.id} yet; the message is still queued or running`, {
    replyStream,
  });
}

/** The data of a terminal `error` event, `{ code, message, details }` as the runtime writes it. */
export function failureOf(data: unknown): ActorFailure {
  const d = (typeof data === 'object' && data !== null ? data : {}) as { code?: unknown; message?: unknown; details?: unknown };
  const details = d.details === undefined || d.details === null ? {} : typeof d.details === 'object' && !Array.isArray(d.details) ? (d.details as Record<string, unknown>) : { issues: d.details };
  return {
    code: typeof d.code === 'string' ? d.code : 'turn_failed',
    message: typeof d.message === 'string' ? d.message : 'the actor could not handle the message',
    details,
  };
}
