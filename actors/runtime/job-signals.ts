/**
 * A worker-wide abort (stop taking turns, or abort the turns in flight) handed to each running job as
 * a signal of its own, all aborted together.
 *
 * Why not one process-wide signal: every concurrent drain adds listeners to the signals it is given (the
 * turn links its own signal to it, a lingering drain waits on it, a handler's fetch listens to it). With
 * fifty drains sharing one signal that is fifty live listeners, and Node warns of a leak past ten. With a
 * signal per job each carries only its own job's listeners, and nothing stays on a long-lived signal when
 * the job ends. (AbortSignal.any would derive them without a listener, but on Node 20 a long-lived source
 * keeps a reference to every signal ever derived from it.)
 */
export class JobSignals {
  private readonly running = new Set<AbortController>();
  private aborted = false;

  /** Runs `job` with a signal that aborts with `abortAll` (already aborted if that has happened). */
  async run<T>(job: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    if (this.aborted) controller.abort();
    else this.running.add(controller);
    try {
      return await job(controller.signal);
    } finally {
      this.running.delete(controller);
    }
  }

  /** Aborts the signal of every running job, and of every job started from now on. */
  abortAll(): void {
    this.aborted = true;
    for (const controller of this.running) controller.abort();
    this.running.clear();
  }
}
