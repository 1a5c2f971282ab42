/**
 * Answers read from the MTG dataset, kept in this process until the dataset changes. Data changes only
 * by a load, and every load writes a new marker (models/mtg/dataset-marker.ts), so an answer cached under
 * a marker's version stays right until another version is seen; then everything is dropped. Bounded:
 * the least recently used answers go first.
 */
export const ANSWER_CACHE_CAPACITY = 500;

export class DatasetAnswerCache {
  private version?: string;
  /** Promises, so concurrent requests for one answer share a read; Map order is the recency order. */
  private readonly answers = new Map<string, Promise<unknown>>();

  constructor(private readonly capacity = ANSWER_CACHE_CAPACITY) {}

  /** The answer for `key` under dataset `version`, computed on first use; a failed computation is not kept. */
  answer<T>(version: string, key: string, compute: () => Promise<T>): Promise<T> {
    if (version !== this.version) {
      this.answers.clear();
      this.version = version;
    }
    const cached = this.answers.get(key) as Promise<T> | undefined;
    if (cached !== undefined) {
      this.answers.delete(key);
      this.answers.set(key, cached);
      return cached;
    }
    const computing = compute();
    this.answers.set(key, computing);
    computing.catch(() => {
      if (this.answers.get(key) === computing) this.answers.delete(key);
    });
    if (this.answers.size > this.capacity) this.answers.delete(this.answers.keys().next().value as string);
    return computing;
  }

  get size(): number {
    return this.answers.size;
  }
}
