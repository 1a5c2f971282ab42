/**
 * The arithmetic every pre-aggregated MTG collection shares. An aggregate document is one group (its
 * `_id`: a format and day, a format, day and archetype, ...) holding counts and lists of counted
 * entries (one per archetype, card, sideboard, ...); an entry may hold counts and lists of its own.
 * Documents add up field by field: a load adds one contribution per deck list or match, and a later
 * load adds its contributions to the stored documents the same way. Pure.
 */

/** An aggregate document as stored: `_id`, the group's own fields (format, day, ...), counts and lists. */
export type AggregateDocument = { _id: string } & Record<string, unknown>;

type Fields = Record<string, unknown>;

/** What a document or an entry holds: counted fields, and lists of entries. */
interface Level {
  sums: readonly string[];
  lists: readonly ListShape[];
}

export interface ListShape extends Level {
  /** The field holding the list. */
  field: string;
  /** What makes two entries the same entry (they add up); also their order in the list. */
  key: (entry: Fields) => string;
  /** How --verify names an entry (each counted field is named after it when there are several). */
  label: (entry: Fields) => string;
}

export interface AggregateShape extends Level {
  collection: string;
}

/** MongoDB's order of strings (by code unit), so two builds of the same data are equal. */
const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A document or entry being summed: its own fields as first seen, its counts, its entries by key. */
interface Node {
  fields: Fields;
  sums: Record<string, number>;
  lists: Array<Map<string, Node>>;
}

/** The names that are not a level's own fields (its counts and lists), worked out once per level. */
const countedNames = new WeakMap<Level, ReadonlySet<string>>();
function countedNamesOf(level: Level): ReadonlySet<string> {
  let names = countedNames.get(level);
  if (names === undefined) countedNames.set(level, (names = new Set([...level.sums, ...level.lists.map((list) => list.field)])));
  return names;
}

// A load adds about a million entries: nodes are built and summed with plain loops, as this runs per card of every deck.
function nodeOf(level: Level, source: Fields): Node {
  const counted = countedNamesOf(level);
  const fields: Fields = {};
  for (const name of Object.keys(source)) if (!counted.has(name)) fields[name] = source[name];
  const sums: Record<string, number> = {};
  for (const name of level.sums) sums[name] = 0;
  const lists: Array<Map<string, Node>> = [];
  for (let i = 0; i < level.lists.length; i++) lists.push(new Map());
  return { fields, sums, lists };
}

function addTo(node: Node, level: Level, source: Fields): void {
  for (const name of level.sums) node.sums[name] += Number(source[name] ?? 0);
  for (let i = 0; i < level.lists.length; i++) {
    const list = level.lists[i];
    const entries = node.lists[i];
    for (const entry of (source[list.field] ?? []) as Fields[]) {
      const key = list.key(entry);
      let child = entries.get(key);
      if (child === undefined) entries.set(key, (child = nodeOf(list, entry)));
      addTo(child, list, entry);
    }
  }
}

function documentOf(node: Node, level: Level): Fields {
  const out: Fields = { ...node.fields, ...node.sums };
  level.lists.forEach((list, i) => {
    out[list.field] = [...node.lists[i]].sort(([a], [b]) => byKey(a, b)).map(([, child]) => documentOf(child, list));
  });
  return out;
}

/** Sums contributions (or stored documents) into one document per `_id`. */
export class AggregateBuilder {
  private readonly groups = new Map<string, Node>();

  constructor(readonly shape: AggregateShape) {}

  add(document: AggregateDocument): void {
    let group = this.groups.get(document._id);
    if (group === undefined) this.groups.set(document._id, (group = nodeOf(this.shape, document)));
    addTo(group, this.shape, document);
  }

  /** The documents, by `_id`, each list by entry key. */
  documents(): AggregateDocument[] {
    return [...this.groups].sort(([a], [b]) => byKey(a, b)).map(([, group]) => documentOf(group, this.shape) as AggregateDocument);
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

type Difference = [name: string, stored: unknown, expected: unknown];

/** The counts and entries of two versions of one document or entry that differ; names are built only for those. */
function compareLevel(level: Level, a: Fields | undefined, b: Fields | undefined, name: () => string, out: Difference[], top = false): void {
  for (const sum of level.sums) {
    const [x, y] = [a === undefined ? undefined : Number(a[sum] ?? 0), b === undefined ? undefined : Number(b[sum] ?? 0)];
    // An entry with a single count is named by its label alone.
    if (x !== y) out.push([`${name()}${top || level.sums.length > 1 || level.lists.length > 0 ? ` ${sum}` : ''}`, x, y]);
  }
  for (const list of level.lists) {
    const entries = (doc: Fields | undefined) => new Map(((doc?.[list.field] ?? []) as Fields[]).map((entry) => [list.key(entry), entry]));
    const [x, y] = [entries(a), entries(b)];
    for (const key of new Set([...y.keys(), ...x.keys()])) {
      const entry = (y.get(key) ?? x.get(key))!;
      compareLevel(list, x.get(key), y.get(key), () => `${name()} ${list.label(entry)}`, out);
    }
  }
}

/**
 * "<collection> <figure>: <stored> stored, <expected> expected", for each figure that differs (the
 * group's own fields, its counts and each entry's), in order of figure; empty when they match. Stored
 * entries listed twice are summed, as readers sum them. `expected` must be a builder's output.
 */
export function aggregateDifferences(shape: AggregateShape, stored: Iterable<AggregateDocument>, expected: Iterable<AggregateDocument>): string[] {
  const byId = (docs: Iterable<AggregateDocument>) => new Map([...docs].map((doc) => [doc._id, doc]));
  const [s, e] = [byId(aggregate(shape, stored)), byId(expected)];
  const out: Difference[] = [];
  const isField = (name: string) => name !== '_id' && !shape.sums.includes(name) && !shape.lists.some((list) => list.field === name);
  for (const id of new Set([...e.keys(), ...s.keys()])) {
    const [a, b] = [s.get(id), e.get(id)];
    for (const name of new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})].filter(isField))) {
      const [x, y] = [a && name in a ? shown(a[name]) : undefined, b && name in b ? shown(b[name]) : undefined];
      if (x !== y) out.push([`${id} ${name}`, x, y]);
    }
    compareLevel(shape, a, b, () => id, out, true);
  }
  return out
    .sort(([a], [b]) => byKey(a, b))
    .map(([name, x, y]) => `${shape.collection} ${name}: ${String(x ?? 'missing')} stored, ${String(y ?? 'none')} expected`);
}
