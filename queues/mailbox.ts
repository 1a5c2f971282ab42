/**
 * Posting a message: append it to the actor's mailbox (a Redis Stream, so arrival order is kept across
 * every gateway), then make sure a drain will read it: if a drain of the actor is running or lingering
 * (its drainer key exists), wake it; otherwise add a drain job. Deduplication with keepLastIfActive
 * keeps at most one active and one waiting drain job per actor. Both happen in one script, and a drain
 * leaves (deletes its drainer key) only atomically with finding the mailbox empty, so a posted message
 * always has a drain. A poster that expects the drain to have left may add the job right behind the
 * post instead, on the same connection (PostOptions.drainJobEarly), saving the round trip between them.
 *
 * Reading and finishing are single scripts too, so a turn costs the drain two Redis round trips:
 * `next` reads the entries still to do (with the applied marker of each, answering duplicates), and
 * `finish` does everything that follows a commit at once — removes the entry, appends the reply events
 * (telling the waiting gateway) and the events the turn published to the actor's feed, remembers the
 * message as applied, releases the concurrency lease, marks the outbox performed, and reads the next
 * entries when asked. `leave` ends a drain and removes the empty mailbox, so no empty stream stays
 * behind in Redis.
 * Every key a script touches is the actor's, in its partition (see keys.ts), so on a Redis Cluster each
 * script runs on one slot. All are passed in KEYS but one: the applied marker of each entry read is
 * known only once the entry is, so READ_NEXT derives it from the actor's applied-marker prefix, which
 * carries the same hash tag (same slot by construction). The concurrency lease, a key of its user's,
 * is released in the finishing script on one server and beside it on a cluster.
 */
import { Queue } from 'bullmq';
import { ADMIT_LUA, admitCall, admissionArgs, admissionKeys, admit, defineAdmission, settle, type Admission, type AdmissionAnswer } from './admission.js';
import { refKey, type ActorRef, type Envelope, type Lease } from './envelope.js';
import type { RedisNames } from './keys.js';
import { isCluster, type RedisClient } from './redis-client.js';
import { APPEND_REPLIES_LUA, defineReplyCommands, eventArgs, REPLY_STREAM_MAX_LEN, REPLY_STREAM_TTL_SECONDS } from './reply-stream.js';

/** A mailbox entry: its stream id, its envelope (raw JSON), and the final events if it was applied already. */
export interface MailboxEntry {
  entryId: string;
  envelope: string | undefined;
  /** JSON of the first reply's final events when the message was applied before (a duplicate), else null. */
  applied: string | null;
  /** False for entries written without their message id beside the envelope: `applied` is unknown then. */
  appliedChecked: boolean;
}

const READ_NEXT_LUA = `
local function read_next(mailbox, count, applied_prefix)
  local entries = redis.call('XRANGE', mailbox, '-', '+', 'COUNT', count)
  local out = {}
  for i, entry in ipairs(entries) do
    local fields = entry[2]
    local env = false
    local applied = false
    local checked = 0
    for j = 1, #fields, 2 do
      if fields[j] == 'env' then env = fields[j + 1] end
      if fields[j] == 'id' then
        applied = redis.call('GET', applied_prefix .. fields[j + 1])
        checked = 1
      end
    end
    out[i] = {entry[1], env, applied, checked}
  end
  return out
end`;

/** KEYS: mailbox, drainer key; ARGV: count, applied-key prefix, wake channel ('' none), drainer ttl ms. */
const NEXT = `${READ_NEXT_LUA}
if ARGV[3] ~= '' then redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4]) end
return read_next(KEYS[1], ARGV[1], ARGV[2])`;

/**
 * A drain's first read: NEXT, the actor's outage notices (field/value pairs; usually none) and its
 * outbox marker (false when none), in the same step. KEYS: mailbox, drainer key, outage-notices hash,
 * outbox marker; ARGV as NEXT.
 */
const START = `${READ_NEXT_LUA}
if ARGV[3] ~= '' then redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4]) end
return {read_next(KEYS[1], ARGV[1], ARGV[2]), redis.call('HGETALL', KEYS[3]), redis.call('GET', KEYS[4])}`;

