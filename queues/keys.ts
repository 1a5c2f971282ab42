/**
 * Every Redis key and BullMQ queue name troupe uses, under one prefix (REDIS_PREFIX), so several
 * deployments — or test runs — can share a Redis server without seeing each other's messages.
 *
 * Actors are spread over REDIS_PARTITIONS partitions by a hash of their kind and id. Everything one
 * actor's scripts touch — its mailbox, drainer, outbox marker, applied markers, the reply streams of
 * messages sent to it, its partition's awaiting-drain set and drain queue — carries the partition's
 * hash tag (`{troupe:p7}`), so on a Redis Cluster each script's keys live in one slot, and partitions
 * spread over the cluster's shards. A message id is minted in its actor's partition (the hash of the id
 * names the partition), so a reply stream's key follows from the message id alone.
 *
 * Drain jobs go to one BullMQ queue per kind on a single Redis server, and to one per kind and
 * partition on a cluster (so the queues spread over the shards too). No script touches a queue and a
 * mailbox together, so the two need not match; one queue spares a server the fetches of many sparse
 * queues (a worker that finishes a job takes the next one from the same queue in the same call).
 */
import { randomUUID } from 'node:crypto';
import type { ActorRef } from './envelope.js';
import { isClusterUrl } from './redis-client.js';

export const DEFAULT_PREFIX = 'troupe';
export const DEFAULT_PARTITIONS = 16;
export const MAX_PARTITIONS = 1024;

/** How drain jobs are queued: one queue per kind, or one per kind and partition (on a cluster). */
export type DrainQueues = 'per-kind' | 'per-partition';

/** A BullMQ queue: its name, and the key prefix that puts all of its keys in one cluster slot. */
export interface QueueName {
  name: string;
  prefix: string;
}

/** 32-bit FNV-1a: stable across processes and releases, which the partition of every key relies on. */
export function fnv1a(text: string): number {
  return fnv1aFrom(FNV_OFFSET_BASIS, text) >>> 0;
}

const FNV_OFFSET_BASIS = 0x811c9dc5;

/** FNV-1a continued over `text` from the state `hash` (unsigned only once finished). */
function fnv1aFrom(hash: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash;
}

/** The 4,096 three-hex-digit endings a minted message id tries, in order. */
const ID_ENDINGS = Array.from({ length: 4096 }, (_, i) => i.toString(16).padStart(3, '0'));

export class RedisNames {
  constructor(
    readonly prefix: string = DEFAULT_PREFIX,
    readonly partitions: number = DEFAULT_PARTITIONS,
    readonly drainQueues: DrainQueues = 'per-kind',
  ) {
    if (!Number.isInteger(partitions) || partitions < 1 || partitions > MAX_PARTITIONS) throw new RangeError(`partitions must be a whole number from 1 to ${MAX_PARTITIONS}`);
  }

  /** The names a deployment on REDIS_URL uses: drain queues per partition on a cluster, per kind otherwise. */
  static forRedis(redisUrl: string, prefix: string = DEFAULT_PREFIX, partitions: number = DEFAULT_PARTITIONS): RedisNames {
    return new RedisNames(prefix, partitions, isClusterUrl(redisUrl) ? 'per-partition' : 'per-kind');
  }

  /** The partition an actor belongs to. */
  partitionOf(ref: ActorRef): number {
    return fnv1a(`${ref.kind}:${ref.id}`) % this.partitions;
  }
  /** The partition a message id was minted in (see `messageId`). */
  partitionOfMessage(messageId: string): number {
    return fnv1a(messageId) % this.partitions;
  }
  /** Every partition number, for what serves or scans them all. */
  allPartitions(): number[] {
    return Array.from({ length: this.partitions }, (_, i) => i);
  }
  /** A partition's hash tag: the part of its keys a Redis Cluster hashes. */
  tag(partition: number) {
    return `{${this.prefix}:p${partition}}`;
  }
  private actorTag(ref: ActorRef) {
    return this.tag(this.partitionOf(ref));
  }
  /**
   * A new message id for a message to `ref`: a random UUID whose hash falls in the actor's partition.
   * Its last three hex digits (random in a v4 UUID) are tried in turn, hashing only them onto the hash
   * of the rest: 16 tries on average at 16 partitions, and no string made but the one returned (a
   * fresh UUID per try cost the gateway about 10 kB of garbage per message).
   */
  messageId(ref: ActorRef): string {
    const partition = this.partitionOf(ref);
    for (;;) {
      const stem = randomUUID().slice(0, -3);
      const stemHash = fnv1aFrom(FNV_OFFSET_BASIS, stem);
      // Starting at a random ending keeps every ending equally likely.
      const start = (Math.random() * 4096) | 0;
      for (let i = 0; i < 4096; i++) {
        const ending = ID_ENDINGS[(start + i) & 4095]!;
        if ((fnv1aFrom(stemHash, ending) >>> 0) % this.partitions === partition) return stem + ending;
      }
    }
  }

