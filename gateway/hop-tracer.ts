/**
 * TRACE_HOPS: the gateway stamps each message it posts ('received' when the call reaches it, 'posting'
 * as the script that takes the user's limits and appends the message is sent), the worker adds its
 * hops, and when the `done` event comes back the whole path is logged as one line of milliseconds since
 * 'received', with the clock time of 'received' (so a client on this machine can place its own call
 * around them). For finding where a round trip's time goes; off by default (it costs a log line per
 * message).
 */
import type { Logger } from '../actors/runtime/contract.js';
import { hop, hopOffsets, HopTrace, type Hop } from '../queues/hop-trace.js';
import type { ReplyEvent } from '../queues/reply-stream.js';

export class HopTracer {
  constructor(private readonly logger: Logger) {}

  /** The trace of a call that has just arrived. */
  start(): Hop[] {
    return [hop('received')];
  }

  /** Logs the path of a traced message when its `done` event is heard (untraced events are ignored). */
  heard(kind: string, event: Pick<ReplyEvent, 'event' | 'data'>): void {
    if (event.event !== 'done' || typeof event.data !== 'object' || event.data === null) return;
    const { messageId, trace } = event.data as { messageId?: unknown; trace?: unknown };
    const parsed = HopTrace.safeParse(trace);
    if (!parsed.success || parsed.data.length === 0) return;
    const hops = hopOffsets([...parsed.data, hop('reply_heard')]);
    this.logger.info({ kind, messageId, hops_ms: hops, first_hop_at: parsed.data[0][1] }, `hops of ${kind} message ${String(messageId)}: ${Object.entries(hops).map(([name, ms]) => `${name} ${ms}`).join(', ')}`);
  }
}
