/**
 * Test-only actor kinds for runtime tests. `counter` is stateful (it records the order in which its
 * messages were applied); `shout` is a stateless service.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import type { ActorKind, ServiceKind } from '../../actors/runtime/contract.js';

export interface CounterState {
  count: number;
  /** Sequence numbers of applied `add` messages, in the order they were applied. */
  seen: number[];
  /** How many turns were running inside this actor at once, at most (must stay 1). */
  maxConcurrent: number;
}

const running = new Map<string, number>();

export const counterKind: ActorKind<CounterState> = {
  kind: 'counter',
  stateful: true,
  description: 'Test actor: adds numbers, records the order of its messages.',
  messages: {
    add: z.object({ n: z.number().int(), seq: z.number().int().optional(), sleepMs: z.number().int().min(0).max(60_000).optional() }),
    echo: z.object({ text: z.string().max(10_000) }),
    fail: z.object({ reason: z.string() }),
    forward: z.object({ to: z.string(), n: z.number().int() }),
    later: z.object({ delayMs: z.number().int().min(0), n: z.number().int() }),
    announce: z.object({ text: z.string().max(1_000) }),
  },
  limits: { rate: { points: 1000, durationSeconds: 60 }, concurrent: 100 },
  initialState: () => ({ count: 0, seen: [], maxConcurrent: 0 }),
  async handle(state, message, ctx) {
    const key = `${ctx.actor.kind}:${ctx.actor.id}`;
    const now = (running.get(key) ?? 0) + 1;
    running.set(key, now);
    try {
      const p = message.payload as Record<string, unknown>;
      switch (message.type) {
        case 'add': {
          if (p.sleepMs) {
            ctx.emit('started', { seq: p.seq ?? null });
            await delay(p.sleepMs as number, undefined, { signal: ctx.signal });
          }
          state.count += p.n as number;
          if (typeof p.seq === 'number') state.seen.push(p.seq);
          state.maxConcurrent = Math.max(state.maxConcurrent, now);
          ctx.reply({ count: state.count });
          return state;
        }
        case 'echo': {
          for (const word of (p.text as string).split(' ')) ctx.emit('token', { text: word });
          ctx.reply({ text: p.text });
          return state;
        }
        case 'fail':
          throw new Error(p.reason as string);
        case 'forward':
          ctx.send({ kind: 'counter', id: p.to as string }, 'add', { n: p.n });
          ctx.reply({ forwarded: true });
          return state;
        case 'later':
          ctx.schedule(p.delayMs as number, 'add', { n: p.n });
          ctx.reply({ scheduled: true });
          return state;
        case 'announce':
          ctx.publish('announced', { text: p.text });
          ctx.publish('noted', { text: p.text }, { to: message.ownerId });
          ctx.reply({ announced: true });
          return state;
      }
      return state;
    } finally {
      running.set(key, (running.get(key) ?? 1) - 1);
    }
  },
  tools: [
    {
      name: 'counter_add',
      description: 'Adds n to the named counter and returns its new count.',
      input: { counter: z.string().min(1).max(100).regex(/^[A-Za-z0-9._-]+$/), n: z.number().int() },
      output: { count: z.number() },
      toMessage: (args) => ({ actorId: args.counter as string, type: 'add', payload: { n: args.n } }),
    },
    {
      name: 'counter_echo',
      description: 'Echoes text word by word (one progress event per word) and returns it.',
      input: { counter: z.string().min(1).max(100).regex(/^[A-Za-z0-9._-]+$/), text: z.string().min(1).max(1000) },
      output: { text: z.string() },
      toMessage: (args) => ({ actorId: args.counter as string, type: 'echo', payload: { text: args.text } }),
    },
    {
      name: 'counter_fail',
      description: 'Makes the counter fail its turn with the given reason (state unchanged).',
      input: { counter: z.string().min(1).max(100).regex(/^[A-Za-z0-9._-]+$/), reason: z.string().min(1).max(200) },
      toMessage: (args) => ({ actorId: args.counter as string, type: 'fail', payload: { reason: args.reason } }),
    },
  ],
};

export const shoutKind: ServiceKind = {
  kind: 'shout',
  stateful: false,
  description: 'Test service: upper-cases text.',
  concurrency: 4,
  messages: { shout: z.object({ text: z.string().max(10_000) }) },
  handle: (message, ctx) => {
    ctx.emit('progress', { step: 1 });
    return { text: (message.payload as { text: string }).text.toUpperCase() };
  },
  resources: [
    {
      name: 'shouted',
      description: 'Test resource: the text of the URI, upper-cased by the shout service.',
      uriTemplate: 'shout://{text}',
      mimeType: 'text/plain',
      toMessage: (variables) => ({ actorId: 'service', type: 'shout', payload: { text: variables.text } }),
      render: (data) => (data as { text: string }).text,
    },
  ],
};

/** A counter that refuses a message while it still has one to work on (double texting: reject). */
export const strictCounterKind: ActorKind<CounterState> = { ...counterKind, kind: 'strict-counter', doubleTexting: 'reject', tools: [] };

/** A counter whose turns may take at most 200 ms. */
export const hastyCounterKind: ActorKind<CounterState> = { ...counterKind, kind: 'hasty-counter', turnTimeoutMs: 200, tools: [] };

export const testKinds = [counterKind, strictCounterKind, hastyCounterKind, shoutKind];