  /** Per-actor mailbox: a Redis Stream in arrival order. */
  mailbox(ref: ActorRef) {
    return `${this.prefix}:mailbox:${this.actorTag(ref)}:${ref.kind}:${ref.id}`;
  }
  /** Pattern matching every mailbox of a kind (the one-off sweep a worker makes when it starts). */
  mailboxPattern(kind: string) {
    return `${this.prefix}:mailbox:{*}:${kind}:*`;
  }
  /** The actor whose mailbox key this is (undefined for a key that is not one). */
  actorOfMailbox(key: string, kind: string): ActorRef | undefined {
    const marker = `}:${kind}:`;
    const at = key.indexOf(marker);
    if (!key.startsWith(`${this.prefix}:mailbox:{`) || at < 0) return undefined;
    return { kind, id: key.slice(at + marker.length) };
  }
  /**
   * Actors of a kind in one partition whose mailbox was given a drain job and is not known to be empty
   * since (sorted set: actor id -> when). Orphan recovery reads these instead of scanning every key.
   */
  awaitingDrain(kind: string, partition: number) {
    return `${this.prefix}:awaiting-drain:${this.tag(partition)}:${kind}`;
  }
  /** The awaiting-drain set of the actor's partition. */
  awaitingDrainOf(ref: ActorRef) {
    return this.awaitingDrain(ref.kind, this.partitionOf(ref));
  }
  /**
   * Present while a drain of the actor runs or lingers: the pub/sub channel of its worker. A post that
   * finds it wakes that drain instead of adding a drain job.
   */
  drainer(ref: ActorRef) {
    return `${this.prefix}:drainer:${this.actorTag(ref)}:${ref.kind}:${ref.id}`;
  }
  /** Pub/sub channel of one worker process: wake-ups for its lingering drains (see DrainWakeups). */
  drainWake(workerId: string) {
    return `${this.prefix}:drain-wake:${workerId}`;
  }
  /** Cache of an actor's owner (MongoDB is the source of truth; this spares the gateway a read per message). */
  owner(ref: ActorRef) {
    return `${this.prefix}:owner:${this.actorTag(ref)}:${ref.kind}:${ref.id}`;
  }
  /** A message the actor has applied, with its final events (answers duplicates of it). */
  applied(ref: ActorRef, messageId: string) {
    return `${this.appliedPrefix(ref)}${messageId}`;
  }
  /** What the actor's applied markers start with: the mailbox scripts append a message id to it. */
  appliedPrefix(ref: ActorRef) {
    return `${this.prefix}:applied:${this.actorTag(ref)}:`;
  }
  /** The mailbox id of the last turn whose outbox was fully performed. */
  outboxDone(ref: ActorRef) {
    return `${this.prefix}:outbox-done:${this.actorTag(ref)}:${ref.kind}:${ref.id}`;
  }
  /**
   * Messages of an actor whose senders were told `store_unavailable` (hash: message id -> the notice's
   * reply-stream entry), so each is told once and the notice is withdrawn when the message is applied.
   */
  outageNotices(ref: ActorRef) {
    return `${this.prefix}:outage-notices:${this.actorTag(ref)}:${ref.kind}:${ref.id}`;
  }
  /** An actor's feed: what it publishes to everyone following it (e.g. a game's moves), after each commit. */
  feed(ref: ActorRef) {
    return `${this.prefix}:feed:${this.actorTag(ref)}:${ref.kind}:${ref.id}`;
  }
  /** Per-request reply stream (entry ids become SSE ids), in the partition its message id was minted in. */
  replies(messageId: string) {
    return `${this.prefix}:replies:${this.tag(this.partitionOfMessage(messageId))}:${messageId}`;
  }
  /** Pub/sub channel of one gateway process: the reply events of messages it posted (see ReplyNotifications). */
  replyNotify(processId: string) {
    return `${this.prefix}:reply-notify:${processId}`;
  }
  /** Who may read a reply stream (the sender), kept as long as the stream. */
  replyOwner(messageId: string) {
    return `${this.prefix}:reply-owner:${this.tag(this.partitionOfMessage(messageId))}:${messageId}`;
  }
  /** Gateway-side idempotency: owner + key -> first message id. */
  idempotency(ownerId: string, key: string) {
    return `${this.prefix}:idem:${ownerId}:${key}`;
  }
  /** Batch progress stream. */
  batchEvents(batchId: string) {
    return `${this.prefix}:batch:${this.tag(this.partitionOfMessage(batchId))}:${batchId}`;
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
    return `${this.prefix}:alive:${this.livenessTag()}:${workerId}`;
  }
  /** Worker processes that keep a liveness key (hash: worker id -> the BullMQ workers it runs, JSON). */
  liveness() {
    return `${this.prefix}:liveness:${this.livenessTag()}`;
  }
  /** The liveness keys and their registry share a slot: one script claims lapsed entries across them. */
  private livenessTag() {
    return `{${this.prefix}:liveness}`;
  }
  /** When the owner last cancelled the actor's turns (ms): messages created before it are not applied. */
  cancelled(ref: ActorRef) {
    return `${this.prefix}:cancelled:${this.actorTag(ref)}:${ref.kind}:${ref.id}`;
  }
  /** Pub/sub channel every worker hears: cancel the running turn of an actor (see TurnCancels). */
  cancelChannel() {
    return `${this.prefix}:cancel`;
  }
  /** Pub/sub channel relaying legacy MCP SSE messages to the gateway holding the session. */
  mcpSession(sessionId: string) {
    return `${this.prefix}:mcp-sse:${sessionId}`;
  }

