/**
 * The gateway's side of the runtime: validate a message against its kind's contract, check ownership
 * and double texting, deduplicate by idempotency key, and post it. Replies are read from the reply
 * stream it names. Any gateway process can post to, and read replies of, any actor.
 */
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { createRedisClient, type RedisClient } from '../../queues/redis-client.js';
import type { Connection, Model } from 'mongoose';
import { admit, AdmissionRefused, defineAdmission, leaseOf, type Admission } from '../../queues/admission.js';
import { envelope, refKey, type ActorRef, type Envelope } from '../../queues/envelope.js';
import { hop, type Hop } from '../../queues/hop-trace.js';
import { RedisNames } from '../../queues/keys.js';
import { Mailboxes, OwnerNotConfirmed } from '../../queues/mailbox.js';
import { readAll, REPLY_STREAM_TTL_SECONDS, type ReplyEvent } from '../../queues/reply-stream.js';
import { ReplyReader } from '../../queues/reply-reader.js';
import { ReplyNotifications } from '../../queues/reply-notifications.js';
import { cancelTurns } from '../../queues/turn-cancels.js';
import { actorRecords, type ActorRecord } from '../../models/actor-record.js';
import type { AnyKind } from './contract.js';
import type { FeedData } from './turn.js';
import { Batches, type BatchProgress, type BatchResults } from './batches.js';
import { liveWorkers } from './workers.js';
import { RuntimeError } from './runtime-error.js';
import { DrainForecast } from './drain-forecast.js';
import { DRAIN_LINGER_MS } from './settings.js';

export interface SendInput {
  actor: ActorRef;
  ownerId: string;
  type: string;
  payload: unknown;
  idempotencyKey?: string;
  /** Give up on the message if it has not started within this many ms. */
  timeoutMs?: number;
  /**
   * The sender's limits (gateway/limits.ts), taken with the post: on one Redis server in the same
   * script. A refusal throws AdmissionRefused and nothing is sent; an admitted message carries its lease.
   */
  admission?: Admission;
  batchId?: string;
  /** Hops stamped so far (TRACE_HOPS): the message carries them, adds 'posting', and the worker adds its own. */
  trace?: Hop[];
}

export interface Sent {
  messageId: string;
  replyStream: string;
  /** True when the idempotency key was seen before: nothing new was enqueued. */
  duplicate: boolean;
}

/** One kind's queue as the metrics read it (see `ActorClient.queueStats`). */
export interface QueueStats {
  jobs: Record<string, number>;
  oldestWaitingAt: number | null;
}

/** How long an idempotency key maps to its first message. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
const OWNER_CACHE_TTL_SECONDS = 24 * 60 * 60;
/** A message's poster follows its reply right away; past this, a follower reads the stream instead. */
export const NOTIFIED_FOLLOW_WINDOW_MS = 60_000;
/** A sender refused by its limits gets no early drain jobs for this long (see DrainForecast). */
export const REFUSAL_HOLD_MS = 1_000;

export class ActorClient {
  private readonly kindsByName: Map<string, AnyKind>;
  private readonly redis: RedisClient;
  private readonly queueConnection: RedisClient;
  /** Drain jobs, and the posts whose jobs follow them at once (see PostOptions). */
  private readonly drainConnection: RedisClient;
  private readonly mailboxes: Mailboxes;
  private readonly serviceQueues = new Map<string, Queue>();
  private readonly actors: Model<ActorRecord>;
  readonly batches: Batches;
  private readonly reader: ReplyReader;
  private readonly notifications: ReplyNotifications;
  /** Reply streams of messages this process posted with `notify`, not yet followed (stream -> when posted, to which actor). */
  private readonly notified = new Map<string, { at: number; actorKey: string }>();
  private readonly forecast = new DrainForecast(DRAIN_LINGER_MS, REFUSAL_HOLD_MS);

