/**
 * Cancelling turns (the stop button of an agent conversation). The owner's cancel records its time on
 * the actor (`cancelled` key) and is broadcast to every worker: the one running a turn of that actor,
 * for a message created before the cancel, aborts it; a message still queued is refused when its turn
 * would start; "before" is strict, so a message sent in the same millisecond as the cancel still runs.
 * Broadcast rather than routed because the running turn's worker is not recorded anywhere,
 * and cancels are rare next to messages.
 */
import { createRedisClient, type RedisClient } from './redis-client.js';
import { refKey, type ActorRef } from './envelope.js';
import type { RedisNames } from './keys.js';

/** How long a cancel is remembered: longer than a message waits in a mailbox. */
export const CANCEL_TTL_SECONDS = 60 * 60;

export class CancelledTurn extends Error {
  constructor() {
    super('the turn was cancelled');
    this.name = 'CancelledTurn';
  }
}

interface RunningTurn {
  createdAt: number;
  controller: AbortController;
}

/** The worker side: hears cancels, aborts the turns they name. */
export class TurnCancels {
  private readonly subscriber: RedisClient;
  private readonly running = new Map<string, RunningTurn>();

  constructor(
    redisUrl: string,
    private readonly redis: RedisClient,
    private readonly names: RedisNames,
  ) {
    this.subscriber = createRedisClient(redisUrl, { maxRetriesPerRequest: null, connectionName: names.cancelChannel() });
    this.subscriber.on('message', (_channel: string, raw: string) => this.heard(raw));
    this.subscriber.subscribe(names.cancelChannel()).catch(() => undefined);
  }

  private heard(raw: string) {
    let cancel: { actor?: unknown; at?: unknown };
    try {
      cancel = JSON.parse(raw) as typeof cancel;
    } catch {
      return;
    }
    if (typeof cancel.actor !== 'string' || typeof cancel.at !== 'number') return;
    const turn = this.running.get(cancel.actor);
    if (turn && turn.createdAt < cancel.at) turn.controller.abort(new CancelledTurn());
  }

  /** When the actor's turns were last cancelled (ms), or undefined. */
  async cancelledAt(ref: ActorRef): Promise<number | undefined> {
    const at = await this.redis.get(this.names.cancelled(ref));
    return at === null ? undefined : Number(at);
  }

  /**
   * Registers the turn of a message created at `createdAt`; the signal aborts (with CancelledTurn) when a
   * cancel of the actor arrives. Call the returned function when the turn is over.
   */
  track(ref: ActorRef, createdAt: number): { signal: AbortSignal; done(): void } {
    const key = refKey(ref);
    const turn = { createdAt, controller: new AbortController() };
    this.running.set(key, turn);
    return {
      signal: turn.controller.signal,
      done: () => {
        if (this.running.get(key) === turn) this.running.delete(key);
      },
    };
  }

  async close() {
    this.running.clear();
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}

/** The gateway side: records and broadcasts a cancel of `ref`'s turns created up to now. */
export async function cancelTurns(redis: RedisClient, names: RedisNames, ref: ActorRef, at = Date.now()): Promise<void> {
  await redis.set(names.cancelled(ref), String(at), 'EX', CANCEL_TTL_SECONDS);
  await redis.publish(names.cancelChannel(), JSON.stringify({ actor: refKey(ref), at }));
}
