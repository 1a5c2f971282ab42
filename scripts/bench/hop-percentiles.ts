/**
 * Where a traced run's milliseconds go: the gateway's TRACE_HOPS log lines (see gateway/hop-tracer.ts)
 * gathered into p50 and p99 per hop, as milliseconds since the request reached the gateway.
 */
import { z } from 'zod';
import { percentile } from './troupe-processes.js';

const HopLine = z.object({ hops_ms: z.record(z.string(), z.number()) });

export function hopPercentiles(logOutput: string): { messages: number; hops: Record<string, { p50: number; p99: number }> } {
  const traces: Array<Record<string, number>> = [];
  for (const line of logOutput.split('\n')) {
    if (!line.includes('"hops_ms"')) continue;
    const parsed = HopLine.safeParse(jsonOrNull(line));
    if (parsed.success) traces.push(parsed.data.hops_ms);
  }
  const names = [...new Set(traces.flatMap((t) => Object.keys(t)))];
  const hops: Record<string, { p50: number; p99: number }> = {};
  for (const name of names) {
    const sorted = traces.map((t) => t[name]).filter((v) => v !== undefined).sort((a, b) => a - b);
    hops[name] = { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  }
  return { messages: traces.length, hops };
}

function jsonOrNull(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}