  /** The partition count every process of this prefix uses (see deployment-binding.ts). */
  partitionCount() {
    return `${this.prefix}:partitions`;
  }
  /** The id of the MongoDB deployment this prefix belongs to (see deployment-binding.ts). */
  deployment() {
    return `${this.prefix}:deployment`;
  }

  /**
   * One of a stateful kind's drain queues (one job per actor at a time): `queue` is 0 for the kind's
   * one queue, or a partition when drain queues are per partition.
   */
  actorQueue(kind: string, queue: number): QueueName {
    if (this.drainQueues === 'per-kind') return { name: `${this.prefix}-actor-${kind}`, prefix: `bull:{${this.prefix}:actor-${kind}}` };
    return { name: `${this.prefix}-actor-${kind}-p${queue}`, prefix: `bull:${this.tag(queue)}` };
  }
  /** Which of its kind's drain queues the actor's jobs go to. */
  drainQueueOf(ref: ActorRef): number {
    return this.drainQueues === 'per-kind' ? 0 : this.partitionOf(ref);
  }
  /** Every drain queue of a kind, for what serves or counts them all. */
  allDrainQueues(): number[] {
    return this.drainQueues === 'per-kind' ? [0] : this.allPartitions();
  }
  /** The drain queue of the actor. */
  actorQueueOf(ref: ActorRef): QueueName {
    return this.actorQueue(ref.kind, this.drainQueueOf(ref));
  }
  /** Requests to a stateless service kind. */
  serviceQueue(kind: string): QueueName {
    return { name: `${this.prefix}-service-${kind}`, prefix: `bull:{${this.prefix}:service-${kind}}` };
  }
  /** Delayed deliveries (ctx.schedule). */
  scheduleQueue(): QueueName {
    return { name: `${this.prefix}-schedule`, prefix: `bull:{${this.prefix}:schedule}` };
  }
  /** Pattern matching every key of this prefix's BullMQ queues. */
  queueKeysPattern() {
    return `bull:{${this.prefix}:*`;
  }
}
