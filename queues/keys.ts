/**
 * Every Redis key and BullMQ queue name troupe uses, under one prefix (REDIS_PREFIX), so several
 * deployments — or test runs — can share a Redis server without seeing each other's messages.
 */
import type { ActorRef } from './envelope.js';

export const DEFAULT_PREFIX = 'troupe';

export class RedisNames {
  constructor(readonly prefix: string = DEFAULT_PREFIX) {}

  /** Per-actor mailbox: a Redis Stream in arrival order. */
  mailbox(ref: ActorRef) {
    return `${this.prefix}:mailbox:${ref.kind}:${ref.id}`;
  }
  /** Pattern matching every mailbox of a kind (the one-off sweep a worker makes when it starts). */
  mailboxPattern(kind: string) {
    return `${this.prefix}:mailbox:${kind}:*`;
  }
  /**
   * Actors of a kind whose mailbox was given a drain job and is not known to be empty since (sorted set:
   * actor id -> when). Orphan recovery reads this instead of scanning every key in Redis.
   */
  awaitingDrain(kind: string) {
    return `${this.prefix}:awaiting-drain:${kind}`;
  }
  /**
   * Present while a drain of the actor runs or lingers: the pub/sub channel of its worker. A post that
   * finds it wakes that drain instead of adding a drain job.
   */
  drainer(ref: ActorRef) {
    return `${this.prefix}:drainer:${ref.kind}:${ref.id}`;
  }
  /** Pub/sub channel of one worker process: wake-ups for its lingering drains (see DrainWakeups). */
  drainWake(workerId: string) {
    return `${this.prefix}:drain-wake:${workerId}`;
  }
  /** Cache of an actor's owner (MongoDB is the source of truth; this spares the gateway a read per message). */
  owner(ref: ActorRef) {
    return `${this.prefix}:owner:${ref.kind}:${ref.id}`;
  }
  /** A message an actor has applied, with its final events (answers duplicates of it). */
  applied(messageId: string) {
    return `${this.prefix}:applied:${messageId}`;
  }
  /** The mailbox id of the last turn whose outbox was fully performed. */
  outboxDone(ref: ActorRef) {
    return `${this.prefix}:outbox-done:${ref.kind}:${ref.id}`;
  }
  /**
   * Messages of an actor whose senders were told `store_unavailable` (hash: message id -> the notice's
   * reply-stream entry), so each is told once and the notice is withdrawn when the message is applied.
   */
  outageNotices(ref: ActorRef) {
    return `${this.prefix}:outage-notices:${ref.kind}:${ref.id}`;
  }
  /** An actor's feed: what it publishes to everyone following it (e.g. a game's moves), after each commit. */
  feed(ref: ActorRef) {
    return `${this.prefix}:feed:${ref.kind}:${ref.id}`;
  }
  /** Per-request reply stream (entry ids become SSE ids). */
  replies(messageId: string) {
    return `${this.prefix}:replies:${messageId}`;
  }
  /** Pub/sub channel of one gateway process: the reply events of messages it posted (see ReplyNotifications). */
  replyNotify(processId: string) {
    return `${this.prefix}:reply-notify:${processId}`;
  }
  /** Who may read a reply stream (the sender), kept as long as the stream. */
  replyOwner(messageId: string) {
    return `${this.prefix}:reply-owner:${messageId}`;
  }
  /** Gateway-side idempotency: owner + key -> first message id. */
  idempotency(ownerId: string, key: string) {
    return `${this.prefix}:idem:${ownerId}:${key}`;
  }
  /** Batch progress stream. */
  batchEvents(batchId: string) {
    return `${this.prefix}:batch:${batchId}`;
  }
  /** Live workers per kind (hash: worker id -> last seen ms). */
  workers(kind: string) {
    return `${this.prefix}:workers:${kind}`;
  }
  /**
   * A worker process's liveness key: set with a short expiry and renewed off the main event loop, so
   * it lapses only when the process is gone (or cut off from Redis). See actors/runtime/liveness.ts.
   */
  alive(workerId: string) {
    return `${this.prefix}:alive:${workerId}`;
  }
  /** Worker processes that keep a liveness key (hash: worker id -> the BullMQ workers it runs, JSON). */
  liveness() {
    return `${this.prefix}:liveness`;
  }
  /** A user's concurrency leases for one kind (sorted set: lease id -> expiry). */
  leases(kind: string, userId: string) {
    return `${this.prefix}:lease:${kind}:${userId}`;
  }
  /** Rate-limiter key prefix. */
  rateLimits() {
    return `${this.prefix}:rate`;
  }
  /** When the owner last cancelled the actor's turns (ms): messages created before it are not applied. */
  cancelled(ref: ActorRef) {
    return `${this.prefix}:cancelled:${ref.kind}:${ref.id}`;
  }
  /** Pub/sub channel every worker hears: cancel the running turn of an actor (see TurnCancels). */
  cancelChannel() {
    return `${this.prefix}:cancel`;
  }
  /** Pub/sub channel relaying legacy MCP SSE messages to the gateway holding the session. */
  mcpSession(sessionId: string) {
    return `${this.prefix}:mcp-sse:${sessionId}`;
  }

  /** The id of the MongoDB deployment this prefix belongs to (see deployment-binding.ts). */
  deployment() {
    return `${this.prefix}:deployment`;
  }

  /** Drain jobs of one stateful actor kind (one job per actor at a time). */
  actorQueue(kind: string) {
    return `${this.prefix}-actor-${kind}`;
  }
  /** Requests to a stateless service kind. */
  serviceQueue(kind: string) {
    return `${this.prefix}-service-${kind}`;
  }
  /** Delayed deliveries (ctx.schedule). */
  scheduleQueue() {
    return `${this.prefix}-schedule`;
  }
}
