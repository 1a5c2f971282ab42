/**
 * Actors resident in a worker process: the fence, state and owner its last drain of each actor left
 * behind, so the next drain of the same actor here skips the fencing read.
 *
 * Why this is safe: the commit is still conditional on `{ epoch, appliedSeq }`. If any other drain ran
 * in between (on another worker, which bumped the epoch), the resident copy is stale and its first commit
 * fails; the drain then fences properly and redoes the turn from the stored state. A copy is handed out
 * only when no other drain of that actor is running in this process, so two local drains never share
 * an epoch: a second, concurrent one (BullMQ re-running a stalled job) always fences and so fences out
 * the first. Bounded: the least recently used actors are forgotten.
 */
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

/**
 * Enough for every actor a worker is busy with (50 drain slots per kind), few enough that large states
 * (a game is tens of kB) stay a small share of its memory. RESIDENT_ACTORS sets another bound.
 */
export const DEFAULT_RESIDENT_ACTORS = 1_000;

export class ResidentActors {
  private readonly residents = new Map<string, Resident>();
  private readonly draining = new Map<string, number>();

  constructor(private readonly capacity = DEFAULT_RESIDENT_ACTORS) {}

  /** Marks a drain of the actor as running here; hands out the resident copy if it is the only one. */
  claim(key: string): ResidentClaim {
    const running = this.draining.get(key) ?? 0;
    this.draining.set(key, running + 1);
    const resident = running === 0 ? this.residents.get(key) : undefined;
    // A concurrent drain fences anew; the copy it would replace must not be used by anyone after it.
    if (running > 0) this.residents.delete(key);
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
    if ((this.draining.get(key) ?? 0) > 1) return;
    this.residents.delete(key);
    this.residents.set(key, resident);
    if (this.residents.size > this.capacity) this.residents.delete(this.residents.keys().next().value!);
  }

  forget(key: string) {
    this.residents.delete(key);
  }

  get size() {
    return this.residents.size;
  }
}
