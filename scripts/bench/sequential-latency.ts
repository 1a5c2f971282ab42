/**
 * The latency one client feels: messages sent one after another to one actor over one keep-alive
 * connection, on an otherwise idle troupe (JSON answers and SSE answers measured separately).
 */
import { latencySummary } from './troupe-processes.js';
import { actorsInTurn, allAnswered, runLoad, type AnswerMode } from './request-load.js';

export const LATENCY_TARGETS = { p50_ms: 3, p99_ms: 10 };

export async function sequentialLatency(target: { base: string; key: string }, messages: number, warmup: number, tag: string) {
  const out: Partial<Record<AnswerMode, Record<string, number>>> = {};
  for (const mode of ['json', 'sse'] as const) {
    const shape = { ...target, concurrency: 1, actor: actorsInTurn(`${tag}-${mode}`, 1), mode };
    allAnswered(await runLoad(shape, warmup), warmup);
    out[mode] = latencySummary(allAnswered(await runLoad(shape, messages), messages).latencies, [50, 99]);
  }
  const json = out.json!;
  const sse = out.sse!;
  const meets = (s: Record<string, number>) => s.p50_ms <= LATENCY_TARGETS.p50_ms && s.p99_ms <= LATENCY_TARGETS.p99_ms;
  return { messages, json, sse, targets: LATENCY_TARGETS, json_meets_targets: meets(json), sse_meets_targets: meets(sse) };
}
