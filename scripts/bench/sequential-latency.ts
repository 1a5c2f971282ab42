/**
 * The latency one client feels: messages sent one after another to one actor over one keep-alive
 * connection, on an otherwise idle troupe and its naive peer, JSON answers and SSE answers measured
 * separately. The four series run interleaved in blocks, each series keeping its own connection and
 * actor: the processes keep getting faster for thousands of messages after the warm-up (JIT tiers,
 * caches), so a series measured after another would be favoured by its place alone.
 */
import { Agent } from 'node:http';
import { DRAIN_LINGER_MS } from '../../actors/runtime/settings.js';
import type { ClientCall } from './hop-percentiles.js';
import type { CpuMeter } from './process-cpu.js';
import { latencySummary } from './troupe-processes.js';
import { actorsInTurn, allAnswered, runLoad, type AnswerMode, type LoadShape } from './request-load.js';

export const LATENCY_TARGETS = { p50_ms: 3, p99_ms: 10 };

/** Blocks each series' messages are split into; the series take turns block by block. */
const BLOCKS = 10;

export interface LatencyTarget {
  base: string;
  key: string;
}

type Series = {
  target: 'troupe' | 'peer';
  mode: AnswerMode;
  shape: LoadShape;
  latencies: number[];
  /** The first message of each block, sent after the series sat out the other series' blocks, and that quiet time. */
  afterPause: number[];
  /** Every other message of each block: sent right after the series' previous answer. */
  others: number[];
  quietMs: number[];
  lastEnd: number;
  /** Clock times (see ClientCall) of each block, and of each block's first call. */
  blocks: ClientCall[];
  firstCalls: ClientCall[];
};

/** Now as a clock time: the hop traces' `first_hop_at` unit. */
const clock = () => performance.timeOrigin + performance.now();

/** Each side's processes, for the CPU its timed messages cost (JSON and SSE together). */
export type LatencyCpu = { troupe: CpuMeter; peer: CpuMeter };

export async function sequentialLatency(targets: { troupe: LatencyTarget; peer: LatencyTarget }, messages: number, warmup: number, tag: string, cpu?: LatencyCpu) {
  const series: Series[] = (['troupe', 'peer'] as const).flatMap((target) =>
    (['json', 'sse'] as const).map((mode) => ({
      target,
      mode,
      shape: { ...targets[target], concurrency: 1, mode, actor: actorsInTurn(`${tag}-${target}-${mode}`, 1), agent: new Agent({ keepAlive: true, maxSockets: 1 }) },
      latencies: [] as number[],
      afterPause: [] as number[],
      others: [] as number[],
      quietMs: [] as number[],
      lastEnd: 0,
      blocks: [] as ClientCall[],
      firstCalls: [] as ClientCall[],
    })),
  );
  const perBlock = Math.ceil(messages / BLOCKS);
  try {
    for (const s of series) {
      allAnswered(await runLoad(s.shape, warmup), warmup);
      s.lastEnd = performance.now();
    }
    for (let block = 0; block * perBlock < messages; block++) {
      const count = Math.min(perBlock, messages - block * perBlock);
      // Who goes first rotates, so no series always follows the same one.
      for (let i = 0; i < series.length; i++) {
        const s = series[(block + i) % series.length];
        s.quietMs.push(performance.now() - s.lastEnd);
        const startedAt = clock();
        cpu?.[s.target].resume();
        const answers = await runLoad(s.shape, count);
        cpu?.[s.target].pause();
        const { latencies } = allAnswered(answers, count);
        s.lastEnd = performance.now();
        s.blocks.push({ startedAt, endedAt: clock() });
        // The second call starts after the first ends, so this window holds the first call's message only.
        s.firstCalls.push({ startedAt, endedAt: startedAt + latencies[0] });
        s.latencies.push(...latencies);
        s.afterPause.push(latencies[0]);
        s.others.push(...latencies.slice(1));
      }
    }
  } finally {
    for (const s of series) s.shape.agent?.destroy();
  }
  const seriesOf = (target: Series['target'], mode: AnswerMode) => series.find((s) => s.target === target && s.mode === mode)!;
  const summary = (target: Series['target'], mode: AnswerMode) => latencySummary(seriesOf(target, mode).latencies, [50, 99]);
  const meets = (s: Record<string, number>) => s.p50_ms <= LATENCY_TARGETS.p50_ms && s.p99_ms <= LATENCY_TARGETS.p99_ms;
  const json = summary('troupe', 'json');
  const sse = summary('troupe', 'sse');
  const afterPause = (target: Series['target']) =>
    Object.fromEntries((['json', 'sse'] as const).map((mode) => [mode, latencySummary(seriesOf(target, mode).afterPause, [50])]));
  const others = (target: Series['target']) =>
    Object.fromEntries((['json', 'sse'] as const).map((mode) => [mode, latencySummary(seriesOf(target, mode).others, [50, 99])]));
  return {
    troupe: {
      messages,
      order: `troupe and the peer, JSON and SSE, taking turns in ${BLOCKS} blocks`,
      json,
      sse,
      targets: LATENCY_TARGETS,
      json_meets_targets: meets(json),
      sse_meets_targets: meets(sse),
      first_after_pause: {
        what: `each series' first message of each of its ${BLOCKS} blocks, sent after it sat out the other series' blocks (quiet_ms): counted in the figures above too, 1 in ${perBlock} of them; an actor's drain lingers ${DRAIN_LINGER_MS} ms after its last turn, so troupe's first message after a pause needs a BullMQ job, which its gateway sends right behind the post (the peer's every message needs one)`,
        quiet_ms: latencySummary(series.flatMap((s) => s.quietMs), [50]).p50_ms,
        troupe: afterPause('troupe'),
        naive_peer: afterPause('peer'),
        others: {
          what: `the same series without those messages: the ${perBlock - 1} of each block sent right after the series' previous answer (diagnostic; the targets apply to the figures above)`,
          troupe: others('troupe'),
          naive_peer: others('peer'),
        },
      },
      ...(cpu
        ? {
            cpu_ms_per_msg: {
              what: 'CPU of each process per timed message, JSON and SSE together, summed over the series\' blocks (so the other side\'s blocks are left out)',
              troupe: cpu.troupe.perUnit(2 * messages),
              naive_peer: cpu.peer.perUnit(2 * messages),
            },
          }
        : {}),
    },
    peer: { json: summary('peer', 'json'), sse: summary('peer', 'sse') },
    /** When troupe's series ran, for placing its gateway's hop traces (see hopPercentilesApart). */
    troupeCalls: {
      blocks: series.filter((s) => s.target === 'troupe').flatMap((s) => s.blocks),
      firstAfterPause: series.filter((s) => s.target === 'troupe').flatMap((s) => s.firstCalls),
    },
  };
}