  constructor(
    redisUrl: string,
    mongo: Connection,
    kinds: AnyKind[],
    readonly names: RedisNames = new RedisNames(),
  ) {
    this.kindsByName = new Map(kinds.map((k) => [k.kind, k]));
    this.redis = createRedisClient(redisUrl, { maxRetriesPerRequest: 3, enableAutoPipelining: true });
    this.queueConnection = createRedisClient(redisUrl, { maxRetriesPerRequest: null });
    // Writes each command at once, and gives up as a post does: a post and its drain job share it (PostOptions).
    this.drainConnection = createRedisClient(redisUrl, { maxRetriesPerRequest: 3 });
    this.mailboxes = new Mailboxes(this.redis, this.drainConnection, names);
    defineAdmission(this.redis);
    this.actors = actorRecords(mongo);
    this.batches = new Batches(mongo, this.redis, names);
    this.reader = new ReplyReader(redisUrl);
    this.notifications = new ReplyNotifications(redisUrl, this.redis, names.replyNotify(randomUUID()));
  }

  kinds(): AnyKind[] {
    return [...this.kindsByName.values()];
  }

  kind(name: string): AnyKind | undefined {
    return this.kindsByName.get(name);
  }

  private serviceQueue(kind: string): Queue {
    let q = this.serviceQueues.get(kind);
    if (!q) {
      const { name, prefix } = this.names.serviceQueue(kind);
      this.serviceQueues.set(kind, (q = new Queue(name, { connection: this.queueConnection, prefix })));
    }
    return q;
  }

  /** Validates without sending (the gateway calls it before taking a rate-limit point or a lease). */
  validate(input: Pick<SendInput, 'actor' | 'type' | 'payload'>): AnyKind {
    const kind = this.kindsByName.get(input.actor.kind);
    if (!kind) throw new RuntimeError('not_found', `no actor kind '${input.actor.kind}'`, { kinds: [...this.kindsByName.keys()] });
    const schema = kind.messages[input.type];
    if (!schema) throw new RuntimeError('bad_request', `unknown message type '${input.type}' for ${kind.kind}`, { valid: Object.keys(kind.messages) });
    const parsed = schema.safeParse(input.payload);
    if (!parsed.success) throw new RuntimeError('bad_request', `invalid payload for ${kind.kind}.${input.type}`, parsed.error.issues);
    return kind;
  }

  /**
   * The actor's owner, or undefined if it has never received a message. Owners never change, so once
   * known an owner is cached in Redis (the actor's owner key, which a post checks in its own script).
   */
  async ownerOf(actor: ActorRef): Promise<string | undefined> {
    let owner = (await this.redis.get(this.names.owner(actor))) ?? undefined;
    if (owner === undefined) {
      owner = (await this.actors.findOne({ _id: refKey(actor) }, { ownerId: 1 }).lean().exec())?.ownerId;
      if (owner !== undefined) await this.redis.set(this.names.owner(actor), owner, 'EX', OWNER_CACHE_TTL_SECONDS);
    }
    return owner;
  }

  /** Throws not_found unless `ownerId` owns the actor or nobody does yet. */
  private async confirmOwner(actor: ActorRef, ownerId: string): Promise<void> {
    const owner = await this.ownerOf(actor);
    if (owner !== undefined && owner !== ownerId) throw new RuntimeError('not_found', `${actor.kind} ${actor.id} not found`);
  }

  /** Reads an actor's committed state for its owner (404 for anyone else, and for shared kinds); the initial state while its first message waits. */
  async state(actor: ActorRef, ownerId: string): Promise<unknown> {
    const kind = this.kindsByName.get(actor.kind);
    if (kind?.stateful && kind.access === 'shared') {
      throw new RuntimeError('not_found', `${actor.kind} ${actor.id} has no readable state: its users see it through its messages`);
    }
    const rec = await this.actors.findOne({ _id: refKey(actor) }, { ownerId: 1, state: 1 }).lean().exec();
    // Not started yet: its first message is queued. Its sender sees the initial state (e.g. "queued").
    if (!rec && kind?.stateful && (await this.firstSender(actor)) === ownerId) return kind.initialState(actor, ownerId);
    if (!rec || rec.ownerId !== ownerId) throw new RuntimeError('not_found', `${actor.kind} ${actor.id} not found`);
    return rec.state;
  }

