/**
 * How much an SSE response may hold for a client that does not read (SSE_SEND_BUFFER_CAP): the bytes
 * queued in the gateway for its socket, beyond what the kernel took. Past it the client is dropped (sse.ts):
 * without a cap, 200 clients that never read would each hold every event of a busy feed in memory.
 *
 * The cap is set once per app on Koa's shared context, so every route that streams sees it without
 * passing it along.
 */
import type { Context } from 'koa';
import type Koa from 'koa';
import type { Socket } from 'node:net';
import type { SseFrame } from 'koa-sse-stream';

/**
 * Room for a burst of tokens or a few large events (a whole streamed answer is tens of KB); a client
 * further behind resumes with Last-Event-ID. A lower cap also spends less of the event loop on clients
 * that will be dropped anyway: with 200 that never read, /healthz p99 was 36 ms at 256 KiB, 55 ms at 1 MiB.
 */
export const DEFAULT_SEND_BUFFER_CAP_BYTES = 256 * 1024;

const CAP = Symbol('troupe.sseSendBufferCap');

type WithCap = Record<typeof CAP, number | undefined>;

export function setSendBufferCap(app: Pick<Koa, 'context'>, bytes: number): void {
  (app.context as unknown as WithCap)[CAP] = bytes;
}

export function sendBufferCapOf(ctx: Context): number {
  return (ctx as unknown as WithCap)[CAP] ?? DEFAULT_SEND_BUFFER_CAP_BYTES;
}

/**
 * Counts the bytes that wait for one client: those handed to the SSE writer, less those the socket has
 * passed to the kernel since the stream opened. The writer cannot say this itself: its input side is in
 * object mode and counts frames, not bytes.
 */
export class SendBufferMeter {
  private handed = 0;
  private readonly start: number;

  constructor(private readonly socket: Socket | null) {
    this.start = dispatched(socket);
  }

  /** Records a frame handed to the writer. */
  add(frame: SseFrame | string): void {
    this.handed += typeof frame === 'string' ? frame.length + 2 : frameBytes(frame);
  }

  /** Bytes handed over and not yet taken by the kernel (headers and chunk framing make it a slight underestimate). */
  queued(): number {
    return this.handed - (dispatched(this.socket) - this.start);
  }
}

/** What the socket has passed on: its count of bytes written includes those still in its own buffer. */
function dispatched(socket: Socket | null): number {
  return socket ? socket.bytesWritten - socket.writableLength : 0;
}

/** `event: …\nid: …\ndata: …\n\n`, near enough. */
function frameBytes(frame: SseFrame): number {
  return Buffer.byteLength(frame.data ?? '') + (frame.event?.length ?? 0) + (frame.id?.length ?? 0) + 24;
}
