/**
 * The order an index keeps beside its hash map, for range scans and sorts: per group (the documents
 * sharing every indexed field but the last) the group's distinct keys, sorted by the last field's value
 * in BSON order. A key here shares the index's own set of ids (in the order they were indexed), so a
 * write that keeps a document within existing keys touches nothing here.
 *
 * It is built on the first ordered read of the index, then kept lazily: a new key is appended (the group
 * stays sorted when keys arrive in order, as a chronological load does, otherwise it is marked for
 * sorting) and a key losing its last id marks its group for compaction; both happen on the group's next
 * read, so writes never pay for a sort. Until then the index pays nothing for it.
 */
import { compareValues, isComparable } from '../values.js';

/** One index key of a group: its ids (the index's own set) and its last field's value. */
export interface OrderedKey {
  readonly ids: ReadonlySet<string>;
  readonly last: unknown;
}

/** Which last-field values a scan wants, as two tests that are monotone in BSON order. */
export interface ValueRange {
  /** The value is at or past the lower end. */
  fromLower(v: unknown): boolean;
  /** The value is at or before the upper end. */
  toUpper(v: unknown): boolean;
}

const byLast = (a: OrderedKey, b: OrderedKey) => compareValues(a.last, b.last);

/** First position whose entry passes `test`, for a test that is false and then true along the entries. */
function firstPassing(entries: OrderedKey[], test: (entry: OrderedKey) => boolean): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (test(entries[mid])) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export class OrderedGroup {
  private entries: OrderedKey[] = [];
  private sorted = true;
  private stale = false;

  append(entry: OrderedKey) {
    const last = this.entries[this.entries.length - 1];
    if (this.sorted && last && byLast(entry, last) < 0) this.sorted = false;
    this.entries.push(entry);
  }

  markStale() {
    this.stale = true;
  }

  /** The entries in order, compacted and sorted first if writes since the last read require it. */
  private ordered(): OrderedKey[] {
    if (this.stale) {
      this.entries = this.entries.filter((entry) => entry.ids.size > 0);
      this.stale = false;
    }
    if (!this.sorted) {
      this.entries.sort(byLast);
      this.sorted = true;
    }
    return this.entries;
  }

  /** The entries whose value lies in `range`, ascending or descending. */
  *entriesIn(range: ValueRange, descending: boolean): Generator<OrderedKey> {
    const entries = this.ordered();
    const start = firstPassing(entries, (entry) => range.fromLower(entry.last));
    const end = firstPassing(entries, (entry) => !range.toUpper(entry.last));
    if (descending) for (let i = end - 1; i >= start; i--) yield entries[i];
    else for (let i = start; i < end; i++) yield entries[i];
  }

  /** How many ids lie in `range`, counting no further than past `cap`. */
  countIn(range: ValueRange, cap: number): number {
    let n = 0;
    for (const entry of this.entriesIn(range, false)) {
      n += entry.ids.size;
      if (n > cap) break;
    }
    return n;
  }
}

export class OrderedKeys {
  private readonly groups = new Map<string, OrderedGroup>();
  /** False once a last-field value was indexed that BSON order cannot place here (Decimal128). */
  comparable = true;

  /** @param groupKeyOf the group of a key, from the values of all its fields but the last */
  constructor(private readonly groupKeyOf: (prefixValues: unknown[]) => string) {}

  /** A key got its first id: `ids` is the index's set for it, `values` its field values. */
  added(ids: ReadonlySet<string>, values: unknown[]) {
    if (!this.comparable) return;
    const last = values[values.length - 1];
    if (!isComparable(last)) {
      this.comparable = false;
      this.groups.clear();
      return;
    }
    const key = this.groupKeyOf(values.slice(0, -1));
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = new OrderedGroup()));
    group.append({ ids, last });
  }

  /** A key with these field values lost its last id. */
  emptied(values: unknown[]) {
    if (this.comparable) this.groups.get(this.groupKeyOf(values.slice(0, -1)))?.markStale();
  }

  group(key: string): OrderedGroup | undefined {
    return this.groups.get(key);
  }
}
