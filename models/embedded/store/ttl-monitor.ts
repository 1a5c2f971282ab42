/** Deletes documents whose TTL-indexed date is older than the index's expireAfterSeconds, as mongod's TTL monitor does. */
import { type Engine } from './engine.js';
import { lockKey } from './engine.js';
import { valuesAtPath, type Doc } from '../values.js';

function expiresAt(doc: Doc, parts: string[], seconds: number): number | undefined {
  let earliest: number | undefined;
  for (const v of valuesAtPath(doc, parts)) {
    for (const x of Array.isArray(v) ? v : [v]) {
      if (x instanceof Date && (earliest === undefined || x.getTime() < earliest)) earliest = x.getTime();
    }
  }
  return earliest === undefined ? undefined : earliest + seconds * 1000;
}

/** One pass; returns how many documents it removed. */
export function sweepExpired(engine: Engine, now = Date.now()): number {
  let removed = 0;
  for (const colls of engine.databases.values()) {
    for (const coll of colls.values()) {
      // Only collections with a TTL index are read (an unloaded one is loaded to be swept).
      if (!coll.indexSpecs().some((spec) => spec.expireAfterSeconds !== undefined)) continue;
      for (const index of coll.indexes.values()) {
        const seconds = index.spec.expireAfterSeconds;
        if (seconds === undefined) continue;
        const parts = index.fields[0].parts;
        for (const [idKey, doc] of [...coll.docs]) {
          const at = expiresAt(doc, parts, seconds);
          if (at === undefined || at > now) continue;
          if (engine.locks.has(lockKey(coll.ns, idKey))) continue;
          engine.remove(coll, idKey);
          removed += 1;
        }
      }
    }
  }
  return removed;
}
