/**
 * MongoDB's fail points (src/mongo/util/fail_point.*), for the test-only `configureFailPoint` and
 * `waitForFailPoint` commands. Only `failCommand` exists here (see commands/fail-command.ts).
 *
 * Semantics kept from mongod:
 * - a pass whose predicate does not match is a miss that consumes nothing (`times`/`skip` unchanged);
 * - `timesEntered` counts hits since the server started and is never reset by `setMode`, which
 *   returns it (configureFailPoint's `count`);
 * - `{ times: n }` hits on the next n passes and then turns itself off — also `{ times: 0 }`, which
 *   (as in mongod) still hits once; `{ skip: n }` misses n passes, then hits on every pass;
 *   `{ activationProbability: p }` hits with probability p.
 */
import { MongoCommandError } from './errors.js';
import { type Doc } from './values.js';

export type FailPointMode = 'off' | 'alwaysOn' | 'times' | 'skip' | 'random';

const INT32_MAX = 2 ** 31 - 1;

export class FailPoint {
  private mode: FailPointMode = 'off';
  /** times: passes left; skip: passes still to skip; random: activation threshold out of INT32_MAX. */
  private modeValue = 0;
  private active = false;
  private payload: Doc = {};
  private hits = 0;
  private readonly waiters = new Set<{ target: number; resolve: () => void }>();

  constructor(readonly name: string) {}

  /** Times the fail point was entered (hit) since the server started. */
  get timesEntered(): number {
    return this.hits;
  }

  get data(): Doc {
    return this.payload;
  }

  /** Sets the mode and data; returns the times entered so far (configureFailPoint's `count`). */
  setMode(mode: FailPointMode, value: number, data: Doc): number {
    this.mode = mode;
    this.modeValue = value;
    this.payload = data;
    this.active = mode !== 'off';
    return this.hits;
  }

  /**
   * One pass over the fail point: returns its data when it is hit, undefined otherwise. A pass the
   * predicate rejects is a miss that neither counts as entered nor consumes `times`/`skip`.
   */
  evaluate(predicate: (data: Doc) => boolean): Doc | undefined {
    if (!this.active) return undefined;
    if (!predicate(this.payload)) return undefined;
    if (!this.evaluateByMode()) return undefined;
    this.hits += 1;
    for (const waiter of this.waiters) {
      if (this.hits >= waiter.target) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
    }
    return this.payload;
  }

  private evaluateByMode(): boolean {
    switch (this.mode) {
      case 'alwaysOn':
        return true;
      case 'random':
        return Math.floor(Math.random() * INT32_MAX) < this.modeValue;
      case 'times':
        this.modeValue -= 1;
        if (this.modeValue <= 0) this.active = false;
        return true;
      case 'skip':
        if (this.modeValue <= 0) return true;
        this.modeValue -= 1;
        return false;
      default:
        return false;
    }
  }

  /**
   * Resolves true once the fail point has been entered at least `target` times in total, false after
   * `timeoutMs` (undefined = no limit) or when one of `signals` aborts. Waits on events, never polls.
   */
  waitForTimesEntered(target: number, timeoutMs: number | undefined, signals: AbortSignal[]): Promise<boolean> {
    if (this.hits >= target) return Promise.resolve(true);
    if (signals.some((s) => s.aborted)) return Promise.resolve(false);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (reached: boolean) => {
        if (timer) clearTimeout(timer);
        for (const s of signals) s.removeEventListener('abort', onAbort);
        this.waiters.delete(waiter);
        resolve(reached);
      };
      const waiter = { target, resolve: () => finish(true) };
      const onAbort = () => finish(false);
      this.waiters.add(waiter);
      for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) timer = setTimeout(() => finish(false), timeoutMs);
    });
  }
}

/** A pending `blockConnection` delay, so a server shutdown can interrupt it. */
interface Block {
  timer: NodeJS.Timeout;
  interrupt(error: MongoCommandError): void;
}

export class FailPointRegistry {
  readonly failCommand = new FailPoint('failCommand');
  private readonly blocks = new Set<Block>();
  private readonly shutdown = new AbortController();

  find(name: string): FailPoint | undefined {
    return name === this.failCommand.name ? this.failCommand : undefined;
  }

  /** Aborted when the server stops: waits in waitForFailPoint end. */
  get stopping(): AbortSignal {
    return this.shutdown.signal;
  }

  /**
   * Sleeps `ms` on a timer (other connections keep being served). The sleep is not cut short when the
   * client disconnects — mongod only marks an operation for kill-on-disconnect after this point — but
   * a server shutdown ends it with InterruptedAtShutdown.
   */
  sleep(ms: number): Promise<void> {
    if (this.shutdown.signal.aborted) return Promise.reject(interruptedAtShutdown());
    return new Promise((resolve, reject) => {
      const block: Block = {
        timer: setTimeout(() => {
          this.blocks.delete(block);
          resolve();
        }, ms),
        interrupt: (error) => {
          clearTimeout(block.timer);
          this.blocks.delete(block);
          reject(error);
        },
      };
      this.blocks.add(block);
    });
  }

  /** Server shutdown: interrupts blocked commands and ends every waitForFailPoint. */
  stop() {
    this.shutdown.abort();
    for (const block of [...this.blocks]) block.interrupt(interruptedAtShutdown());
  }
}

const interruptedAtShutdown = () => new MongoCommandError(11600, 'InterruptedAtShutdown', 'interrupted at shutdown');
