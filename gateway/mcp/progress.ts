/**
 * MCP progress notifications from an actor's partial events. Sent only when the caller asked for
 * progress (a `progressToken` in the request's `_meta`), in event order, and flushed before the result
 * so a client never sees progress after the answer.
 */
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ReplyEvent } from '../../queues/reply-stream.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Longest progress message: enough to show a token or a step name, not a whole document. */
const MAX_MESSAGE_CHARS = 500;

export interface ProgressReporter {
  /** Reports one event (no-op when the caller asked for no progress). */
  report(event: ReplyEvent): void;
  /** Waits until every notification reported so far has been handed to the transport. */
  flush(): Promise<void>;
}

export function progressReporter(extra: Extra): ProgressReporter {
  const token = extra._meta?.progressToken;
  let progress = 0;
  let sending: Promise<void> = Promise.resolve();
  return {
    report(event) {
      if (token === undefined) return;
      progress += 1;
      const params = { progressToken: token, progress, message: describe(event) };
      // A failed notification (client gone) must not fail the call; the result path reports that.
      sending = sending.then(() => extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined));
    },
    flush: () => sending,
  };
}

/** `event: data` as short text, e.g. `token: {"text":"a"}`. */
function describe(event: ReplyEvent): string {
  const text = `${event.event}: ${JSON.stringify(event.data ?? null)}`;
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text;
}
