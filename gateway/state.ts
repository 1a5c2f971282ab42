import type { Logger } from '../scripts/logger.js';

/** What the gateway's middleware put on `ctx.state` for the handlers after them. */
export interface GatewayState {
  requestId: string;
  logger: Logger;
}
