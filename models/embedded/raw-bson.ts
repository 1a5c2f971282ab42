/**
 * The wire bytes a document arrived in, kept from parsing until it is journaled: an inserted document
 * stored exactly as it arrived is journaled by copying those bytes instead of serializing it again
 * (inserts are most of what a bulk load writes). The insert command forgets whatever it did not store.
 */
import { type Doc } from './values.js';

const rawBytes = new WeakMap<Doc, Buffer>();

export function rememberRawBson(doc: Doc, bytes: Buffer): void {
  rawBytes.set(doc, bytes);
}

/** The bytes `doc` arrived in, if it is exactly what they hold; the association ends here. */
export function takeRawBson(doc: Doc): Buffer | undefined {
  const bytes = rawBytes.get(doc);
  if (bytes) rawBytes.delete(doc);
  return bytes;
}

export function forgetRawBson(doc: Doc): void {
  rawBytes.delete(doc);
}
