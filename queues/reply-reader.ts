/**
 * One blocking reader per process for every reply stream its clients follow: a single XREAD over all
 * followed streams, woken with CLIENT UNBLOCK when a new follower arrives, instead of a Redis
 * connection per SSE client.
 *
 * On a Redis Cluster one XREAD may only name streams of one slot, so the reader keeps a lane per hash
 * tag (a partition, see keys.ts): each lane is the same blocking loop on its own connection to the
 * master serving that slot.
 */
import type { Cluster } from 'ioredis';
import { createRedisClient, isCluster, isClusterUrl, nodeClient, type RedisClient } from './redis-client.js';
import { TERMINAL_EVENTS, toEvents, type ReplyEvent } from './reply-stream.js';

interface Follower {
  stream: string;
  lastId: string;
  buffer: ReplyEvent[];
  wake?: () => void;
  ended: boolean;
  /** Set when the shared read failed: the follower ends with this error. */
  error?: unknown;
}

const BLOCK_MS = 5_000;

type FollowOptions = { lastId?: string; signal?: AbortSignal; idleTimeoutMs?: number };

export class ReplyReader {
  private readonly lanes = new Map<string, Promise<ReaderLane>>();
  /** On a cluster: where each slot is served (the lanes' own connections go to one node each). */
  private readonly router: Cluster | undefined;
  /** Set when a lane was dropped for a moved slot: the router's slot map is read afresh before the next lane. */
  private slotsStale = false;
  private closed = false;

  constructor(private readonly redisUrl: string) {
    const client = isClusterUrl(redisUrl) ? createRedisClient(redisUrl, { maxRetriesPerRequest: 3 }) : undefined;
    this.router = client && isCluster(client) ? client : undefined;
  }

  async *follow(stream: string, options: FollowOptions = {}): AsyncGenerator<ReplyEvent> {
    if (this.closed) return;
    const lane = await this.laneOf(stream);
    yield* lane.follow(stream, options);
  }

  /** One lane on a single server; on a cluster, the lane of the stream's hash tag, on the master serving its slot. */
  private laneOf(stream: string): Promise<ReaderLane> {
    const cluster = this.router;
    const tag = cluster ? hashTagOf(stream) : '';
    let lane = this.lanes.get(tag);
    if (!lane) {
      // A lane whose node stopped serving its slot (MOVED after a resharding, a failover) is dropped, so
      // the next follower opens one on the slot's new master.
      const drop = (error: unknown) => {
        if (cluster && /^(MOVED|ASK|CLUSTERDOWN|READONLY)\b/.test(error instanceof Error ? error.message : '')) this.dropLane(tag, created);
      };
      const created: Promise<ReaderLane> = (async () => {
        if (!cluster) return new ReaderLane(createRedisClient(this.redisUrl, { maxRetriesPerRequest: null }), createRedisClient(this.redisUrl, { maxRetriesPerRequest: 3 }), drop);
        const slot = Number(await cluster.cluster('KEYSLOT', stream));
        if (this.slotsStale || cluster.slots[slot] === undefined) {
          this.slotsStale = false;
          await new Promise<void>((resolve) => cluster.refreshSlotsCache(() => resolve()));
        }
        const master = cluster.slots[slot]?.[0];
        if (master === undefined) throw new Error(`no Redis Cluster node serves slot ${slot}`);
        return new ReaderLane(nodeClient(this.redisUrl, master, { maxRetriesPerRequest: null }), nodeClient(this.redisUrl, master, { maxRetriesPerRequest: 3 }), drop);
      })();
      lane = created;
      created.catch(() => this.lanes.delete(tag));
      this.lanes.set(tag, created);
    }
    return lane;
  }

  private dropLane(tag: string, lane: Promise<ReaderLane>) {
    if (this.lanes.get(tag) !== lane) return;
    this.lanes.delete(tag);
    this.slotsStale = true;
    void lane.then((l) => l.close());
  }

  async close() {
    this.closed = true;
    const lanes = await Promise.allSettled(this.lanes.values());
    await Promise.all(lanes.map((lane) => (lane.status === 'fulfilled' ? lane.value.close() : undefined)));
    this.router?.disconnect();
  }
}

/** What a Redis Cluster hashes of a key: the text of its first non-empty `{…}`, else the whole key. */
export function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

/** The blocking loop over the followed streams of one lane. */
class ReaderLane {
  private readerId?: number;
  private readonly followers = new Map<string, Set<Follower>>();
  private running = false;
  /** Bumped on every new follower; the loop records the value its current XREAD was built from. */
  private generation = 0;
  private readingGeneration = -1;
  private blocked = false;
  private closed = false;

  constructor(
    private readonly reader: RedisClient,
    private readonly control: RedisClient,
    /** Told when the shared read fails (the followers end with the error). */
    private readonly onError: (error: unknown) => void,
  ) {
    // A reconnect gives the reader a new client id (after a Redis restart, the old one may be another
    // client's, whose blocking command CLIENT UNBLOCK would then cut short). Asked for on 'ready', the
    // id is read before ioredis resends the interrupted XREAD.
    this.reader.on('close', () => {
      this.readerId = undefined;
    });
    this.reader.on('ready', () => {
      if (this.closed) return;
      this.reader.client('ID').then(
        (id) => {
          this.readerId = Number(id);
        },
        () => undefined,
      );
    });
  }

