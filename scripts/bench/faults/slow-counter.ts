/**
 * The actor kind the fault benchmarks and fault tests crash workers under: a counter whose turns take a
 * while — waiting (`sleepMs`, like a model call) or holding the event loop (`blockMs`, like a busy
 * computation) — and that records which process ran each turn and in which order its messages were
 * applied, so lost, doubled and reordered messages can be counted afterwards.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import type { ActorKind } from '../../../actors/runtime/contract.js';

export interface SlowCounterState {
  /** Sequence numbers of applied messages, in the order they were applied. */
  seen: number[];
}

/** What `started` and `reply` carry: the message and the worker process that ran it. */
export interface SlowCounterTurn {
  seq: number;
  pid: number;
}

export const SLOW_COUNTER = 'slow-counter';

export const slowCounterKind: ActorKind<SlowCounterState> = {
  kind: SLOW_COUNTER,
  stateful: true,
  description: 'Fault benchmarks: a counter whose turns take a while and name the process that ran them.',
  messages: {
    add: z.object({ seq: z.number().int().min(0), sleepMs: z.number().int().min(0).max(60_000).optional(), blockMs: z.number().int().min(0).max(60_000).optional() }),
  },
  limits: { rate: { points: 1_000_000, durationSeconds: 60 }, concurrent: 100_000 },
  initialState: () => ({ seen: [] }),
  async handle(state, message, ctx) {
    const { seq, sleepMs = 0, blockMs = 0 } = message.payload as { seq: number; sleepMs?: number; blockMs?: number };
    ctx.emit('started', { seq, pid: process.pid } satisfies SlowCounterTurn);
    if (sleepMs > 0) await delay(sleepMs, undefined, { signal: ctx.signal });
    // Holds the event loop on purpose: a slow turn must not make its worker look dead.
    const until = performance.now() + blockMs;
    while (performance.now() < until);
    ctx.reply({ seq, pid: process.pid } satisfies SlowCounterTurn);
    return { seen: [...state.seen, seq] };
  },
};
