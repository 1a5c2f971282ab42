/** Garbage collections a test can cause on purpose. */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's `gc()` (a full collection, a mark-compact), made available without starting the process with --expose-gc. */
export function fullGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const newSpaceUsed = (): number => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_used_size;

/**
 * Short-lived objects until the young generation has been collected `scavenges` times, however large
 * it has grown (`--max-semi-space-size` lets V8 grow it with the process's history); returns how many
 * it counted. A scavenge shows as the new space's use falling; a few objects stay reachable in a ring
 * so that the optimising compiler cannot elide the allocations.
 */
export function churn(scavenges = 3): number {
  const ring: Array<{ i: number; text: string }> = new Array(1024);
  let counted = 0;
  let last = newSpaceUsed();
  // The bound: 64 MB semi-spaces filled a hundred times over, far past any young generation here.
  for (let i = 0; counted < scavenges && i < 200_000_000; i++) {
    ring[i & 1023] = { i, text: `item ${i}` };
    if ((i & 4095) === 0) {
      const used = newSpaceUsed();
      if (used < last) counted += 1;
      last = used;
    }
  }
  return counted;
}
