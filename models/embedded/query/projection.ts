/** find-style projections (inclusion, exclusion, nested paths, $slice, $elemMatch, positional `$`) through mingo. */
import { Query } from 'mingo';
import { asCommandError, checkedOperand } from './filter.js';
import { isPlainObject, viewOf, type Doc } from '../values.js';

export function project(docs: Doc[], projection: unknown, filter?: Doc): Doc[] {
  if (!isPlainObject(projection) || Object.keys(projection).length === 0) return docs;
  const positional = Object.keys(projection).some((k) => k.endsWith('.$'));
  try {
    if (positional) {
      // The positional operator needs the filter that matched; mingo evaluates it on plain-number views.
      return new Query((checkedOperand(filter ?? {}) as Doc) ?? {}, { scriptEnabled: false }).find(docs.map(viewOf), checkedOperand(projection) as Doc).all() as Doc[];
    }
    return new Query({}, { scriptEnabled: false }).find(docs, projection).all() as Doc[];
  } catch (e) {
    throw asCommandError(e);
  }
}
