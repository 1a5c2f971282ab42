/**
 * MongoDB wire protocol framing: OP_MSG (2013) both ways, the legacy OP_QUERY (2004) that drivers still
 * use for their first `isMaster`, and its OP_REPLY (1). Compression (OP_COMPRESSED) is never advertised.
 */
import { deserialize, serialize } from 'bson';
import { rememberRawBson } from './raw-bson.js';
import { normalizeInPlace, remarkShallow, type Doc } from './values.js';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;

export const FLAG_CHECKSUM_PRESENT = 1 << 0;
export const FLAG_MORE_TO_COME = 1 << 1;

export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;
export const MAX_MESSAGE_SIZE_BYTES = 48_000_000;
export const MAX_WRITE_BATCH_SIZE = 100_000;

export type Request =
  | { kind: 'msg'; requestId: number; moreToCome: boolean; body: Doc }
  | { kind: 'query'; requestId: number; collection: string; query: Doc };

export class WireError extends Error {}

const readDoc = (buf: Buffer, offset: number): { doc: Doc; end: number } => {
  const size = buf.readInt32LE(offset);
  if (size < 5 || offset + size > buf.length) throw new WireError(`bad BSON document length ${size}`);
  const doc = deserialize(buf.subarray(offset, offset + size), { promoteValues: false, promoteBuffers: false }) as Doc;
  return { doc, end: offset + size };
};

const readCString = (buf: Buffer, offset: number): { value: string; end: number } => {
  const end = buf.indexOf(0, offset);
  if (end < 0) throw new WireError('unterminated cstring');
  return { value: buf.toString('utf8', offset, end), end: end + 1 };
};

/** Parses one complete message (header included). Returns null for opcodes this server does not serve. */
export function parseMessage(msg: Buffer): Request | null {
  const requestId = msg.readInt32LE(4);
  const opCode = msg.readInt32LE(12);
  if (opCode === OP_MSG) {
    const flags = msg.readUInt32LE(16);
    const end = flags & FLAG_CHECKSUM_PRESENT ? msg.length - 4 : msg.length;
    let offset = 20;
    let body: Doc | undefined;
    const sequences: Array<[string, Doc[]]> = [];
    while (offset < end) {
      const kind = msg.readUInt8(offset);
      offset += 1;
      if (kind === 0) {
        const read = readDoc(msg, offset);
        body = read.doc;
        offset = read.end;
      } else if (kind === 1) {
        const size = msg.readInt32LE(offset);
        const sectionEnd = offset + size;
        const id = readCString(msg, offset + 4);
        const docs: Doc[] = [];
        let at = id.end;
        while (at < sectionEnd) {
          const read = readDoc(msg, at);
          const doc = normalizeInPlace(read.doc) as Doc;
          // Inserted documents are journaled from these bytes (see raw-bson.ts).
          if (id.value === 'documents') rememberRawBson(doc, msg.subarray(at, read.end));
          docs.push(doc);
          at = read.end;
        }
        remarkShallow(docs);
        sequences.push([id.value, docs]);
        offset = sectionEnd;
      } else {
        throw new WireError(`unknown OP_MSG section kind ${kind}`);
      }
    }
    if (!body) throw new WireError('OP_MSG without a body section');
    // Sequence documents are normalized already.
    const normalized = normalizeInPlace(body) as Doc;
    for (const [id, docs] of sequences) normalized[id] = docs;
    if (sequences.length) remarkShallow(normalized);
    return { kind: 'msg', requestId, moreToCome: (flags & FLAG_MORE_TO_COME) !== 0, body: normalized };
  }
  if (opCode === OP_QUERY) {
    const collection = readCString(msg, 20);
    const query = readDoc(msg, collection.end + 8).doc;
    return { kind: 'query', requestId, collection: collection.value, query: normalizeInPlace(query) as Doc };
  }
  return null;
}

const header = (length: number, requestId: number, responseTo: number, opCode: number) => {
  const h = Buffer.allocUnsafe(16);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(requestId, 4);
  h.writeInt32LE(responseTo, 8);
  h.writeInt32LE(opCode, 12);
  return h;
};

let nextRequestId = 1;

export function encodeMsg(responseTo: number, body: Doc): Buffer {
  const bson = serialize(body);
  const prefix = Buffer.alloc(5);
  return Buffer.concat([header(16 + 5 + bson.length, nextRequestId++, responseTo, OP_MSG), prefix, bson]);
}

export function encodeReply(responseTo: number, docs: Doc[]): Buffer {
  const bsons = docs.map((d) => serialize(d));
  const fixed = Buffer.alloc(20);
  fixed.writeInt32LE(0, 0);
  fixed.writeBigInt64LE(0n, 4);
  fixed.writeInt32LE(0, 12);
  fixed.writeInt32LE(docs.length, 16);
  const length = 16 + 20 + bsons.reduce((n, b) => n + b.length, 0);
  return Buffer.concat([header(length, nextRequestId++, responseTo, OP_REPLY), fixed, ...bsons]);
}
