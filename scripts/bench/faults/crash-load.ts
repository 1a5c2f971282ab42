/**
 * Load for crash benchmarks and tests: a few slow-counter actors, each sent numbered messages in order
 * (up to `window` outstanding), while the caller kills workers. It knows which turns are running on
 * which process (the `started` event names it), tells when an actor next commits on another process,
 * and in the end counts what was lost, applied twice, out of order, or answered with an error.
 */
import type { ActorClient } from '../../../actors/runtime/client.js';
import type { ReplyEvent } from '../../../queues/reply-stream.js';
import { SLOW_COUNTER, type SlowCounterState, type SlowCounterTurn } from './slow-counter.js';

export interface CrashLoadOptions {
  /** Distinguishes this run's actors. */
  runId: string;
  actors: number;
  /** How long each turn waits (a model call's stand-in). */
  sleepMs: number;
  /** Messages outstanding per actor. */
  window: number;
  /** Messages per actor, at most (the load normally ends with `stop`). */
  maxPerActor: number;
  /** How long a reply may stay silent before it counts as `no_reply`. */
  replyIdleMs: number;
}

/** A turn a process has started and not yet answered. */
export interface RunningTurn {
  actor: string;
  seq: number;
  pid: number;
}

export interface CrashLoadResult {
  messages_sent: number;
  applied: number;
  lost: number;
  applied_twice: number;
  order_violations: number;
  errors_by_code: Record<string, number>;
}

const OWNER = 'crash-load';

export class CrashLoad {
  private stopped = false;
  private readonly sent = new Map<string, number>();
  /** Per actor: the turn started last and not yet answered. */
  private readonly running = new Map<string, RunningTurn>();
  private readonly commitWaiters = new Map<string, Set<(commit: { at: number; pid: number }) => void>>();
  private readonly errors: Record<string, number> = {};
  private loops: Promise<void> | undefined;

  constructor(
    private readonly client: ActorClient,
    private readonly options: CrashLoadOptions,
  ) {}

  get actorIds(): string[] {
    return Array.from({ length: this.options.actors }, (_, i) => `${this.options.runId}-a${i}`);
  }

  start(): void {
    this.loops = Promise.all(this.actorIds.map((id) => this.sendLoop(id))).then(() => undefined);
  }

  /** Turns running right now, per process. */
  runningOn(pid: number): RunningTurn[] {
    return [...this.running.values()].filter((t) => t.pid === pid);
  }

  /** Resolves with when (performance.now()) and where the actor next commits a turn on a process other than `notPid`. */
  nextCommitElsewhere(actor: string, notPid: number): Promise<{ at: number; pid: number }> {
    return new Promise((resolve) => {
      let waiters = this.commitWaiters.get(actor);
      if (!waiters) this.commitWaiters.set(actor, (waiters = new Set()));
      const waiter = (commit: { at: number; pid: number }) => {
        if (commit.pid === notPid) return;
        waiters.delete(waiter);
        resolve(commit);
      };
      waiters.add(waiter);
    });
  }

  /** Stops sending; resolves once every message sent has its answer (or has gone silent). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loops;
  }

  /** Compares each actor's committed state with what was sent to it. */
  async result(): Promise<CrashLoadResult> {
    let sentTotal = 0;
    let applied = 0;
    let lost = 0;
    let twice = 0;
    let disorder = 0;
    for (const id of this.actorIds) {
      const count = this.sent.get(id) ?? 0;
      sentTotal += count;
      const seen = ((await this.client.state({ kind: SLOW_COUNTER, id }, OWNER)) as SlowCounterState | undefined)?.seen ?? [];
      const distinct = new Set(seen);
      applied += distinct.size;
      twice += seen.length - distinct.size;
      for (let seq = 0; seq < count; seq++) if (!distinct.has(seq)) lost += 1;
      for (let i = 1; i < seen.length; i++) if (seen[i] <= seen[i - 1]) disorder += 1;
    }
    return { messages_sent: sentTotal, applied, lost, applied_twice: twice, order_violations: disorder, errors_by_code: { ...this.errors } };
  }

  private async sendLoop(actor: string): Promise<void> {
    const outstanding: Array<Promise<void>> = [];
    for (let seq = 0; seq < this.options.maxPerActor && !this.stopped; seq++) {
      const sent = await this.client.send({ actor: { kind: SLOW_COUNTER, id: actor }, ownerId: OWNER, type: 'add', payload: { seq, sleepMs: this.options.sleepMs } });
      this.sent.set(actor, seq + 1);
      outstanding.push(this.answer(actor, sent.replyStream));
      if (outstanding.length >= this.options.window) await outstanding.shift();
    }
    await Promise.all(outstanding);
  }

  private async answer(actor: string, stream: string): Promise<void> {
    const onEvent = (e: ReplyEvent) => {
      if (e.event === 'started') this.running.set(actor, { actor, ...(e.data as SlowCounterTurn) });
      if (e.event === 'reply') {
        const { seq, pid } = e.data as SlowCounterTurn;
        if (this.running.get(actor)?.seq === seq) this.running.delete(actor);
        const commit = { at: performance.now(), pid };
        for (const waiter of [...(this.commitWaiters.get(actor) ?? [])]) waiter(commit);
      }
      if (e.event === 'error') this.count(String((e.data as { code?: unknown } | null)?.code ?? 'error'));
    };
    // A follow ends quietly after `replyIdleMs` of silence: an answer without its terminal event is none.
    const events = await this.client.reply(stream, { idleTimeoutMs: this.options.replyIdleMs, onEvent }).catch(() => []);
    if (!events.some((e) => e.event === 'done' || e.event === 'error')) this.count('no_reply');
  }

  private count(code: string) {
    this.errors[code] = (this.errors[code] ?? 0) + 1;
  }
}