  /**
   * Cancels the owner's running turn of `actor` and the messages queued before now (their callers get
   * `cancelled`). 404 for another user's actor; 409 when nothing is running or queued.
   */
  async cancel(actor: ActorRef, ownerId: string): Promise<{ cancelled: number }> {
    const kind = this.kindsByName.get(actor.kind);
    if (!kind?.stateful || !kind.cancels?.length) throw new RuntimeError('bad_request', `${actor.kind} turns cannot be cancelled`);
    const owner = (await this.ownerOf(actor)) ?? (await this.firstSender(actor));
    if (owner !== ownerId) throw new RuntimeError('not_found', `${actor.kind} ${actor.id} not found`);
    const pending = await this.mailboxes.pending(actor);
    if (pending === 0) throw new RuntimeError('conflict', `${actor.kind} ${actor.id} has no turn running or queued`);
    await cancelTurns(this.redis, this.names, actor);
    return { cancelled: pending };
  }

  /** Who sent the oldest message still in a new actor's mailbox: its owner-to-be while its first turn runs. */
  private async firstSender(actor: ActorRef): Promise<string | undefined> {
    const [entry] = (await this.redis.xrange(this.names.mailbox(actor), '-', '+', 'COUNT', 1)) as Array<[string, string[]]>;
    const fields = entry?.[1] ?? [];
    const at = fields.indexOf('env');
    const raw = at >= 0 ? fields[at + 1] : undefined;
    try {
      return raw === undefined ? undefined : (JSON.parse(raw) as { ownerId?: string }).ownerId;
    } catch {
      return undefined;
    }
  }

  async send(input: SendInput): Promise<Sent> {
    const kind = this.validate(input);
    // Taken with the post, unless something must be settled before it that the limits must not skip:
    // an idempotency key is claimed before posting, and a service request is a BullMQ job of its own.
    const admitFirst = input.admission !== undefined && (input.idempotencyKey !== undefined || !kind.stateful);
    if (admitFirst) await admit(this.redis, input.admission!);
    if (input.idempotencyKey) {
      const first = await this.redis.get(this.names.idempotency(input.ownerId, input.idempotencyKey));
      if (first) return { messageId: first, replyStream: this.names.replies(first), duplicate: true };
    }
    // An owned actor's post checks its owner key in the posting script itself. Checked before instead
    // when something is settled first that a refusal must not leave behind (an idempotency key's claim)
    // or when a busy actor must be told apart from someone else's.
    const sender = kind.stateful && kind.access !== 'shared' ? input.ownerId : undefined;
    const rejectsWhileBusy = kind.stateful && kind.doubleTexting === 'reject';
    const ownerFirst = sender !== undefined && (input.idempotencyKey !== undefined || rejectsWhileBusy);
    if (ownerFirst) await this.confirmOwner(input.actor, sender);
    if (rejectsWhileBusy && (await this.mailboxes.pending(input.actor)) > 0) {
      throw new RuntimeError('conflict', `${input.actor.kind} ${input.actor.id} is busy with an earlier message`);
    }
    // A reply stream lives in its actor's partition, beside the mailbox the turn finishes in.
    const messageId = kind.stateful ? this.names.messageId(input.actor) : randomUUID();
    if (input.idempotencyKey) {
      const won = await this.redis.set(this.names.idempotency(input.ownerId, input.idempotencyKey), messageId, 'EX', IDEMPOTENCY_TTL_SECONDS, 'NX');
      if (won !== 'OK') {
        const first = (await this.redis.get(this.names.idempotency(input.ownerId, input.idempotencyKey)))!;
        return { messageId: first, replyStream: this.names.replies(first), duplicate: true };
      }
    }
    // The reply is heard on this process's channel when someone here will follow it (not for batch work).
    const notify = input.batchId === undefined && this.notifications.listening ? this.notifications.channel : undefined;
    const env = envelope({
      messageId,
      notify,
      actor: input.actor,
      ownerId: input.ownerId,
      type: input.type,
      payload: input.payload,
      idempotencyKey: input.idempotencyKey,
      replyStream: this.names.replies(messageId),
      deadline: input.timeoutMs ? Date.now() + input.timeoutMs : undefined,
      lease: leaseOf(input.admission),
      batchId: input.batchId,
      trace: input.trace && [...input.trace, hop('posting')],
    });
    const replyOwner = { ownerId: input.ownerId, ttlSeconds: REPLY_STREAM_TTL_SECONDS };
    if (kind.stateful) await this.postToMailbox(env, replyOwner, admitFirst ? undefined : input.admission, ownerFirst ? undefined : sender);
    else {
      // Sent together: whoever asks who may read the reply knows its message id only once both are done.
      const owner = this.redis.set(this.names.replyOwner(messageId), input.ownerId, 'EX', REPLY_STREAM_TTL_SECONDS);
      await Promise.all([owner, this.serviceQueue(kind.kind).add(env.type, env, { jobId: messageId, removeOnComplete: true, removeOnFail: 1000 })]);
    }
    if (notify) this.rememberNotified(env.replyStream!, refKey(input.actor));
    return { messageId, replyStream: env.replyStream!, duplicate: false };
  }

