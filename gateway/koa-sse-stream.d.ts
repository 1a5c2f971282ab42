/** Types for koa-sse-stream 0.2.0 (CommonJS, ships none), limited to what gateway/sse.ts uses. */
declare module 'koa-sse-stream' {
  import type { Transform } from 'node:stream';

  /** One frame. `data` must be a string: the library's object branch writes `[object Object]`. */
  export interface SseFrame {
    event?: string;
    id?: string;
    retry?: number;
    data?: string;
  }

  /** The library's response stream (readable side: SSE text). */
  export interface SseWriter extends Transform {
    /** A string starting with `:` is written as a comment line. */
    send(frame: string | SseFrame): void;
    /** Writes a last frame (or an `event: close` one when given none) and ends the stream. */
    sendEnd(frame?: string | SseFrame): void;
    ended: boolean;
  }
}

/**
 * The library's writer class, used without its middleware (see gateway/sse.ts). Its constructor sets the
 * SSE response headers on `ctx` and queues an `:ok` comment.
 */
declare module 'koa-sse-stream/lib/sse.js' {
  import type { Context } from 'koa';
  import type { SseWriter } from 'koa-sse-stream';

  const SseTransform: new (ctx: Context) => SseWriter;
  export default SseTransform;
}
