/**
 * Whether an actor's drain has likely left, as far as one posting process can tell. A drain lingers
 * DRAIN_LINGER_MS after its last turn, so a message posted later needs a drain job; a poster that
 * expects so sends the job right behind the post instead of after the post's answer, saving the round
 * trip between them (see Mailboxes.post). The forecast only decides that: a wrong one costs a drain job
 * that finds nothing to do, or the round trip, never a message.
 *
 * An actor counts as busy from the moment this process posts to it until its drain's linger is over,
 * measured from the later of the post and the end of the reply this process followed. Posts from other
 * processes are unseen here (the forecast is then "gone" and the job redundant).
 */
export class DrainForecast {
  /** Actors seen busy here, for as long as their drain lingers. */
  private readonly busy: RecentSightings;
  /** Senders whose admission was refused, for the hold time (a refused post's job would find nothing). */
  private readonly refused: RecentSightings;

  constructor(
    /** How long a drain lingers after its last turn. */
    lingerMs: number,
    /** How long a sender refused by its limits gets no early drain job. */
    refusalHoldMs: number,
    now: () => number = Date.now,
  ) {
    this.busy = new RecentSightings(lingerMs, now);
    this.refused = new RecentSightings(refusalHoldMs, now);
  }

  /** The actor was posted to, or a reply of its ended, just now. */
  sawBusy(actorKey: string): void {
    this.busy.saw(actorKey);
  }

  /** The sender's limits refused a post just now. */
  sawRefusal(sender: string): void {
    this.refused.saw(sender);
  }

  /** True when a post from `sender` to the actor should send its drain job right away. */
  drainLikelyGone(actorKey: string, sender: string): boolean {
    return !this.busy.seenWithinWindow(actorKey) && !this.refused.seenWithinWindow(sender);
  }

  /** Entries held (for tests: both stay bounded by what happened within their windows). */
  get size(): number {
    return this.busy.size + this.refused.size;
  }
}

/** Keys seen within the last `windowMs`, each counted from its latest sighting; older ones are dropped. */
class RecentSightings {
  /** Key → when last seen, oldest first (re-inserted on each sighting). */
  private readonly lastSeen = new Map<string, number>();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  saw(key: string): void {
    const now = this.now();
    this.lastSeen.delete(key);
    this.lastSeen.set(key, now);
    for (const [old, at] of this.lastSeen) {
      if (at > now - this.windowMs) return;
      this.lastSeen.delete(old);
    }
  }

  seenWithinWindow(key: string): boolean {
    const at = this.lastSeen.get(key);
    return at !== undefined && at > this.now() - this.windowMs;
  }

  get size(): number {
    return this.lastSeen.size;
  }
}
