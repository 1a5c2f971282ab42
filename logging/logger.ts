import { pino, type Logger as PinoLogger } from 'pino';
import pinoPretty from 'pino-pretty';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type Logger = PinoLogger;

export interface LoggerOptions {
  level: LogLevel;
  /** Force pretty (true) or JSON (false) output; by default pretty only when the output is a terminal. */
  pretty?: boolean;
  /** File descriptor to write to: 1 (stdout, default) or 2 (stderr, for commands whose stdout is data). */
  fd?: 1 | 2;
}

/**
 * The one place a root logger is built. Entry points call this once and pass the logger (or
 * children of it) to the modules they wire together.
 */
export function createLogger({ level, pretty, fd = 1 }: LoggerOptions): Logger {
  const output = fd === 1 ? process.stdout : process.stderr;
  const usePretty = pretty ?? output.isTTY === true;
  if (usePretty) {
    // A synchronous in-process stream rather than a worker-thread transport, so that the last lines
    // written before process.exit (shutdown, start-up failure) are never lost.
    return pino({ level }, pinoPretty({ destination: fd, colorize: output.isTTY === true, sync: true }));
  }
  return pino({ level }, pino.destination({ dest: fd, sync: true }));
}
