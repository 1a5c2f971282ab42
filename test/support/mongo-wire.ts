/**
 * A minimal MongoDB wire-protocol client over a raw `net.Socket`, written from the protocol
 * specification (not shared with the server under test), to check the wire path independently of
 * the official driver: OP_QUERY / OP_REPLY and OP_MSG (document sequences, moreToCome).
 */
import net from 'node:net';
import { deserialize, serialize, type Document } from 'bson';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;

/** OP_MSG flag bit 1: the sender will not wait for (and the receiver must not send) a reply. */
export const MSG_MORE_TO_COME = 1 << 1;

export interface WireMessage {
  messageLength: number;
  requestID: number;
  responseTo: number;
  opCode: number;
  /** Everything after the 16-byte header. */
  body: Buffer;
}

let nextRequestId = 1000;
/** A fresh request id for an outgoing message. */
export function newRequestId(): number {
  nextRequestId += 1;
  return nextRequestId;
}

function header(totalLength: number, requestID: number, opCode: number): Buffer {
  const buf = Buffer.alloc(16);
  buf.writeInt32LE(totalLength, 0);
  buf.writeInt32LE(requestID, 4);
  buf.writeInt32LE(0, 8);
  buf.writeInt32LE(opCode, 12);
  return buf;
}

function cstring(value: string): Buffer {
  return Buffer.concat([Buffer.from(value, 'utf8'), Buffer.from([0])]);
}

/** OP_QUERY: flags, fullCollectionName, numberToSkip, numberToReturn, query document. */
export function encodeOpQuery(requestID: number, fullCollectionName: string, query: Document, numberToReturn = -1): Buffer {
  const flags = Buffer.alloc(4);
  const counts = Buffer.alloc(8);
  counts.writeInt32LE(0, 0);
  counts.writeInt32LE(numberToReturn, 4);
  const rest = Buffer.concat([flags, cstring(fullCollectionName), counts, Buffer.from(serialize(query))]);
  return Buffer.concat([header(16 + rest.length, requestID, OP_QUERY), rest]);
}

export interface OpReply {
  responseFlags: number;
  cursorID: bigint;
  startingFrom: number;
  numberReturned: number;
  documents: Document[];
}

export function decodeOpReply(body: Buffer): OpReply {
  const responseFlags = body.readInt32LE(0);
  const cursorID = body.readBigInt64LE(4);
  const startingFrom = body.readInt32LE(12);
  const numberReturned = body.readInt32LE(16);
  const documents: Document[] = [];
  let offset = 20;
  for (let i = 0; i < numberReturned; i += 1) {
    const size = body.readInt32LE(offset);
    documents.push(deserialize(body.subarray(offset, offset + size)));
    offset += size;
  }
  if (offset !== body.length) throw new Error(`OP_REPLY has ${body.length - offset} trailing bytes`);
  return { responseFlags, cursorID, startingFrom, numberReturned, documents };
}

export interface DocumentSequence {
  identifier: string;
  documents: Document[];
}

/** OP_MSG: flagBits, one kind-0 section (the body), then kind-1 document sequences. */
export function encodeOpMsg(requestID: number, body: Document, sequences: DocumentSequence[] = [], flagBits = 0): Buffer {
  const parts: Buffer[] = [];
  const flags = Buffer.alloc(4);
  flags.writeUInt32LE(flagBits, 0);
  parts.push(flags, Buffer.from([0]), Buffer.from(serialize(body)));
  for (const sequence of sequences) {
    const payload = Buffer.concat([cstring(sequence.identifier), ...sequence.documents.map((d) => Buffer.from(serialize(d)))]);
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + payload.length, 0);
    parts.push(Buffer.from([1]), size, payload);
  }
  const rest = Buffer.concat(parts);
  return Buffer.concat([header(16 + rest.length, requestID, OP_MSG), rest]);
}

export interface OpMsg {
  flagBits: number;
  body: Document;
  sequences: DocumentSequence[];
}

