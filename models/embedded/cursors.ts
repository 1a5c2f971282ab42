/** Open cursors: results materialized at open, handed out in batches no bigger than a reply may be. */
import { calculateObjectSize, Long } from 'bson';
import { cursorNotFound } from './errors.js';
import { MAX_BSON_OBJECT_SIZE } from './wire.js';
import { type Doc } from './values.js';

/** Room left in a 16 MiB reply for the envelope around a batch. */
const BATCH_BYTES = MAX_BSON_OBJECT_SIZE - 64 * 1024;
const DEFAULT_FIRST_BATCH = 101;
const IDLE_TIMEOUT_MS = 10 * 60 * 1000;

interface OpenCursor {
  ns: string;
  docs: Doc[];
  position: number;
  lastUsed: number;
}

export interface CursorReply {
  id: Long;
  ns: string;
  batch: Doc[];
}

export class CursorRegistry {
  private readonly open = new Map<string, OpenCursor>();

  private take(c: OpenCursor, batchSize: number | undefined): Doc[] {
    const max = batchSize && batchSize > 0 ? batchSize : Infinity;
    const batch: Doc[] = [];
    let bytes = 0;
    while (c.position < c.docs.length && batch.length < max) {
      const doc = c.docs[c.position];
      const size = calculateObjectSize(doc) + 16;
      if (batch.length > 0 && bytes + size > BATCH_BYTES) break;
      bytes += size;
      batch.push(doc);
      c.position += 1;
    }
    return batch;
  }

  /** Opens a cursor over `docs` and returns the first batch (id 0 when everything fits). */
  start(ns: string, docs: Doc[], batchSize?: number, singleBatch = false): CursorReply {
    const c: OpenCursor = { ns, docs, position: 0, lastUsed: Date.now() };
    const batch = this.take(c, batchSize ?? DEFAULT_FIRST_BATCH);
    if (singleBatch || c.position >= docs.length) return { id: Long.ZERO, ns, batch };
    let id: Long;
    do id = Long.fromNumber(Math.floor(Math.random() * Number.MAX_SAFE_INTEGER) + 1);
    while (this.open.has(id.toString()));
    this.open.set(id.toString(), c);
    return { id, ns, batch };
  }

  more(id: unknown, batchSize?: number): CursorReply {
    const key = String(id);
    const c = this.open.get(key);
    if (!c) throw cursorNotFound(key);
    c.lastUsed = Date.now();
    const batch = this.take(c, batchSize);
    const done = c.position >= c.docs.length;
    if (done) this.open.delete(key);
    return { id: done ? Long.ZERO : Long.fromString(key), ns: c.ns, batch };
  }

  kill(ids: unknown[]): { killed: Long[]; notFound: Long[] } {
    const killed: Long[] = [];
    const notFound: Long[] = [];
    for (const id of ids) {
      const key = String(id);
      (this.open.delete(key) ? killed : notFound).push(Long.fromString(key));
    }
    return { killed, notFound };
  }

  sweep(now = Date.now()) {
    for (const [k, c] of this.open) if (now - c.lastUsed > IDLE_TIMEOUT_MS) this.open.delete(k);
  }
}