  /**
   * Posts to the actor's mailbox, checking there that `sender` owns it. Without an owner key, MongoDB
   * says who owns the actor (and the key is written back for the next post); an actor nobody owns yet
   * is posted to unchecked.
   */
  private async postToMailbox(env: Envelope, replyOwner: { ownerId: string; ttlSeconds: number }, admission: Admission | undefined, sender: string | undefined): Promise<void> {
    const actorKey = refKey(env.actor);
    try {
      await this.mailboxes.post(env, replyOwner, admission, sender, { drainJobEarly: this.forecast.drainLikelyGone(actorKey, env.ownerId) });
      this.forecast.sawBusy(actorKey);
    } catch (err) {
      if (err instanceof AdmissionRefused) this.forecast.sawRefusal(env.ownerId);
      if (!(err instanceof OwnerNotConfirmed)) throw err;
      if (err.reason === 'another_owner') throw new RuntimeError('not_found', `${env.actor.kind} ${env.actor.id} not found`);
      await this.confirmOwner(env.actor, sender!);
      // The rate point was spent by the first try (on a cluster): this one takes the lease only.
      // Without an early job: the first try's may still be waiting, and then this one's is not needed.
      await this.mailboxes.post(env, replyOwner, admission && err.rateTaken ? { ...admission, ratePoints: 0 } : admission);
      this.forecast.sawBusy(actorKey);
    }
  }

  /** Enqueues many messages as one batch; progress is counted as each one finishes. */
  async sendBatch(ownerId: string, kind: string, messages: Array<Omit<SendInput, 'ownerId' | 'batchId' | 'idempotencyKey'>>): Promise<string> {
    for (const m of messages) this.validate(m);
    const batchId = await this.batches.create(ownerId, kind, messages.length);
    for (const m of messages) await this.send({ ...m, ownerId, batchId });
    return batchId;
  }

  /** Follows the replies to one message (see `replies`). */
  followReply(messageId: string, options: { lastEventId?: string; signal?: AbortSignal; idleTimeoutMs?: number } = {}) {
    return this.replies(this.names.replies(messageId), options);
  }

  /** Follows a batch's progress events. */
  followBatch(batchId: string, options: { lastEventId?: string; signal?: AbortSignal; idleTimeoutMs?: number } = {}) {
    return this.replies(this.names.batchEvents(batchId), options);
  }

  /** True when `ownerId` sent the message whose replies these are (others get 404). */
  async ownsReply(messageId: string, ownerId: string): Promise<boolean> {
    return (await this.redis.get(this.names.replyOwner(messageId))) === ownerId;
  }

  batch(batchId: string, ownerId: string): Promise<BatchProgress | undefined> {
    return this.batches.get(batchId, ownerId);
  }

  batchResults(batchId: string, ownerId: string, page: { after?: string; limit: number }): Promise<BatchResults | undefined> {
    return this.batches.results(batchId, ownerId, page);
  }

  /**
   * Follows a reply stream from after `lastEventId`; ends after a terminal event. The first follower of a
   * message this process just posted hears its events (ReplyNotifications); any other reads the stream
   * (one shared blocking reader per process).
   */
  replies(stream: string, options: { lastEventId?: string; signal?: AbortSignal; idleTimeoutMs?: number } = {}): AsyncGenerator<ReplyEvent> {
    const follow = { lastId: options.lastEventId, signal: options.signal, idleTimeoutMs: options.idleTimeoutMs };
    const posted = this.notified.get(stream);
    if (posted) {
      this.notified.delete(stream);
      // Its drain lingers from the turn's end, which the reply's end tells this process.
      return this.notifications.follow(stream, { ...follow, onEnd: () => this.forecast.sawBusy(posted.actorKey) });
    }
    return this.reader.follow(stream, follow);
  }