/** Decodes with promoteLongs: false, so int64 values (cursor ids) stay `Long`. */
export function decodeOpMsg(buf: Buffer): OpMsg {
  const flagBits = buf.readUInt32LE(0);
  const end = flagBits & 1 ? buf.length - 4 : buf.length; // bit 0: checksumPresent
  let offset = 4;
  let body: Document | undefined;
  const sequences: DocumentSequence[] = [];
  while (offset < end) {
    const kind = buf[offset];
    offset += 1;
    if (kind === 0) {
      const size = buf.readInt32LE(offset);
      body = deserialize(buf.subarray(offset, offset + size), { promoteLongs: false });
      offset += size;
    } else if (kind === 1) {
      const size = buf.readInt32LE(offset);
      const sectionEnd = offset + size;
      let cursor = offset + 4;
      const zero = buf.indexOf(0, cursor);
      const identifier = buf.toString('utf8', cursor, zero);
      cursor = zero + 1;
      const documents: Document[] = [];
      while (cursor < sectionEnd) {
        const docSize = buf.readInt32LE(cursor);
        documents.push(deserialize(buf.subarray(cursor, cursor + docSize), { promoteLongs: false }));
        cursor += docSize;
      }
      sequences.push({ identifier, documents });
      offset = sectionEnd;
    } else {
      throw new Error(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new Error('OP_MSG without a kind-0 body section');
  return { flagBits, body, sequences };
}

/** A socket that yields whole wire messages in arrival order. */
export class WireConnection {
  private buffered = Buffer.alloc(0);
  private readonly queue: WireMessage[] = [];
  private waiter: { resolve: (m: WireMessage) => void; reject: (e: Error) => void } | undefined;
  private failure: Error | undefined;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('connection closed by the server')));
  }

  static connect(host: string, port: number, timeoutMs = 5_000): Promise<WireConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`could not connect to ${host}:${port} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new WireConnection(socket));
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  send(message: Buffer): void {
    this.socket.write(message);
  }

  /** The next whole message from the server, or an error after `timeoutMs`. */
  next(timeoutMs = 5_000): Promise<WireMessage> {
    const ready = this.queue.shift();
    if (ready) return Promise.resolve(ready);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new Error(`no reply from the server within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiter = {
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
    });
  }

  /** Sends an OP_MSG command and returns the decoded reply, checking `responseTo`. */
  async command(body: Document, sequences: DocumentSequence[] = []): Promise<Document> {
    const requestID = newRequestId();
    this.send(encodeOpMsg(requestID, body, sequences));
    const reply = await this.next();
    if (reply.opCode !== OP_MSG) throw new Error(`expected an OP_MSG reply, got opCode ${reply.opCode}`);
    if (reply.responseTo !== requestID) {
      throw new Error(`reply answers request ${reply.responseTo}, expected ${requestID}`);
    }
    return decodeOpMsg(reply.body).body;
  }

  /** Closes the socket (the server sees the connection end, as when a client goes away). */
  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.destroy();
    });
  }

  private onData(chunk: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    while (this.buffered.length >= 4) {
      const length = this.buffered.readInt32LE(0);
      if (length < 16) {
        this.fail(new Error(`invalid message length ${length}`));
        return;
      }
      if (this.buffered.length < length) return;
      const frame = this.buffered.subarray(0, length);
      this.buffered = this.buffered.subarray(length);
      const message: WireMessage = {
        messageLength: length,
        requestID: frame.readInt32LE(4),
        responseTo: frame.readInt32LE(8),
        opCode: frame.readInt32LE(12),
        body: Buffer.from(frame.subarray(16)),
      };
      if (this.waiter) {
        const { resolve } = this.waiter;
        this.waiter = undefined;
        resolve(message);
      } else {
        this.queue.push(message);
      }
    }
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    if (this.waiter) {
      const { reject } = this.waiter;
      this.waiter = undefined;
      reject(error);
    }
  }
}
