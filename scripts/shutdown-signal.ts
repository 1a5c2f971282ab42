import type { Logger } from '../logging/logger.js';

export interface ShutdownSignal {
  /** The first SIGINT/SIGTERM received, once there is one. */
  readonly signal: NodeJS.Signals | undefined;
  readonly received: Promise<NodeJS.Signals>;
}

/**
 * Listens for SIGINT/SIGTERM. The first starts a clean shutdown; a second one means the operator
 * does not want to wait, so the process exits at once.
 */
export function onShutdownSignal(logger: Logger): ShutdownSignal {
  let first: NodeJS.Signals | undefined;
  let resolveReceived: (signal: NodeJS.Signals) => void = () => undefined;
  const received = new Promise<NodeJS.Signals>((resolve) => {
    resolveReceived = resolve;
  });
  const handle = (signal: NodeJS.Signals) => {
    if (first !== undefined) {
      logger.warn({ signal }, 'second signal: exiting without finishing shutdown');
      process.exit(130);
    }
    first = signal;
    resolveReceived(signal);
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
  return {
    get signal() {
      return first;
    },
    received,
  };
}
