/**
 * One turn of a stateful actor, pure of Redis and Mongo: given the state and a message, run the
 * kind's handler and say what must happen when it commits (new state, events to publish, messages to
 * send). Bad input, a wrong owner, a passed deadline, a RequestError or a failing handler leave the
 * state unchanged and answer with an `error` event; a handler that could not reach MongoDB throws, so
 * that the drain retries the turn instead.
 */
import { randomUUID } from 'node:crypto';
import { envelope, type ActorRef, type Envelope } from '../../queues/envelope.js';
import type { OutboxItem, StoredEvent } from '../../models/actor-record.js';
import { causedByMongoOutage } from '../../models/mongo-outage.js';
import { RequestError, type ActorKind, type ActorResources, type Logger, type TurnContext } from './contract.js';

export interface TurnOutcome {
  state: unknown;
  /** Final events for the reply stream (reply + done, or error). */
  final: StoredEvent[];
  /** Side effects to perform after commit, in order. */
  effects: OutboxItem[];
}

export interface TurnInput {
  kind: ActorKind<unknown>;
  ref: ActorRef;
  /** Current state; undefined before the actor's first turn. */
  state: unknown;
  ownerId: string | undefined;
  env: Envelope;
  emit: (event: string, data: unknown) => void;
  /** The actor's feed stream (what `ctx.publish` appends to after the commit). */
  feedStream: string;
  signal: AbortSignal;
  /** Aborts when the owner cancels this turn (cancellable kinds): the caller gets `cancelled`. */
  cancel?: AbortSignal;
  logger: Logger;
  resources: ActorResources;
  now?: number;
}

/** A feed entry's data: who may see it (a user id, or null for everyone following) and the event's data. */
export interface FeedData {
  to: string | null;
  data: unknown;
}

export class TurnAborted extends Error {}

export const DEFAULT_TURN_TIMEOUT_MS = 10 * 60 * 1000;
const TIMED_OUT = Symbol('turn timed out');
const CANCELLED = Symbol('turn cancelled');

export const errorEvent = (code: string, message: string, details?: unknown): StoredEvent => ({ e: 'error', d: { code, message, details: details ?? null } });

/** The answer to a cancelled message: nothing of it was applied. */
export const cancelledEvent = (): StoredEvent => errorEvent('cancelled', 'the turn was cancelled; nothing of it was applied');

export async function runTurn(input: TurnInput): Promise<TurnOutcome> {
  const { kind, ref, env } = input;
  const unchanged = (event: StoredEvent): TurnOutcome => ({ state: input.state, final: [event], effects: [] });
  if (kind.access !== 'shared' && input.ownerId !== undefined && input.ownerId !== env.ownerId) {
    return unchanged(errorEvent('not_found', `${ref.kind} ${ref.id} not found`));
  }
  if (env.deadline !== undefined && (input.now ?? Date.now()) > env.deadline) {
    return unchanged(errorEvent('deadline_exceeded', 'the message waited past its deadline and was not applied'));
  }
  const schema = kind.messages[env.type];
  if (!schema) return unchanged(errorEvent('bad_request', `unknown message type '${env.type}' for ${kind.kind}`, { valid: Object.keys(kind.messages) }));
  const parsed = schema.safeParse(env.payload);
  if (!parsed.success) return unchanged(errorEvent('bad_request', `invalid payload for ${kind.kind}.${env.type}`, parsed.error.issues));

  let replyData: unknown = null;
  let failure: RequestError | undefined;
  const effects: OutboxItem[] = [];
  // The turn's own signal: aborted on worker shutdown or when the turn overruns its time. Once the
  // turn is over (or abandoned), whatever the handler still does through ctx has no effect.
  const turn = new AbortController();
  let over = false;
  const onShutdown = () => turn.abort(input.signal.reason);
  input.signal.addEventListener('abort', onShutdown, { once: true });
  let onCancel: (() => void) | undefined;
  const cancelled = new Promise<typeof CANCELLED>((resolve) => {
    onCancel = () => {
      turn.abort(input.cancel!.reason);
      resolve(CANCELLED);
    };
    if (input.cancel?.aborted) onCancel();
    else input.cancel?.addEventListener('abort', onCancel, { once: true });
  });
  const ctx: TurnContext = {
    actor: ref,
    ownerId: env.ownerId,
    emit: (event, data) => {
      if (!over) input.emit(event, data);
    },
    reply: (data) => {
      if (!over) replyData = data;
    },
    fail: (error) => {
      if (!over) failure = error;
    },
    send: (to, type, payload, options) => {
      if (!over) effects.push({ kind: 'send', envelope: envelope({ actor: to, ownerId: options?.as ?? env.ownerId, type, payload, messageId: randomUUID() }) });
    },
    schedule: (delayMs, type, payload) => {
      if (!over) effects.push({ kind: 'schedule', delayMs, envelope: envelope({ actor: ref, ownerId: env.ownerId, type, payload }) });
    },
    publish: (event, data, options) => {
      const entry: FeedData = { to: options?.to ?? null, data };
      if (!over) effects.push({ kind: 'publish', stream: input.feedStream, events: [{ e: event, d: entry }] });
    },
    signal: turn.signal,
    logger: input.logger,
    resources: input.resources,
  };
  // No state yet (undefined, or null as stored): the actor's first successful turn starts from its initial state.
  const before = input.state == null ? kind.initialState(ref, env.ownerId) : input.state;
  const timeoutMs = kind.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
  });
  let state: unknown;
  try {
    const result = await Promise.race([
      Promise.resolve(kind.handle(structuredClone(before), { messageId: env.messageId, type: env.type, payload: parsed.data, ownerId: env.ownerId, createdAt: env.createdAt }, ctx)),
      overrun,
      cancelled,
    ]);
    if (result === CANCELLED) return unchanged(cancelledEvent());
    if (result === TIMED_OUT) {
      turn.abort(TIMED_OUT);
      input.logger.warn({ actor: ref, messageId: env.messageId, timeoutMs }, 'turn overran its time; abandoned, state unchanged');
      return unchanged(errorEvent('turn_timeout', `the turn did not finish within ${timeoutMs} ms`));
    }
    state = result;
  } catch (err) {
    if (input.signal.aborted) throw new TurnAborted('worker shutting down');
    // The handler may notice the abort before the race does: a cancel wins either way.
    if (input.cancel?.aborted) return unchanged(cancelledEvent());
    // MongoDB out of reach is nobody's failure: the drain runs the turn again (store-outage.ts).
    if (causedByMongoOutage(err)) throw err;
    if (err instanceof RequestError) return unchanged(errorEvent(err.code, err.message, err.details));
    input.logger.warn({ err, actor: ref, messageId: env.messageId }, 'turn failed; state unchanged');
    return unchanged(errorEvent('turn_failed', err instanceof Error ? err.message : String(err)));
  } finally {
    over = true;
    clearTimeout(timer);
    input.signal.removeEventListener('abort', onShutdown);
    if (onCancel) input.cancel?.removeEventListener('abort', onCancel);
  }
  if (failure) return { state, final: [errorEvent(failure.code, failure.message, failure.details)], effects };
  return { state, final: [{ e: 'reply', d: replyData }, { e: 'done', d: { messageId: env.messageId } }], effects };
}