/**
 * KEYS: mailbox, drainer key, awaiting-drain set; ARGV: count, applied-key prefix, actor id. The entries,
 * or none and the drain gone (the empty mailbox removed, and with it the actor from the awaiting set).
 */
const LEAVE = `${READ_NEXT_LUA}
local entries = read_next(KEYS[1], ARGV[1], ARGV[2])
if #entries > 0 then return entries end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[3])
return {}`;

/** KEYS: mailbox, drainer key, awaiting-drain set; ARGV: actor id. A drain that stops early: no longer wakeable; the messages left. */
const ABANDON = `
redis.call('DEL', KEYS[2])
local left = redis.call('XLEN', KEYS[1])
if left == 0 then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
end
return left`;

/** KEYS: mailbox, awaiting-drain set; ARGV: actor id. 1 when the mailbox is empty and the actor was forgotten. */
const FORGET_IF_EMPTY = `
if redis.call('XLEN', KEYS[1]) > 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
return 1`;

/**
 * KEYS[6] the actor's owner key, ARGV[8] its sender ('' to post unchecked). A post that names its sender
 * is made only when the owner key says the sender owns the actor: {-1} when the key is missing (the
 * caller asks MongoDB, the source of truth), {-2} when it names someone else. Before anything is taken
 * or written, so a refused post costs the sender nothing.
 */
const OWNER_CHECK = `
if ARGV[8] ~= '' then
  local owner = redis.call('GET', KEYS[6])
  if not owner then return {-1} end
  if owner ~= ARGV[8] then return {-2} end
end`;

/**
 * KEYS: mailbox, drainer key, awaiting-drain set, reply-owner key, the message's applied marker, the
 * owner key (OWNER_CHECK); ARGV: message id, envelope JSON, actor key, actor id, now (ms), reply owner
 * ('' none), reply-owner ttl (s), sender (OWNER_CHECK).
 * {entry id, 1 if a drain job is needed}. The reply's owner is recorded first, so whoever may read the
 * reply stream is known before it has an entry. An actor that needs a job is noted as awaiting a drain in
 * the same step, so a poster that dies before adding the job leaves a mailbox recovery finds.
 * A drain is woken with the actor's key; when the new entry is all its mailbox holds and the message was
 * never applied, the wake-up carries the entry too (see DrainWakeups), so a lingering drain starts the
 * turn without reading the mailbox.
 */
const APPEND = `
if ARGV[6] ~= '' then redis.call('SET', KEYS[4], ARGV[6], 'EX', ARGV[7]) end
local id = redis.call('XADD', KEYS[1], '*', 'id', ARGV[1], 'env', ARGV[2])
local wake = redis.call('GET', KEYS[2])
if wake then
  if redis.call('XLEN', KEYS[1]) == 1 and redis.call('EXISTS', KEYS[5]) == 0 then
    redis.call('PUBLISH', wake, ARGV[3] .. '\\n' .. id .. '\\n' .. ARGV[2])
  else
    redis.call('PUBLISH', wake, ARGV[3])
  end
  return {id, 0}
end
redis.call('ZADD', KEYS[3], 'NX', ARGV[5], ARGV[4])
return {id, 1}`;

const POST = `${OWNER_CHECK}
${APPEND}`;

/**
 * POST, with the sender's admission (queues/admission.ts) on one Redis server: KEYS as POST's, then the
 * lease set and the rate counter; ARGV as POST's, then the admission's. A refusal returns its answer
 * ({0, limit, ms}) and posts nothing; the owner is checked before the limits are taken.
 */
const POST_ADMITTED = `${ADMIT_LUA}
${OWNER_CHECK}
local admitted = ${admitCall(7, 9)}
if admitted[1] == 0 then return admitted end
${APPEND}`;

/**
 * KEYS: mailbox, reply stream, applied key, outbox-done key, drainer key, lease key (on one server only),
 * the actor's feed. ARGV: [1] entry id, [2] next count (0: do not read), [3] applied-key prefix,
 * [4] applied JSON ('' none), [5] applied ttl, [6] mark outbox done (1/0), [7] outbox-done ttl,
 * [8] stream maxlen, [9] stream ttl, [10] notify channel ('' none), [11] drainer ttl ms (0: none),
 * [12] lease id ('' none), [13] how many of the ARGV after it are the reply's, [14..] reply event/data
 * pairs, then the feed's (appended without a channel: feed followers read the stream).
 */
