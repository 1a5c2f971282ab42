/**
 * What a worker reports as it runs turns, for metrics. Declared here and implemented by whoever wires
 * the process (gateway/metrics.ts's TroupeMetrics), so the runtime depends on no metrics library.
 */

/** How a drain's commit ended: `conflict` when a newer drain held the fence or this process's copy was stale. */
export type CommitResult = 'applied' | 'conflict' | 'failed';

export interface RuntimeObserver {
  /**
   * A stateful actor's turn or a service request ran for `seconds` (the handler and its checks; not the
   * time queued, nor the commit). `outcome`: `reply`, or the error event's code.
   */
  turnFinished(kind: string, outcome: string, seconds: number): void;
  /** A drain waited `seconds` for its conditional commit to MongoDB, group commit included. */
  commitFinished(kind: string, result: CommitResult, seconds: number): void;
}

/** For processes that collect no metrics. */
export const UNOBSERVED: RuntimeObserver = {
  turnFinished: () => undefined,
  commitFinished: () => undefined,
};