  async *follow(stream: string, options: FollowOptions): AsyncGenerator<ReplyEvent> {
    const f: Follower = { stream, lastId: options.lastId ?? '0', buffer: [], ended: false };
    let set = this.followers.get(stream);
    if (!set) this.followers.set(stream, (set = new Set()));
    set.add(f);
    this.generation += 1;
    const onAbort = () => f.wake?.();
    options.signal?.addEventListener('abort', onAbort);
    void this.ensureLoop();
    void this.interrupt();
    let idleSince = Date.now();
    try {
      for (;;) {
        if (options.signal?.aborted || this.closed) return;
        if (f.error !== undefined && f.buffer.length === 0) throw f.error;
        const event = f.buffer.shift();
        if (event) {
          idleSince = Date.now();
          yield event;
          if (TERMINAL_EVENTS.has(event.event)) return;
          continue;
        }
        const remaining = options.idleTimeoutMs === undefined ? undefined : options.idleTimeoutMs - (Date.now() - idleSince);
        if (remaining !== undefined && remaining <= 0) return;
        // The idle timer goes when the follower is woken: a long stream waits many times.
        let idleTimer: ReturnType<typeof setTimeout> | undefined;
        await new Promise<void>((resolve) => {
          f.wake = resolve;
          if (remaining !== undefined) idleTimer = setTimeout(resolve, remaining).unref();
        });
        clearTimeout(idleTimer);
        f.wake = undefined;
      }
    } finally {
      f.ended = true;
      set.delete(f);
      if (set.size === 0 && this.followers.get(stream) === set) this.followers.delete(stream);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  private interrupting = false;

  /** Wakes the blocked XREAD so it picks up new streams; repeats until the loop has seen every new follower. */
  private async interrupt() {
    if (this.interrupting) return;
    this.interrupting = true;
    try {
      while (!this.closed && this.running && this.readingGeneration < this.generation) {
        if (this.blocked && this.readerId !== undefined) await this.control.client('UNBLOCK', this.readerId).catch(() => undefined);
        if (this.readingGeneration < this.generation) await new Promise((r) => setTimeout(r, 2));
      }
    } finally {
      this.interrupting = false;
    }
  }

  private async ensureLoop() {
    if (this.running) return;
    this.running = true;
    try {
      this.readerId ??= Number(await this.reader.client('ID'));
      while (!this.closed && this.followers.size > 0) {
        const byStream = new Map<string, string>();
        for (const [stream, set] of this.followers) {
          let from: string | undefined;
          for (const f of set) if (from === undefined || compareIds(f.lastId, from) < 0) from = f.lastId;
          if (from !== undefined) byStream.set(stream, from);
        }
        if (byStream.size === 0) break;
        this.readingGeneration = this.generation;
        this.blocked = true;
        let res: Array<[string, Array<[string, string[]]>]> | null;
        try {
          res = (await this.reader.xread('COUNT', 200, 'BLOCK', BLOCK_MS, 'STREAMS', ...byStream.keys(), ...byStream.values())) as typeof res;
        } finally {
          this.blocked = false;
        }
        for (const [stream, entries] of res ?? []) {
          const events = toEvents(entries);
          for (const f of this.followers.get(stream) ?? []) {
            for (const e of events) if (compareIds(e.id, f.lastId) > 0) f.buffer.push(e);
            if (f.buffer.length) f.lastId = f.buffer[f.buffer.length - 1].id;
            f.wake?.();
          }
        }
      }
    } catch (err) {
      // Redis failed under us: every current follower ends with the error (its caller turns it into an
      // `error` event or a 5xx); the next follower starts a fresh loop.
      for (const set of this.followers.values()) {
        for (const f of set) {
          f.error = err;
          f.wake?.();
        }
      }
      this.followers.clear();
      this.running = false;
      this.onError(err);
      return;
    } finally {
      this.running = false;
    }
    if (!this.closed && this.followers.size > 0) void this.ensureLoop();
  }

  async close() {
    this.closed = true;
    for (const set of this.followers.values()) for (const f of set) f.wake?.();
    if (this.readerId !== undefined && this.blocked) await this.control.client('UNBLOCK', this.readerId).catch(() => undefined);
    this.reader.disconnect();
    this.control.disconnect();
  }
}

/** Orders two stream entry ids (`ms-seq`; a bare `ms` reads as `ms-0`). Called for every event a follower hears: no allocations. */
export function compareIds(a: string, b: string): number {
  const ad = a.indexOf('-');
  const bd = b.indexOf('-');
  const am = Number(ad < 0 ? a : a.slice(0, ad));
  const bm = Number(bd < 0 ? b : b.slice(0, bd));
  if (am !== bm) return am - bm;
  return (ad < 0 ? 0 : Number(a.slice(ad + 1))) - (bd < 0 ? 0 : Number(b.slice(bd + 1)));
}