const FINISH = `${APPEND_REPLIES_LUA}
${READ_NEXT_LUA}
redis.call('XDEL', KEYS[1], ARGV[1])
local feed_from = 14 + tonumber(ARGV[13])
append_replies(KEYS[2], ARGV[8], ARGV[9], ARGV[10], 14, feed_from - 1)
append_replies(KEYS[7], ARGV[8], ARGV[9], '', feed_from, #ARGV)
if ARGV[11] ~= '0' then redis.call('PEXPIRE', KEYS[5], ARGV[11]) end
if ARGV[4] ~= '' then redis.call('SET', KEYS[3], ARGV[4], 'EX', ARGV[5]) end
if ARGV[6] == '1' then redis.call('SET', KEYS[4], ARGV[1], 'EX', ARGV[7]) end
if ARGV[12] ~= '' then redis.call('ZREM', KEYS[6], ARGV[12]) end
if ARGV[2] == '0' then return {} end
return read_next(KEYS[1], ARGV[2], ARGV[3])`;

type RawEntry = [string, string | null, string | null, number];
/** OWNER_CHECK's refusals: -1 no owner key, -2 another owner. */
type OwnerRefusal = -1 | -2;

/**
 * A post that named its sender found no owner key for the actor, or one naming another owner. Nothing
 * was posted and no lease is held; `rateTaken`: the admission's rate point was taken before (on a
 * cluster, where the limits are a script of their own), so a second try must not take it again.
 */
export class OwnerNotConfirmed extends Error {
  constructor(
    readonly reason: 'no_owner_key' | 'another_owner',
    readonly rateTaken = false,
  ) {
    super(reason === 'no_owner_key' ? 'the actor has no owner key' : 'the actor has another owner');
    this.name = 'OwnerNotConfirmed';
  }
}

interface MailboxCommands {
  troupeMailboxNext(mailbox: string, drainer: string, count: string, appliedPrefix: string, wake: string, ttlMs: string): Promise<RawEntry[]>;
  troupeMailboxStart(mailbox: string, drainer: string, notices: string, outboxDone: string, count: string, appliedPrefix: string, wake: string, ttlMs: string): Promise<[RawEntry[], string[], string | null]>;
  troupeMailboxFinish(...keysAndArgs: string[]): Promise<RawEntry[]>;
  troupeMailboxLeave(mailbox: string, drainer: string, awaiting: string, count: string, appliedPrefix: string, actorId: string): Promise<RawEntry[]>;
  troupeMailboxAbandon(mailbox: string, drainer: string, awaiting: string, actorId: string): Promise<number>;
  troupeMailboxForgetIfEmpty(mailbox: string, awaiting: string, actorId: string): Promise<number>;
  troupeMailboxPost(...keysAndArgs: string[]): Promise<[string, number] | [OwnerRefusal]>;
  troupeMailboxPostAdmitted(...keysAndArgs: string[]): Promise<[string, number] | [OwnerRefusal] | AdmissionAnswer>;
}

/** A drain that can be woken while it runs or lingers: its worker's wake channel and how long its drainer key lives. */
export interface Wakeable {
  channel: string;
  ttlMs: number;
}

/** What follows a committed turn (see `Mailboxes.finish`). */
export interface TurnFinish {
  actor: ActorRef;
  entryId: string;
  /** Events for the message's reply stream, and the channel to tell. */
  reply?: { stream: string; events: Array<{ e: string; d: unknown }>; notify?: string };
  /** Events the turn published to the actor's feed (a stream in the actor's partition). */
  feed?: Array<{ e: string; d: unknown }>;
  /** Remember the message as applied, with its final events. */
  applied?: { messageId: string; events: Array<{ e: string; d: unknown }>; ttlSeconds: number };
  lease?: Lease;
  /** Mark the outbox performed (false when other effects of the turn are still under way). */
  outboxDone: { ttlSeconds: number } | false;
  /** Read up to this many next entries (0: the caller still holds some). */
  next: number;
  /** Keep the drainer key alive this much longer (a wakeable drain). */
  wakeable?: Wakeable;
}

