/**
 * A Chrome DevTools Protocol session with another Node process started with `--inspect`, for
 * benchmarks that must force a garbage collection there before reading its memory: nothing else can
 * trigger a GC from outside, and a heap read without one counts whatever garbage happens to be left.
 * Node 20 has no WebSocket client and troupe has no dependency on one, so this speaks the little of
 * RFC 6455 the inspector needs: masked text frames out, unmasked (possibly fragmented) frames in.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** The inspector's WebSocket URL, from the line `node --inspect` prints on stderr. */
export function inspectorUrl(output: string): string | undefined {
  return /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];
}

const TEXT = 0x1;
const CLOSE = 0x8;
const PING = 0x9;
const PONG = 0xa;

/** One client frame: FIN set, masked as RFC 6455 requires of clients. */
function clientFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const extended = length < 126 ? 0 : length < 65536 ? 2 : 8;
  const header = Buffer.alloc(2 + extended);
  header[0] = 0x80 | opcode;
  header[1] = 0x80 | (extended === 0 ? length : extended === 2 ? 126 : 127);
  if (extended === 2) header.writeUInt16BE(length, 2);
  if (extended === 8) header.writeBigUInt64BE(BigInt(length), 2);
  const mask = randomBytes(4);
  return Buffer.concat([header, mask, Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]))]);
}

/** Splits complete server frames off `buffer`; returns them and what is left for the next chunk. */
function serverFrames(buffer: Buffer): { frames: Array<{ fin: boolean; opcode: number; payload: Buffer }>; rest: Buffer } {
  const frames: Array<{ fin: boolean; opcode: number; payload: Buffer }> = [];
  let at = 0;
  for (;;) {
    if (buffer.length - at < 2) break;
    const fin = (buffer[at] & 0x80) !== 0;
    const opcode = buffer[at] & 0x0f;
    let length = buffer[at + 1] & 0x7f;
    let start = at + 2;
    if (length === 126) {
      if (buffer.length - at < 4) break;
      length = buffer.readUInt16BE(at + 2);
      start = at + 4;
    } else if (length === 127) {
      if (buffer.length - at < 10) break;
      length = Number(buffer.readBigUInt64BE(at + 2));
      start = at + 10;
    }
    if (buffer.length < start + length) break;
    frames.push({ fin, opcode, payload: buffer.subarray(start, start + length) });
    at = start + length;
  }
  return { frames, rest: buffer.subarray(at) };
}

export class InspectorSession {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();

  /** `head`: what the server sent right after its upgrade answer. */
  private constructor(
    private readonly socket: Socket,
    head: Buffer,
  ) {
    let buffered = head;
    let message: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => {
      const { frames, rest } = serverFrames(Buffer.concat([buffered, chunk]));
      buffered = rest;
      for (const frame of frames) {
        if (frame.opcode === PING) socket.write(clientFrame(PONG, frame.payload));
        if (frame.opcode === CLOSE) socket.end();
        if (frame.opcode === TEXT || frame.opcode === 0) message.push(frame.payload);
        if ((frame.opcode === TEXT || frame.opcode === 0) && frame.fin) {
          this.answer(Buffer.concat(message).toString('utf8'));
          message = [];
        }
      }
    });
    socket.on('close', () => {
      for (const { reject } of this.waiting.values()) reject(new Error('the inspector connection closed'));
      this.waiting.clear();
    });
  }

  static async open(url: string): Promise<InspectorSession> {
    const req = request(url.replace(/^ws:/, 'http:'), {
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64') },
    });
    req.end();
    const [, socket, head] = (await Promise.race([once(req, 'upgrade'), once(req, 'response').then(([res]) => Promise.reject(new Error(`the inspector refused the upgrade: HTTP ${(res as IncomingMessage).statusCode}`)))])) as [IncomingMessage, Socket, Buffer];
    return new InspectorSession(socket, head);
  }

  private answer(text: string) {
    const message = JSON.parse(text) as { id?: number; result?: unknown; error?: { message: string } };
    const waiter = message.id === undefined ? undefined : this.waiting.get(message.id);
    if (!waiter) return;
    this.waiting.delete(message.id!);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message.result);
  }

  /** Sends one CDP command and resolves with its result. */
  call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.nextId++;
    const answered = new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.socket.write(clientFrame(TEXT, Buffer.from(JSON.stringify({ id, method, params }))));
    return answered;
  }

  close() {
    this.socket.end(clientFrame(CLOSE, Buffer.alloc(0)));
    this.socket.destroy();
  }
}

/** `process.memoryUsage()` of the inspected process right after full garbage collections. */
export async function memoryAfterGc(url: string): Promise<NodeJS.MemoryUsage> {
  const session = await InspectorSession.open(url);
  try {
    // Twice: objects kept alive only by finalizers or weak callbacks go in the second one.
    await session.call('HeapProfiler.collectGarbage');
    await session.call('HeapProfiler.collectGarbage');
    const { result } = (await session.call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as { result: { value: string } };
    return JSON.parse(result.value) as NodeJS.MemoryUsage;
  } finally {
    session.close();
  }
}
