/** Every Redis key and BullMQ queue name troupe uses, in one place. */
import type { ActorRef } from './envelope.js';

export const PREFIX = 'troupe';

export const keys = {
  /** Per-actor mailbox: a Redis Stream in arrival order. */
  mailbox: (ref: ActorRef) => `${PREFIX}:mailbox:${ref.kind}:${ref.id}`,
  /** Per-request reply stream (entry ids become SSE ids). */
  replies: (messageId: string) => `${PREFIX}:replies:${messageId}`,
  /** Gateway-side idempotency: owner + key -> first message id. */
  idempotency: (ownerId: string, key: string) => `${PREFIX}:idem:${ownerId}:${key}`,
  /** Who may read a reply stream (the sender), kept as long as the stream. */
  replyOwner: (messageId: string) => `${PREFIX}:reply-owner:${messageId}`,
  /** Batch progress stream. */
  batchEvents: (batchId: string) => `${PREFIX}:batch:${batchId}`,
  /** Live workers per kind (heartbeat hash: worker id -> last seen ms). */
  workers: (kind: string) => `${PREFIX}:workers:${kind}`,
};

export const queues = {
  /** Drain jobs of one stateful actor kind (one job per actor at a time). */
  actor: (kind: string) => `${PREFIX}-actor-${kind}`,
  /** Requests to a stateless service kind. */
  service: (kind: string) => `${PREFIX}-service-${kind}`,
  /** Delayed deliveries (ctx.schedule). */
  schedule: `${PREFIX}-schedule`,
};