/** The posting scripts, defined on the commands connection and on the drain queues' (see PostOptions). */
type PostCommands = Pick<MailboxCommands, 'troupeMailboxPost' | 'troupeMailboxPostAdmitted'>;

function definePostCommands(client: RedisClient): void {
  client.defineCommand('troupeMailboxPost', { numberOfKeys: 6, lua: POST });
  client.defineCommand('troupeMailboxPostAdmitted', { numberOfKeys: 8, lua: POST_ADMITTED });
}

export interface PostOptions {
  /**
   * Add the drain job right behind the post, without waiting for the post's answer to say whether one is
   * needed: for a poster that expects the actor's drain to have left (see DrainForecast), this saves a
   * round trip. When a drain was there after all, or the post is refused, the job finds nothing to do.
   * The post then goes over the drain queues' connection right before its job, so Redis runs them in
   * that order (a connection without auto-pipelining writes both at once, as the gateway's does).
   */
  drainJobEarly?: boolean;
}

export class Mailboxes {
  private readonly drainQueues = new Map<string, Queue>();
  private readonly commands: RedisClient & MailboxCommands;
  /** The posting scripts on the drain queues' connection, for a post whose drain job follows it at once. */
  private readonly queueCommands: PostCommands;
  /** On a cluster a script may not touch another partition's (or user's) keys. */
  private readonly cluster: boolean;

  constructor(
    private readonly redis: RedisClient,
    private readonly connection: RedisClient,
    private readonly names: RedisNames,
  ) {
    // Defined up front, before any command on the connection (see defineReplyCommands).
    defineReplyCommands(redis);
    redis.defineCommand('troupeMailboxNext', { numberOfKeys: 2, lua: NEXT });
    redis.defineCommand('troupeMailboxStart', { numberOfKeys: 4, lua: START });
    redis.defineCommand('troupeMailboxFinish', { numberOfKeys: 7, lua: FINISH });
    redis.defineCommand('troupeMailboxLeave', { numberOfKeys: 3, lua: LEAVE });
    redis.defineCommand('troupeMailboxAbandon', { numberOfKeys: 3, lua: ABANDON });
    definePostCommands(redis);
    defineAdmission(redis);
    redis.defineCommand('troupeMailboxForgetIfEmpty', { numberOfKeys: 2, lua: FORGET_IF_EMPTY });
    this.commands = redis as RedisClient & MailboxCommands;
    if (connection !== redis) definePostCommands(connection);
    this.queueCommands = connection as RedisClient & PostCommands;
    this.cluster = isCluster(redis);
  }

  /** One of a kind's drain queues (see RedisNames.actorQueue). */
  drainQueue(kind: string, queue: number): Queue {
    const { name, prefix } = this.names.actorQueue(kind, queue);
    let q = this.drainQueues.get(name);
    if (!q) this.drainQueues.set(name, (q = new Queue(name, { connection: this.connection, prefix })));
    return q;
  }

