/**
 * Hop timestamps of one message, for finding where a round trip's milliseconds go (TRACE_HOPS on the
 * gateway). The gateway stamps the hops it sees and sends them in the envelope; the worker adds its own
 * and returns them all in the `done` event; the gateway logs the lot as milliseconds since the request
 * arrived. Processes on one machine share its clock, so their stamps compare (to a few microseconds);
 * across machines the worker's hops are only as good as the clocks' sync.
 */
import { z } from 'zod';

export const Hop = z.tuple([z.string().min(1).max(40), z.number().nonnegative()]);
/** [hop name, epoch milliseconds with a fraction]. */
export type Hop = z.infer<typeof Hop>;
export const HopTrace = z.array(Hop).max(32);

/** Now as epoch milliseconds with microseconds (Date.now() has whole milliseconds only). */
export const hop = (name: string): Hop => [name, performance.timeOrigin + performance.now()];

/** Each hop as milliseconds since the first, to a hundredth. */
export function hopOffsets(trace: Hop[]): Record<string, number> {
  const start = trace[0]?.[1] ?? 0;
  return Object.fromEntries(trace.map(([name, at]) => [name, Math.round((at - start) * 100) / 100]));
}
