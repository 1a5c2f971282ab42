/**
 * How far a server process's heap may grow past what its last full collection kept before V8 runs the
 * next one (V8's `--heap-growing-percent`, set from HEAP_GROWING_PERCENT).
 *
 * Why troupe sets it: V8 picks that factor (1.1 to 4) at each mark-compact from how fast it collects
 * against how fast the process has lately been allocating into the old generation. After an idle spell
 * the allocation rate it measured is low, so it picks 1.1-1.2; under load a gateway or worker then
 * promotes a few megabytes at every scavenge (garbage within a second) and reaches the tight limit in
 * about a second, a mark-compact each time, each pausing every request in flight. With a fixed factor
 * of four they come every several seconds (README, "How far the heap grows"). V8's memory reducer
 * still shrinks an idle process's heap.
 */
import { setFlagsFromString } from 'node:v8';

/** HEAP_GROWING_PERCENT's default: the old generation may grow to four times what survived. */
export const DEFAULT_HEAP_GROWING_PERCENT = 300;

/** Applies the growth to this process's heap from now on; 0 leaves V8's own policy. */
export function applyHeapGrowingPercent(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
