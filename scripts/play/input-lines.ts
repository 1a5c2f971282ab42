/**
 * The person's input, one line at a time, from any readable stream (a terminal or a pipe). Lines that
 * arrive before they are asked for are kept in order; null means the input ended. No raw mode: the
 * terminal's own line editing applies.
 */
import { createInterface, type Interface } from 'node:readline';

export class InputLines {
  private readonly reader: Interface;
  private readonly queued: string[] = [];
  private waiting: ((line: string | null) => void) | null = null;
  private ended = false;

  constructor(input: NodeJS.ReadableStream) {
    this.reader = createInterface({ input, terminal: false, crlfDelay: Infinity });
    this.reader.on('line', (line) => {
      if (this.waiting) this.settle(line);
      else this.queued.push(line);
    });
    this.reader.on('close', () => {
      this.ended = true;
      if (this.waiting) this.settle(null);
    });
  }

  /** The next line, or null once the input has ended and every line was read. */
  next(): Promise<string | null> {
    if (this.queued.length > 0) return Promise.resolve(this.queued.shift()!);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => (this.waiting = resolve));
  }

  close(): void {
    this.reader.close();
  }

  private settle(line: string | null): void {
    const resolve = this.waiting!;
    this.waiting = null;
    resolve(line);
  }
}
