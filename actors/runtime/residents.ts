/**
 * Actors resident in a worker process: the fence, state and owner its last drain of each actor left
 * behind, so the next drain of the same actor here skips the fencing read.
 *
 * Why this is safe: the commit is still conditional on `{ epoch, appliedSeq }`. If any other drain ran
 * in between (on another worker, which bumped the epoch), the resident copy is stale and its first commit
 * fails; the drain then fences properly and redoes the turn from the stored state. A copy is handed out
 * only when no other drain of that actor is running in this process, so two local drains never share
 * an epoch: a second, concurrent one (BullMQ re-running a stalled job) always fences and so fences out
 * the first.
 *
 * Bounded twice, as actor runtimes bound their activations: by memory (RESIDENT_MEMORY: the least
 * recently committed go first once the copies' estimated size passes it) and by idleness
 * (RESIDENT_IDLE_SECONDS: a copy no drain committed for that long is dropped, so a worker whose actors
 * have gone quiet holds none of them).
 */
import { calculateObjectSize } from 'bson';

export interface Resident {
  epoch: number;
  appliedSeq: string;
  state: unknown;
  ownerId: string | undefined;
}

export interface ResidentClaim {
  /** The actor as this process last committed it, when it may be used without fencing. */
  resident: Resident | undefined;
  /** Ends this drain's claim (always call it, in a finally). */
  release(): void;
}

export interface ResidentBounds {
  /** Estimated bytes the copies may take together (0: keep none). */
  memoryBytes: number;
  /** A copy not committed again for this long is dropped (0: never for idleness). */
  idleMs: number;
}

/**
 * 64 MB holds about 230,000 small actors (an echo counter) or about 14,000 Dominion games (4-5 kB of
 * BSON each when over): every actor a worker is busy with, a small share of its memory.
 */
export const DEFAULT_RESIDENT_MEMORY_BYTES = 64 * 1024 ** 2;
/**
 * Between Akka's passivation default (2 minutes) and Orleans' collection age (15): an actor idle for five
 * minutes is read from MongoDB again when it wakes.
 */
export const DEFAULT_RESIDENT_IDLE_MS = 300_000;
export const DEFAULT_RESIDENT_BOUNDS: ResidentBounds = { memoryBytes: DEFAULT_RESIDENT_MEMORY_BYTES, idleMs: DEFAULT_RESIDENT_IDLE_MS };

/**
 * What a copy is counted as: its state's BSON size (what its commit writes) plus the entry around it
 * (its key, the map entry, the fence and owner), measured at about 250 bytes of V8 heap per echo actor.
 */
export const RESIDENT_ENTRY_BYTES = 256;

interface Entry {
  resident: Resident;
  bytes: number;
  /** When it was last committed here (the map is in that order: oldest first). */
  at: number;
}

export class ResidentActors {
  private readonly residents = new Map<string, Entry>();
  private readonly draining = new Map<string, number>();
  private bytesHeld = 0;
  private readonly sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly bounds: ResidentBounds = DEFAULT_RESIDENT_BOUNDS,
    private readonly now: () => number = Date.now,
  ) {
    if (bounds.memoryBytes > 0 && bounds.idleMs > 0) {
      // A quarter of the idle time: a copy outlives its idleness by at most that much.
      this.sweeper = setInterval(() => this.dropIdle(), Math.max(1_000, Math.floor(bounds.idleMs / 4)));
      this.sweeper.unref();
    }
  }

  /** Marks a drain of the actor as running here; hands out the resident copy if it is the only one. */
  claim(key: string): ResidentClaim {
    const running = this.draining.get(key) ?? 0;
    this.draining.set(key, running + 1);
    const resident = running === 0 ? this.residents.get(key)?.resident : undefined;
    // A concurrent drain fences anew; the copy it would replace must not be used by anyone after it.
    if (running > 0) this.forget(key);
    let released = false;
    return {
      resident,
      release: () => {
        if (released) return;
        released = true;
        const left = (this.draining.get(key) ?? 1) - 1;
        if (left <= 0) this.draining.delete(key);
        else this.draining.set(key, left);
      },
    };
  }

  /** Records the actor as just committed by the only drain of it running here. */
  remember(key: string, resident: Resident) {
    if ((this.draining.get(key) ?? 0) > 1 || this.bounds.memoryBytes === 0) return;
    // Measured at every commit: a handler may have changed the state in place.
    const bytes = RESIDENT_ENTRY_BYTES + stateBytes(resident.state);
    this.forget(key);
    if (bytes > this.bounds.memoryBytes) return;
    this.residents.set(key, { resident, bytes, at: this.now() });
    this.bytesHeld += bytes;
    for (const [oldest, entry] of this.residents) {
      if (this.bytesHeld <= this.bounds.memoryBytes) break;
      this.drop(oldest, entry);
    }
  }

  forget(key: string) {
    const entry = this.residents.get(key);
    if (entry) this.drop(key, entry);
  }

  /** Drops every copy not committed within the idle time; the sweeper calls it, tests may too. */
  dropIdle() {
    if (this.bounds.idleMs <= 0) return;
    const before = this.now() - this.bounds.idleMs;
    for (const [key, entry] of this.residents) {
      if (entry.at > before) break;
      this.drop(key, entry);
    }
  }

  close() {
    clearInterval(this.sweeper);
    this.residents.clear();
    this.bytesHeld = 0;
  }

  get size() {
    return this.residents.size;
  }

  /** The copies' estimated size, against `bounds.memoryBytes`. */
  get bytes() {
    return this.bytesHeld;
  }

  private drop(key: string, entry: Entry) {
    this.residents.delete(key);
    this.bytesHeld -= entry.bytes;
  }
}

/** A state's BSON size; a state BSON cannot size (it would not commit either) counts as too big to keep. */
function stateBytes(state: unknown): number {
  if (state === undefined) return 0;
  try {
    return calculateObjectSize({ state });
  } catch {
    return Number.MAX_SAFE_INTEGER;
  }
}
