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
  /** Actor key → when it was last seen busy here, oldest first (re-inserted on each sighting). */
  private readonly lastBusy = new Map<string, number>();
  /** Sender → when an admission of theirs was refused, oldest first. */
  private readonly refusals = new Map<string, number>();

  constructor(
    /** How long a drain lingers after its last turn. */
    private readonly lingerMs: number,
    /** How long a sender refused by its limits gets no early drain job (a refused post's job would find nothing). */
    private readonly refusalHoldMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The actor was posted to, or a reply of its ended, just now. */
  sawBusy(actorKey: string): void {
    const now = this.now();
    this.lastBusy.delete(actorKey);
    this.lastBusy.set(actorKey, now);
    forgetBefore(this.lastBusy, now - this.lingerMs);
  }

  /** The sender's limits refused a post just now. */
  sawRefusal(sender: string): void {
    const now = this.now();
    this.refusals.delete(sender);
    this.refusals.set(sender, now);
    forgetBefore(this.refusals, now - this.refusalHoldMs);
  }

  /** True when a post from `sender` to the actor should send its drain job right away. */
  drainLikelyGone(actorKey: string, sender: string): boolean {
    const now = this.now();
    const busy = this.lastBusy.get(actorKey);
    if (busy !== undefined && busy > now - this.lingerMs) return false;
    const refused = this.refusals.get(sender);
    return refused === undefined || refused <= now - this.refusalHoldMs;
  }

  /** Entries held (for tests: both maps stay bounded by what happened within their windows). */
  get size(): number {
    return this.lastBusy.size + this.refusals.size;
  }
}

/** Drops the oldest entries of an insertion-ordered map up to `cutoff`. */
function forgetBefore(times: Map<string, number>, cutoff: number): void {
  for (const [key, at] of times) {
    if (at > cutoff) return;
    times.delete(key);
  }
}
