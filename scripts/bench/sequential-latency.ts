/**
 * The latency one client feels: messages sent one after another to one actor over one keep-alive
 * connection, on an otherwise idle troupe and its naive peer, JSON answers and SSE answers measured
 * separately. The four series run interleaved in blocks, each series keeping its own connection and
 * actor: the processes keep getting faster for thousands of messages after the warm-up (JIT tiers,
 * caches), so a series measured after another would be favoured by its place alone.
 */
import { Agent } from 'node:http';
import { latencySummary } from './troupe-processes.js';
import { actorsInTurn, allAnswered, runLoad, type AnswerMode, type LoadShape } from './request-load.js';

export const LATENCY_TARGETS = { p50_ms: 3, p99_ms: 10 };

/** Blocks each series' messages are split into; the series take turns block by block. */
const BLOCKS = 10;

export interface LatencyTarget {
  base: string;
  key: string;
}

type Series = { target: 'troupe' | 'peer'; mode: AnswerMode; shape: LoadShape; latencies: number[] };

export async function sequentialLatency(targets: { troupe: LatencyTarget; peer: LatencyTarget }, messages: number, warmup: number, tag: string) {
  const series: Series[] = (['troupe', 'peer'] as const).flatMap((target) =>
    (['json', 'sse'] as const).map((mode) => ({
      target,
      mode,
      shape: { ...targets[target], concurrency: 1, mode, actor: actorsInTurn(`${tag}-${target}-${mode}`, 1), agent: new Agent({ keepAlive: true, maxSockets: 1 }) },
      latencies: [] as number[],
    })),
  );
  try {
    for (const s of series) allAnswered(await runLoad(s.shape, warmup), warmup);
    const perBlock = Math.ceil(messages / BLOCKS);
    for (let block = 0; block * perBlock < messages; block++) {
      const count = Math.min(perBlock, messages - block * perBlock);
      // Who goes first rotates, so no series always follows the same one.
      for (let i = 0; i < series.length; i++) {
        const s = series[(block + i) % series.length];
        s.latencies.push(...allAnswered(await runLoad(s.shape, count), count).latencies);
      }
    }
  } finally {
    for (const s of series) s.shape.agent?.destroy();
  }
  const summary = (target: Series['target'], mode: AnswerMode) => latencySummary(series.find((s) => s.target === target && s.mode === mode)!.latencies, [50, 99]);
  const meets = (s: Record<string, number>) => s.p50_ms <= LATENCY_TARGETS.p50_ms && s.p99_ms <= LATENCY_TARGETS.p99_ms;
  const json = summary('troupe', 'json');
  const sse = summary('troupe', 'sse');
  return {
    troupe: { messages, order: `troupe and the peer, JSON and SSE, taking turns in ${BLOCKS} blocks`, json, sse, targets: LATENCY_TARGETS, json_meets_targets: meets(json), sse_meets_targets: meets(sse) },
    peer: { json: summary('peer', 'json'), sse: summary('peer', 'sse') },
  };
}
