import type { Logger } from '../logging/logger.js';
import type { EventStreamObserver } from './sse.js';
import type { AuthenticatedUser } from './users.js';

/** What the gateway's middleware put on `ctx.state` for the handlers after them. */
export interface GatewayState {
  requestId: string;
  logger: Logger;
  /** The caller, set by the auth middleware on every route mounted after it. */
  user?: AuthenticatedUser;
  /** Set by the metrics middleware: told of the SSE streams this request opens. */
  eventStreams?: EventStreamObserver;
}
