/** Garbage collections a test can cause on purpose. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's `gc()` (a full collection, a mark-compact), made available without starting the process with --expose-gc. */
export function fullGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Enough short-lived objects to fill the young generation a few times over (several scavenges). */
export function churn(): number {
  let kept = 0;
  for (let i = 0; i < 2_000_000; i++) kept += { i, text: `item ${i}` }.text.length;
  return kept;
}
