/**
 * The arithmetic every pre-aggregated MTG collection shares. An aggregate document is one group (its
 * `_id`: a format and day, a format, day and archetype, ...) holding scalar counts and lists of counted
 * entries (one per archetype, card, pair of archetypes, ...). Documents add up field by field: a load
 * adds one contribution per deck list or match, and a later load adds its contributions to the stored
 * documents the same way. Pure.
 */

/** An aggregate document as stored: `_id`, the group's own fields (format, day, ...), counts and lists. */
export type AggregateDocument = { _id: string } & Record<string, unknown>;

export interface ListShape {
  /** The document field holding the list. */
  field: string;
  /** What makes two entries the same entry (their sums add up); also their order in the list. */
  key: (entry: Record<string, unknown>) => string;
  /** How --verify names an entry (each counted field is named after it when there are several). */
  label: (entry: Record<string, unknown>) => string;
  /** The entry's counted fields. */
  sums: readonly string[];
}

export interface AggregateShape {
  collection: string;
  /** The document's own counted fields. */
  sums: readonly string[];
  lists: readonly ListShape[];
}

/** MongoDB's order of strings (by code unit), so two builds of the same data are equal. */
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

interface Group {
  fields: Record<string, unknown>;
  sums: Record<string, number>;
  lists: Array<Map<string, Record<string, unknown>>>;
}

/** Sums contributions (or stored documents) into one document per `_id`. */
export class AggregateBuilder {
  private readonly groups = new Map<string, Group>();

  constructor(readonly shape: AggregateShape) {}

  add(document: AggregateDocument): void {
    const { shape } = this;
    let group = this.groups.get(document._id);
    if (group === undefined) {
      const fields: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(document)) {
        if (!shape.sums.includes(name) && !shape.lists.some((list) => list.field === name)) fields[name] = value;
      }
      group = { fields, sums: Object.fromEntries(shape.sums.map((name) => [name, 0])), lists: shape.lists.map(() => new Map()) };
      this.groups.set(document._id, group);
    }
    for (const name of shape.sums) group.sums[name] += Number(document[name] ?? 0);
    shape.lists.forEach((list, i) => {
      const entries = group.lists[i];
      for (const entry of (document[list.field] ?? []) as Array<Record<string, unknown>>) {
        const key = list.key(entry);
        const existing = entries.get(key);
        if (existing === undefined) entries.set(key, { ...entry });
        else for (const name of list.sums) existing[name] = Number(existing[name]) + Number(entry[name]);
      }
    });
  }

  /** The documents, by `_id`, each list by entry key. */
  documents(): AggregateDocument[] {
    return [...this.groups]
      .sort(([a], [b]) => byKey(a, b))
      .map(([, group]) => {
        const document = { ...group.fields, ...group.sums } as AggregateDocument;
        this.shape.lists.forEach((list, i) => {
          document[list.field] = [...group.lists[i]].sort(([a], [b]) => byKey(a, b)).map(([, entry]) => entry);
        });
        return document;
      });
  }

  get size(): number {
    return this.groups.size;
  }
}

export function aggregate(shape: AggregateShape, documents: Iterable<AggregateDocument>): AggregateDocument[] {
  const builder = new AggregateBuilder(shape);
  for (const document of documents) builder.add(document);
  return builder.documents();
}

const shown = (value: unknown) => (value instanceof Date ? value.toISOString() : typeof value === 'number' || typeof value === 'string' ? value : JSON.stringify(value));

/**
 * "<collection> <figure>: <stored> stored, <expected> expected", for each figure that differs (the
 * group's own fields, its counts and each entry's), in order of figure; empty when they match. Stored
 * entries listed twice in a document are summed, as readers sum them. `expected` must be a builder's
 * output (one document per `_id`, one entry per key).
 */
export function aggregateDifferences(shape: AggregateShape, stored: Iterable<AggregateDocument>, expected: Iterable<AggregateDocument>): string[] {
  const byId = (docs: Iterable<AggregateDocument>) => new Map([...docs].map((doc) => [doc._id, doc]));
  const [s, e] = [byId(aggregate(shape, stored)), byId(expected)];
  const differences: Array<[string, string]> = [];
  const compare = (name: string, a: unknown, b: unknown) => {
    if (a !== b) differences.push([name, `${shape.collection} ${name}: ${a ?? 'missing'} stored, ${b ?? 'none'} expected`]);
  };
  const isList = (name: string) => shape.lists.some((list) => list.field === name);
  for (const id of new Set([...e.keys(), ...s.keys()])) {
    const [a, b] = [s.get(id), e.get(id)];
    for (const name of new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})])) {
      if (name === '_id' || isList(name)) continue;
      compare(`${id} ${name}`, a && name in a ? shown(a[name]) : undefined, b && name in b ? shown(b[name]) : undefined);
    }
    for (const list of shape.lists) {
      const entries = (doc: AggregateDocument | undefined) => new Map(((doc?.[list.field] ?? []) as Array<Record<string, unknown>>).map((entry) => [list.key(entry), entry]));
      const [x, y] = [entries(a), entries(b)];
      for (const key of new Set([...y.keys(), ...x.keys()])) {
        const entry = (y.get(key) ?? x.get(key))!;
        for (const name of list.sums) {
          compare(`${id} ${list.label(entry)}${list.sums.length > 1 ? ` ${name}` : ''}`, x.has(key) ? Number(x.get(key)![name]) : undefined, y.has(key) ? Number(y.get(key)![name]) : undefined);
        }
      }
    }
  }
  return differences.sort(([a], [b]) => byKey(a, b)).map(([, text]) => text);
}
