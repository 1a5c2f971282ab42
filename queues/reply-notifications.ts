/**
 * Replies a gateway hears instead of reading: a message posted with `notify: <this channel>` has its
 * reply events published on that channel by whoever appends them (see APPEND_REPLIES_LUA), so the
 * gateway that posted it streams the reply without a Redis read per request.
 *
 * The reply stream stays the record: a follower catches up from it whenever a notification may have been
 * missed — after the subscriber reconnects, and whenever it has heard nothing for POLL_MS. Notifications
 * that arrive before their follower (a fast reply to a message just posted) wait briefly, unclaimed.
 * Followers of streams this process did not post to, or resuming after a Last-Event-ID, use the
 * blocking ReplyReader instead.
 */
import { createRedisClient, type RedisClient } from './redis-client.js';
import { TERMINAL_EVENTS, toEvents, type ReplyEvent } from './reply-stream.js';
import { compareIds } from './reply-reader.js';
import { isRedisOutage } from './redis-outage.js';

/** A follower that has heard nothing for this long reads the stream itself. */
export const POLL_MS = 1_000;
/** Notifications nobody followed (yet) are kept this long. */
export const UNCLAIMED_MS = 30_000;
export const UNCLAIMED_MAX = 10_000;

interface Follower {
  /** Id of the newest event handed to this follower's buffer. */
  lastId: string;
  buffer: ReplyEvent[];
  wake?: () => void;
}

type Notification = [string, Array<[string, string, string]>];

export class ReplyNotifications {
  private readonly subscriber: RedisClient;
  private readonly followers = new Map<string, Set<Follower>>();
  private readonly unclaimed = new Map<string, { at: number; events: ReplyEvent[] }>();
  private subscribedOnce = false;
  private live = false;
  private closed = false;

  constructor(
    redisUrl: string,
    /** A command connection, for catching up from the stream. */
    private readonly redis: RedisClient,
    readonly channel: string,
  ) {
    // Named after its channel, so `CLIENT LIST` shows which gateway a subscriber belongs to.
    this.subscriber = createRedisClient(redisUrl, { maxRetriesPerRequest: null, connectionName: channel });
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.deliver(message);
    });
    this.subscriber.on('close', () => {
      this.live = false;
    });
    // ioredis subscribes again after a reconnect; whatever was published meanwhile is read from the
    // streams (and anything published before the new subscription took effect, at the next poll).
    this.subscriber.on('ready', () => {
      if (!this.subscribedOnce) return;
      this.live = true;
      for (const set of this.followers.values()) for (const f of set) f.wake?.();
    });
    // Queued until connected; messages name the channel only once this has succeeded.
    this.subscriber.subscribe(this.channel).then(
      () => {
        this.subscribedOnce = true;
        this.live = !this.closed;
      },
      () => undefined,
    );
  }

  /** True while notifications arrive: only then should a message name this channel. */
  get listening(): boolean {
    return this.live && !this.closed;
  }

  /**
   * Follows a reply stream this process posted to with `notify` set to this channel, from its start
   * (or after `lastId`), until a terminal event, the signal, or `idleTimeoutMs` without events.
   * `onEnd` is called once the follow is over, however it ended.
   */
  async *follow(stream: string, options: { lastId?: string; signal?: AbortSignal; idleTimeoutMs?: number; onEnd?: () => void } = {}): AsyncGenerator<ReplyEvent> {
    const f: Follower = { lastId: options.lastId ?? '0', buffer: [] };
    let set = this.followers.get(stream);
    if (!set) this.followers.set(stream, (set = new Set()));
    set.add(f);
    const early = this.unclaimed.get(stream);
    if (early) {
      this.unclaimed.delete(stream);
      this.push(f, early.events);
    }
    const onAbort = () => f.wake?.();
    options.signal?.addEventListener('abort', onAbort);
    let idleSince = Date.now();
    let catchUp = options.lastId !== undefined;
    try {
      for (;;) {
        if (options.signal?.aborted || this.closed) return;
        if (catchUp) {
          catchUp = false;
          const from = f.lastId === '0' ? '-' : `(${f.lastId}`;
          try {
            this.push(f, toEvents((await this.redis.xrange(stream, from, '+')) as Array<[string, string[]]>));
          } catch (error) {
            // Redis is restarting: the message was posted and its reply will be in the stream, so keep
            // waiting (the idle timeout still bounds the wait) and read again at the next poll.
            if (!isRedisOutage(error)) throw error;
          }
        }
        const event = f.buffer.shift();
        if (event) {
          idleSince = Date.now();
          yield event;
          if (TERMINAL_EVENTS.has(event.event)) return;
          continue;
        }
        const idleLeft = options.idleTimeoutMs === undefined ? Infinity : options.idleTimeoutMs - (Date.now() - idleSince);
        if (idleLeft <= 0) return;
        const heard = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), Math.min(POLL_MS, idleLeft));
          timer.unref();
          f.wake = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
        f.wake = undefined;
        // Silence, or a reconnect (woken with nothing new): read the stream to be sure nothing was missed.
        if (!heard || f.buffer.length === 0) catchUp = true;
      }
    } finally {
      set.delete(f);
      if (set.size === 0 && this.followers.get(stream) === set) this.followers.delete(stream);
      options.signal?.removeEventListener('abort', onAbort);
      options.onEnd?.();
    }
  }

  private deliver(message: string) {
    let stream: string;
    let events: ReplyEvent[];
    try {
      const [name, entries] = JSON.parse(message) as Notification;
      stream = name;
      events = entries.map(([id, event, data]) => ({ id, event, data: parseData(data) }));
    } catch {
      return;
    }
    const set = this.followers.get(stream);
    if (set) {
      for (const f of set) {
        this.push(f, events);
        f.wake?.();
      }
      return;
    }
    const held = this.unclaimed.get(stream);
    if (held) held.events.push(...events);
    else this.unclaimed.set(stream, { at: Date.now(), events });
    this.pruneUnclaimed();
  }

  private push(f: Follower, events: ReplyEvent[]) {
    for (const e of events) {
      if (compareIds(e.id, f.lastId) > 0) {
        f.buffer.push(e);
        f.lastId = e.id;
      }
    }
  }

  private pruneUnclaimed() {
    const cutoff = Date.now() - UNCLAIMED_MS;
    for (const [stream, held] of this.unclaimed) {
      if (held.at >= cutoff && this.unclaimed.size <= UNCLAIMED_MAX) break;
      this.unclaimed.delete(stream);
    }
  }

  async close() {
    this.closed = true;
    this.live = false;
    for (const set of this.followers.values()) for (const f of set) f.wake?.();
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}

function parseData(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
