/**
 * Where a traced run's milliseconds go: the gateway's TRACE_HOPS log lines (see gateway/hop-tracer.ts)
 * gathered into p50 and p99 per hop, as milliseconds since the request reached the gateway; and, for a
 * client that noted when each of its calls started and ended, the time outside those hops.
 */
import { z } from 'zod';
import { hopQuantiles, percentile } from './troupe-processes.js';

const HopLine = z.object({ hops_ms: z.record(z.string(), z.number()), first_hop_at: z.number().optional() });

/** Per hop, p50 and p99 of milliseconds since the request reached the gateway, over `messages` traced messages. */
export interface HopSummary {
  messages: number;
  hops: Record<string, { p50: number; p99: number }>;
}

export function hopPercentiles(logOutput: string): HopSummary {
  return summarize(tracesIn(logOutput).map((t) => t.hops));
}

/**
 * hopPercentiles of the messages that reached the gateway inside one of `windows`, split in two: those
 * that reached it during one of the calls in `apart`, and the rest (e.g. a sequential client's first
 * message after a pause, and its others). Messages outside every window (a warm-up) are left out.
 */
export function hopPercentilesApart(logOutput: string, windows: ClientCall[], apart: ClientCall[]): { apart: HopSummary; rest: HopSummary } {
  const inside = (at: number, calls: ClientCall[]) => calls.some((c) => c.startedAt <= at && at <= c.endedAt);
  const split = { apart: [] as Array<Record<string, number>>, rest: [] as Array<Record<string, number>> };
  for (const { hops, at } of tracesIn(logOutput)) {
    if (at === undefined || !inside(at, windows)) continue;
    (inside(at, apart) ? split.apart : split.rest).push(hops);
  }
  return { apart: summarize(split.apart), rest: summarize(split.rest) };
}

function tracesIn(logOutput: string): Array<{ hops: Record<string, number>; at?: number }> {
  const traces: Array<{ hops: Record<string, number>; at?: number }> = [];
  for (const line of logOutput.split('\n')) {
    if (!line.includes('"hops_ms"')) continue;
    const parsed = HopLine.safeParse(jsonOrNull(line));
    if (parsed.success) traces.push({ hops: parsed.data.hops_ms, at: parsed.data.first_hop_at });
  }
  return traces;
}

function summarize(traces: Array<Record<string, number>>): HopSummary {
  const names = [...new Set(traces.flatMap((t) => Object.keys(t)))];
  const hops: Record<string, { p50: number; p99: number }> = {};
  for (const name of names) {
    const sorted = traces.map((t) => t[name]).filter((v) => v !== undefined).sort((a, b) => a - b);
    hops[name] = { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  }
  return { messages: traces.length, hops };
}

/** One call as its client saw it: clock times (epoch ms with a fraction, `performance.timeOrigin + now()`). */
export interface ClientCall {
  startedAt: number;
  endedAt: number;
}

/**
 * For calls made one after another: how long each took from the client's call to the gateway's first hop
 * ('received': the client library, HTTP, and the gateway's middleware and MCP layer up to the actor
 * call), and from the gateway hearing the reply to the client having its answer (the answer built,
 * written and read). Each call is matched with the traced message whose first hop falls inside it.
 */
export function outsideHops(logOutput: string, calls: ClientCall[]): { calls: number; to_first_hop: { p50: number; p99: number }; after_reply_heard: { p50: number; p99: number } } {
  const traces: Array<{ at: number; replyHeard: number }> = [];
  for (const { hops, at } of tracesIn(logOutput)) {
    const replyHeard = hops.reply_heard;
    if (at !== undefined && replyHeard !== undefined) traces.push({ at, replyHeard });
  }
  traces.sort((a, b) => a.at - b.at);
  const before: number[] = [];
  const after: number[] = [];
  let next = 0;
  for (const call of [...calls].sort((a, b) => a.startedAt - b.startedAt)) {
    while (next < traces.length && traces[next].at < call.startedAt) next += 1;
    const trace = traces[next];
    if (trace === undefined || trace.at > call.endedAt) continue;
    before.push(trace.at - call.startedAt);
    after.push(call.endedAt - (trace.at + trace.replyHeard));
  }
  return { calls: before.length, to_first_hop: hopQuantiles(before), after_reply_heard: hopQuantiles(after) };
}

function jsonOrNull(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return null;
  }
}
