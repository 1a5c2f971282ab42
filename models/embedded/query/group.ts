/**
 * The common counting `$group` (`_id` a field path or an object of field paths, every accumulator a
 * `$sum` of a constant) run directly over the documents: mingo hashes every compound key, which is most
 * of the cost of a meta query over thousands of documents. Anything else goes to mingo.
 */
import { isPlainObject, keyOf, viewOf, type Doc } from '../values.js';

const MISSING = '\u0000missing';

/** A field path whose walk met an array: MongoDB's array semantics apply, so mingo decides. */
class NeedsMingo extends Error {}

type KeySpec = { kind: 'path'; parts: string[] } | { kind: 'object'; fields: Array<{ name: string; parts: string[] }> } | { kind: 'constant'; value: unknown };

function fieldPath(value: unknown): string[] | undefined {
  return typeof value === 'string' && value.startsWith('$') && !value.startsWith('$$') && value.length > 1 ? value.slice(1).split('.') : undefined;
}

function keySpec(id: unknown): KeySpec | undefined {
  const path = fieldPath(id);
  if (path) return { kind: 'path', parts: path };
  if (isPlainObject(id)) {
    const fields: Array<{ name: string; parts: string[] }> = [];
    for (const [name, value] of Object.entries(id)) {
      const parts = fieldPath(value);
      if (!parts || name.startsWith('$') || name.includes('.')) return undefined;
      fields.push({ name, parts });
    }
    return fields.length ? { kind: 'object', fields } : undefined;
  }
  if (id === null || typeof id === 'number' || typeof id === 'boolean' || (typeof id === 'string' && !id.startsWith('$'))) return { kind: 'constant', value: id };
  return undefined;
}

function valueAt(doc: Doc, parts: string[]): unknown {
  let value: unknown = doc;
  for (const part of parts) {
    if (Array.isArray(value)) throw new NeedsMingo();
    if (!isPlainObject(value)) return undefined;
    value = value[part];
  }
  return value;
}

/** A runner for the stage, or undefined when it is not the simple kind. */
export function fastGroup(stage: Doc): ((docs: Doc[]) => Doc[] | undefined) | undefined {
  const spec = stage.$group;
  if (!isPlainObject(spec) || !('_id' in spec)) return undefined;
  const key = keySpec(spec._id);
  if (!key) return undefined;
  const sums: Array<{ name: string; add: number }> = [];
  for (const [name, accumulator] of Object.entries(spec)) {
    if (name === '_id') continue;
    if (!isPlainObject(accumulator) || Object.keys(accumulator).length !== 1 || typeof accumulator.$sum !== 'number' || !Number.isFinite(accumulator.$sum)) return undefined;
    sums.push({ name, add: accumulator.$sum });
  }

  return (docs) => {
    const groups = new Map<string, Doc>();
    try {
      for (const stored of docs) {
        const doc = viewOf(stored);
        let id: unknown;
        let groupKey: string;
        if (key.kind === 'path') {
          const value = valueAt(doc, key.parts);
          id = value === undefined ? null : value;
          groupKey = keyOf(id);
        } else if (key.kind === 'object') {
          const object: Doc = {};
          const parts: string[] = [];
          for (const field of key.fields) {
            const value = valueAt(doc, field.parts);
            // An expression object leaves out fields that are missing, as MongoDB does.
            if (value !== undefined) object[field.name] = value;
            parts.push(value === undefined ? MISSING : keyOf(value));
          }
          id = object;
          groupKey = parts.join('\u0001');
        } else {
          id = key.value;
          groupKey = '';
        }
        let group = groups.get(groupKey);
        if (!group) {
          group = { _id: id };
          for (const { name } of sums) group[name] = 0;
          groups.set(groupKey, group);
        }
        for (const { name, add } of sums) (group[name] as number) += add;
      }
    } catch (e) {
      if (e instanceof NeedsMingo) return undefined;
      throw e;
    }
    return [...groups.values()];
  };
}