  /**
   * Appends the message; wakes the actor's running drain, or adds a drain job when there is none.
   * `replyOwner`: who may read the message's reply stream, recorded in the same step. `admission`: the
   * sender's limits, taken first (in the same script on one server, just before it on a cluster);
   * throws AdmissionRefused, having posted nothing, when they refuse. `sender`: post only if the
   * actor's owner key names this sender; otherwise throws OwnerNotConfirmed, having posted nothing and
   * holding no lease (on a cluster the rate point stays taken: the limits ran first, in their own slot).
   * `drainJobAdded`: a drain job was added (or found waiting) for this post.
   */
  async post(env: Envelope, replyOwner?: { ownerId: string; ttlSeconds: number }, admission?: Admission, sender?: string, options: PostOptions = {}): Promise<{ entryId: string; drainJobAdded: boolean }> {
    const { actor } = env;
    // The turn's finishing script writes the reply stream beside the mailbox: both in one partition.
    if ((replyOwner || env.replyStream) && this.names.partitionOfMessage(env.messageId) !== this.names.partitionOf(actor)) {
      throw new Error(`message ${env.messageId} expects a reply but was not minted in the partition of ${refKey(actor)} (use RedisNames.messageId)`);
    }
    const admittedApart = admission !== undefined && this.cluster;
    if (admittedApart) await admit(this.redis, admission);
    const keys = [
      this.names.mailbox(actor),
      this.names.drainer(actor),
      this.names.awaitingDrainOf(actor),
      replyOwner ? this.names.replyOwner(env.messageId) : this.names.mailbox(actor),
      this.names.applied(actor, env.messageId),
      this.names.owner(actor),
    ];
    const args = [env.messageId, JSON.stringify(env), refKey(actor), actor.id, String(Date.now()), replyOwner?.ownerId ?? '', String(replyOwner?.ttlSeconds ?? 0), sender ?? ''];
    // An early job must reach Redis after its post: both go over the drain queues' connection, in order.
    const via = options.drainJobEarly ? this.queueCommands : this.commands;
    const posting =
      admission && !admittedApart
        ? via.troupeMailboxPostAdmitted(...keys, ...admissionKeys(admission), ...args, ...admissionArgs(admission))
        : via.troupeMailboxPost(...keys, ...args);
    // Redis runs it after the post, so whatever drain it starts finds the message or is woken for it.
    const earlyJob = options.drainJobEarly ? this.requestDrain(actor) : undefined;
    // A refused post's early job finds nothing to do; its failure matters only when the post went through.
    earlyJob?.catch(() => undefined);
    const answer = await posting;
    // A refusal answers {0, limit, ms} (the limits) or {-1} / {-2} (the owner); a post answers {entry id, …}.
    if (answer[0] === -1 || answer[0] === -2) {
      // The lease is the one limit a refused post must give back (the rate point is spent, as a request).
      if (admittedApart && admission.leaseId !== '') await this.redis.zrem(admission.leaseKey, admission.leaseId);
      throw new OwnerNotConfirmed(answer[0] === -1 ? 'no_owner_key' : 'another_owner', admittedApart && admission.ratePoints > 0);
    }
    if (typeof answer[0] === 'number') settle(answer as AdmissionAnswer);
    const [entryId, needsJob] = answer as [string, number];
    if (earlyJob) await earlyJob;
    else if (needsJob === 1) await this.requestDrain(actor);
    return { entryId, drainJobAdded: earlyJob !== undefined || needsJob === 1 };
  }

  /** Ensures a drain job for the actor (a no-op when one is waiting already). */
  async requestDrain(actor: ActorRef): Promise<void> {
    await this.drainQueue(actor.kind, this.names.drainQueueOf(actor)).add(
      'drain',
      actor,
      { deduplication: { id: refKey(actor), keepLastIfActive: true }, removeOnComplete: true, removeOnFail: 1000 },
    );
  }

  /**
   * A drain's first read: the entries still to do, the actor's outage notices (field/value pairs of its
   * hash: message id, notice JSON), and its outbox marker (the last turn whose effects all happened; a
   * drain that fences after this read compares it with the fenced record). A wakeable drain claims the
   * actor's drainer key.
   */
  async start(actor: ActorRef, count: number, wakeable?: Wakeable): Promise<{ entries: MailboxEntry[]; notices: string[]; outboxDone: string | null }> {
    const [raw, notices, outboxDone] = await this.commands.troupeMailboxStart(
      this.names.mailbox(actor),
      this.names.drainer(actor),
      this.names.outageNotices(actor),
      this.names.outboxDone(actor),
      String(count),
      this.names.appliedPrefix(actor),
      wakeable?.channel ?? '',
      String(wakeable?.ttlMs ?? 0),
    );
    return { entries: toEntries(raw), notices, outboxDone: outboxDone ?? null };
  }

