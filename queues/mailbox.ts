/**
 * Posting a message: append it to the actor's mailbox (a Redis Stream, so arrival order is kept across
 * every gateway), then make sure one drain job exists for the actor. Deduplication with
 * keepLastIfActive keeps at most one active and one waiting drain per actor.
 *
 * Reading and finishing are single scripts, so a turn costs the drain two Redis round trips:
 * `next` reads the entries still to do (with the applied marker of each, answering duplicates), and
 * `finish` does everything that follows a commit at once — removes the entry, appends the reply events
 * (telling the waiting gateway), remembers the message as applied, releases the concurrency lease,
 * marks the outbox performed, and reads the next entries when asked. Both remove the mailbox key when
 * it is empty, atomically with the read, so a message posted meanwhile is never lost.
 * (The applied-marker keys of entries are derived inside the scripts, so troupe expects one Redis
 * node, not a cluster — as BullMQ's own scripts do without hash tags.)
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { refKey, type ActorRef, type Envelope, type Lease } from './envelope.js';
import type { RedisNames } from './keys.js';
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
  if #entries == 0 then
    redis.call('DEL', mailbox)
    return {}
  end
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

/** KEYS[1] mailbox; ARGV: count, applied-key prefix. */
const NEXT = `${READ_NEXT_LUA}
return read_next(KEYS[1], ARGV[1], ARGV[2])`;

/**
 * KEYS: mailbox, reply stream, applied key, lease key, outbox-done key.
 * ARGV: [1] entry id, [2] next count (0: do not read), [3] applied-key prefix, [4] applied JSON ('' none),
 * [5] applied ttl, [6] lease id ('' none), [7] mark outbox done (1/0), [8] outbox-done ttl,
 * [9] reply maxlen, [10] reply ttl, [11] notify channel ('' none), [12..] reply event/data pairs.
 */
const FINISH = `${APPEND_REPLIES_LUA}
${READ_NEXT_LUA}
redis.call('XDEL', KEYS[1], ARGV[1])
append_replies(KEYS[2], ARGV[9], ARGV[10], ARGV[11], 12, #ARGV)
if ARGV[4] ~= '' then redis.call('SET', KEYS[3], ARGV[4], 'EX', ARGV[5]) end
if ARGV[6] ~= '' then redis.call('ZREM', KEYS[4], ARGV[6]) end
if ARGV[7] == '1' then redis.call('SET', KEYS[5], ARGV[1], 'EX', ARGV[8]) end
if ARGV[2] == '0' then return {} end
return read_next(KEYS[1], ARGV[2], ARGV[3])`;

type RawEntry = [string, string | null, string | null, number];

interface MailboxCommands {
  troupeMailboxNext(mailbox: string, count: string, appliedPrefix: string): Promise<RawEntry[]>;
  troupeMailboxFinish(...keysAndArgs: string[]): Promise<RawEntry[]>;
}

/** What follows a committed turn (see `Mailboxes.finish`). */
export interface TurnFinish {
  actor: ActorRef;
  entryId: string;
  /** Events for the message's reply stream, and the channel to tell. */
  reply?: { stream: string; events: Array<{ e: string; d: unknown }>; notify?: string };
  /** Remember the message as applied, with its final events. */
  applied?: { messageId: string; events: Array<{ e: string; d: unknown }>; ttlSeconds: number };
  lease?: Lease;
  /** Mark the outbox performed (false when other effects of the turn are still under way). */
  outboxDone: { ttlSeconds: number } | false;
  /** Read up to this many next entries (0: the caller still holds some). */
  next: number;
}

export class Mailboxes {
  private readonly drainQueues = new Map<string, Queue>();
  private readonly commands: Redis & MailboxCommands;

  constructor(
    private readonly redis: Redis,
    private readonly connection: Redis,
    private readonly names: RedisNames,
  ) {
    // Defined up front, before any command on the connection (see defineReplyCommands).
    defineReplyCommands(redis);
    redis.defineCommand('troupeMailboxNext', { numberOfKeys: 1, lua: NEXT });
    redis.defineCommand('troupeMailboxFinish', { numberOfKeys: 5, lua: FINISH });
    this.commands = redis as Redis & MailboxCommands;
  }

  drainQueue(kind: string): Queue {
    let q = this.drainQueues.get(kind);
    if (!q) this.drainQueues.set(kind, (q = new Queue(this.names.actorQueue(kind), { connection: this.connection })));
    return q;
  }

  async post(env: Envelope): Promise<string> {
    const entryId = (await this.redis.xadd(this.names.mailbox(env.actor), '*', 'id', env.messageId, 'env', JSON.stringify(env))) as string;
    await this.requestDrain(env.actor);
    return entryId;
  }

  /** Ensures a drain job for the actor (a no-op when one is waiting already). */
  async requestDrain(actor: ActorRef): Promise<void> {
    await this.drainQueue(actor.kind).add(
      'drain',
      actor,
      { deduplication: { id: refKey(actor), keepLastIfActive: true }, removeOnComplete: true, removeOnFail: 1000 },
    );
  }

  /** The next entries still to do, oldest first; none (and the key removed) when the mailbox is empty. */
  async next(actor: ActorRef, count: number): Promise<MailboxEntry[]> {
    return toEntries(await this.commands.troupeMailboxNext(this.names.mailbox(actor), String(count), this.names.applied('')));
  }

  /** Everything that follows a commit, in one script; returns the next entries when `next` > 0. */
  async finish(f: TurnFinish): Promise<MailboxEntry[]> {
    const raw = await this.commands.troupeMailboxFinish(
      this.names.mailbox(f.actor),
      f.reply?.stream ?? this.names.mailbox(f.actor),
      f.applied ? this.names.applied(f.applied.messageId) : this.names.applied(''),
      f.lease?.key ?? this.names.mailbox(f.actor),
      this.names.outboxDone(f.actor),
      f.entryId,
      String(f.next),
      this.names.applied(''),
      f.applied ? JSON.stringify(f.applied.events) : '',
      String(f.applied?.ttlSeconds ?? 0),
      f.lease?.id ?? '',
      f.outboxDone ? '1' : '0',
      String(f.outboxDone ? f.outboxDone.ttlSeconds : 0),
      String(REPLY_STREAM_MAX_LEN),
      String(REPLY_STREAM_TTL_SECONDS),
      f.reply?.notify ?? '',
      ...eventArgs(f.reply?.events ?? []),
    );
    return toEntries(raw);
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