  private rememberNotified(stream: string, actorKey: string) {
    const now = Date.now();
    this.notified.set(stream, { at: now, actorKey });
    // Posted but never followed (the client left before the answer began): forgotten after a while.
    for (const [old, { at }] of this.notified) {
      if (at > now - NOTIFIED_FOLLOW_WINDOW_MS) break;
      this.notified.delete(old);
    }
  }

  /**
   * Follows an actor's feed from after `lastEventId` (default: from now on), yielding the entries meant
   * for everyone and those meant for `viewerId`, unwrapped. Ends at a `done` entry or when aborted.
   */
  async *followFeed(actor: ActorRef, viewerId: string, options: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<ReplyEvent> {
    const stream = this.names.feed(actor);
    const from = options.lastEventId ?? (await this.feedPosition(actor));
    for await (const entry of this.reader.follow(stream, { lastId: from, signal: options.signal })) {
      const feed = entry.data as FeedData | null;
      if (feed === null || typeof feed !== 'object' || (feed.to !== null && feed.to !== viewerId)) continue;
      yield { id: entry.id, event: entry.event, data: feed.data };
    }
  }

  /** The id of the newest entry of an actor's feed, or '0' when it has none (where a follower starts). */
  async feedPosition(actor: ActorRef): Promise<string> {
    return ((await this.redis.xrevrange(this.names.feed(actor), '+', '-', 'COUNT', 1)) as Array<[string, string[]]>)[0]?.[0] ?? '0';
  }

  /** Waits for the whole answer (for JSON responses and MCP tools without streaming). */
  async reply(stream: string, options: { signal?: AbortSignal; idleTimeoutMs?: number; onEvent?: (e: ReplyEvent) => void } = {}): Promise<ReplyEvent[]> {
    const events: ReplyEvent[] = [];
    for await (const e of this.replies(stream, options)) {
      options.onEvent?.(e);
      events.push(e);
    }
    return events;
  }

  readAll(stream: string): Promise<ReplyEvent[]> {
    return readAll(this.redis, stream);
  }

  /**
   * Each kind's queue (drain jobs for actors, requests for services), for the queue metrics: job counts
   * by state, and when the oldest waiting job was added (epoch ms; null when none waits).
   */
  async queueStats(): Promise<Record<string, QueueStats>> {
    const out: Record<string, QueueStats> = {};
    for (const kind of this.kindsByName.values()) {
      // A stateful kind's drain jobs may be spread over a queue per partition: summed here.
      const queues = kind.stateful ? this.names.allDrainQueues().map((q) => this.mailboxes.drainQueue(kind.kind, q)) : [this.serviceQueue(kind.kind)];
      const each = await Promise.all(queues.map((queue) => Promise.all([queue.getJobCounts('waiting', 'active', 'delayed', 'failed'), queue.getJobs(['waiting'], 0, 0, true)])));
      const jobs: Record<string, number> = {};
      let oldestWaitingAt: number | null = null;
      for (const [counts, [oldest]] of each) {
        for (const [state, n] of Object.entries(counts)) jobs[state] = (jobs[state] ?? 0) + n;
        if (oldest && (oldestWaitingAt === null || oldest.timestamp < oldestWaitingAt)) oldestWaitingAt = oldest.timestamp;
      }
      out[kind.kind] = { jobs, oldestWaitingAt };
    }
    return out;
  }

  /** Live workers per kind (for /readyz). */
  async liveWorkers(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const k of this.kindsByName.keys()) out[k] = (await liveWorkers(this.redis, this.names, k)).length;
    return out;
  }

  async close() {
    await Promise.all([...this.serviceQueues.values()].map((q) => q.close()));
    await this.mailboxes.close();
    await this.reader.close();
    await this.notifications.close();
    this.redis.disconnect();
    this.queueConnection.disconnect();
    this.drainConnection.disconnect();
  }
}