  /** The next entries still to do, oldest first. A wakeable drain (re)claims the actor's drainer key. */
  async next(actor: ActorRef, count: number, wakeable?: Wakeable): Promise<MailboxEntry[]> {
    return toEntries(
      await this.commands.troupeMailboxNext(this.names.mailbox(actor), this.names.drainer(actor), String(count), this.names.appliedPrefix(actor), wakeable?.channel ?? '', String(wakeable?.ttlMs ?? 0)),
    );
  }

  /** Ends a drain if the mailbox is empty (removing it and the drainer key); else returns what is left to do. */
  async leave(actor: ActorRef, count: number): Promise<MailboxEntry[]> {
    return toEntries(
      await this.commands.troupeMailboxLeave(this.names.mailbox(actor), this.names.drainer(actor), this.names.awaitingDrainOf(actor), String(count), this.names.appliedPrefix(actor), actor.id),
    );
  }

  /** A drain stopping early: posts add drain jobs again. Returns how many messages are left. */
  abandon(actor: ActorRef): Promise<number> {
    return this.commands.troupeMailboxAbandon(this.names.mailbox(actor), this.names.drainer(actor), this.names.awaitingDrainOf(actor), actor.id);
  }

  /**
   * Actors of `kind` in `partition` noted as awaiting a drain since before `before` (ms), a page at a
   * time (oldest first): orphan recovery's candidates.
   */
  awaitingDrainSince(kind: string, partition: number, before: number, offset: number, count: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.names.awaitingDrain(kind, partition), '-inf', before, 'LIMIT', offset, count);
  }

  /** Forgets an actor noted as awaiting a drain if its mailbox is empty; true if it was (atomic with a post). */
  async forgetIfEmpty(actor: ActorRef): Promise<boolean> {
    return (await this.commands.troupeMailboxForgetIfEmpty(this.names.mailbox(actor), this.names.awaitingDrainOf(actor), actor.id)) === 1;
  }

  /**
   * Everything that follows a commit, in one script; returns the next entries when `next` > 0. On a
   * cluster the lease, a key of its user's (another slot), is released beside the script, in the same
   * write: should the process die between the two, the lease lapses at its expiry.
   */
  async finish(f: TurnFinish): Promise<MailboxEntry[]> {
    const leaseInScript = f.lease !== undefined && !this.cluster;
    const release = f.lease && !leaseInScript ? this.redis.zrem(f.lease.key, f.lease.id) : undefined;
    const replyArgs = eventArgs(f.reply?.events ?? []);
    const raw = this.commands.troupeMailboxFinish(
      this.names.mailbox(f.actor),
      f.reply?.stream ?? this.names.mailbox(f.actor),
      this.names.applied(f.actor, f.applied?.messageId ?? ''),
      this.names.outboxDone(f.actor),
      this.names.drainer(f.actor),
      leaseInScript ? f.lease!.key : this.names.mailbox(f.actor),
      this.names.feed(f.actor),
      f.entryId,
      String(f.next),
      this.names.appliedPrefix(f.actor),
      f.applied ? JSON.stringify(f.applied.events) : '',
      String(f.applied?.ttlSeconds ?? 0),
      f.outboxDone ? '1' : '0',
      String(f.outboxDone ? f.outboxDone.ttlSeconds : 0),
      String(REPLY_STREAM_MAX_LEN),
      String(REPLY_STREAM_TTL_SECONDS),
      f.reply?.notify ?? '',
      String(f.wakeable?.ttlMs ?? 0),
      leaseInScript ? f.lease!.id : '',
      String(replyArgs.length),
      ...replyArgs,
      ...eventArgs(f.feed ?? []),
    );
    const [entries] = await Promise.all([raw, release]);
    return toEntries(entries);
  }

  /** Messages waiting in the actor's mailbox (applied ones are trimmed away). */
  pending(actor: ActorRef): Promise<number> {
    return this.redis.xlen(this.names.mailbox(actor));
  }

  async close() {
    await Promise.all([...this.drainQueues.values()].map((q) => q.close()));
  }
}

function toEntries(raw: RawEntry[]): MailboxEntry[] {
  return raw.map(([entryId, envelope, applied, checked]) => ({ entryId, envelope: envelope ?? undefined, applied: applied ?? null, appliedChecked: checked === 1 }));
}
