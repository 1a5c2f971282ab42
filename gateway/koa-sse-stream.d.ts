/** Types for koa-sse-stream 0.2.0 (CommonJS, ships none), limited to what gateway/sse.ts uses. */
declare module 'koa-sse-stream' {
  import type { Transform } from 'node:stream';
  import type { Middleware } from 'koa';

  /** One frame. `data` must be a string: the library's object branch writes `[object Object]`. */
  export interface SseFrame {
    event?: string;
    id?: string;
    retry?: number;
    data?: string;
  }

  /** The response stream the middleware puts on `ctx.sse` (readable side: SSE text). */
  export interface SseWriter extends Transform {
    /** A string starting with `:` is written as a comment line. */
    send(frame: string | SseFrame): void;
    /** Writes a last frame (or an `event: close` one when given none) and ends the stream. */
    sendEnd(frame?: string | SseFrame): void;
    ended: boolean;
  }

  export interface SseOptions {
    maxClients?: number;
    /** Interval of the library's global ping timer (ms). */
    pingInterval?: number;
    closeEvent?: string;
    matchQuery?: string;
  }

  export default function sse(options?: SseOptions): Middleware;
}
