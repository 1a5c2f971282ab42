import type { Logger } from '../logging/logger.js';

interface ShutdownStep {
  name: string;
  stop: () => Promise<void>;
}

/**
 * Things started one after another, stopped in reverse order: whatever was started last depends on
 * what came before it (the HTTP server uses Mongo and Redis; the mongoose client uses the server).
 */
export class ShutdownSequence {
  private readonly steps: ShutdownStep[] = [];

  add(name: string, stop: () => Promise<void>): void {
    this.steps.push({ name, stop });
  }

  /** Runs every step even if one fails; resolves to true when all succeeded. */
  async run(logger: Logger): Promise<boolean> {
    let clean = true;
    while (this.steps.length > 0) {
      const step = this.steps.pop()!;
      try {
        await step.stop();
        logger.debug({ step: step.name }, 'stopped');
      } catch (error) {
        clean = false;
        logger.error({ err: error, step: step.name }, 'failed to stop cleanly');
      }
    }
    return clean;
  }
}
