// Reads kept until the next change (a GenerationCache) and read once for all the callers that ask
// for the same key meanwhile (InFlight): so a burst after a change reads each key once, and a read
// that raced a write is never kept past it.
import { CacheOrder, ChangeGeneration, GenerationCache } from './change-generation';
import { InFlight } from './in-flight';

export class KeptReads<V> {
  private readonly kept: GenerationCache<V>;
  private readonly reading = new InFlight<V, number>();

  constructor(
    private readonly changes: ChangeGeneration,
    maxEntries: number,
    order?: CacheOrder,
  ) {
    this.kept = new GenerationCache(changes, maxEntries, order);
  }

  /** The value kept for `key`, else `read()`'s (shared with the callers that come meanwhile). */
  async get(key: string, read: () => Promise<V>): Promise<V> {
    const kept = this.kept.get(key);
    if (kept !== undefined) return kept;
    const generation = this.changes.current();
    const value = await this.reading.run(key, generation, (begun) => this.changes.isCurrent(begun), read);
    this.kept.set(key, value, generation);
    return value;
  }
}
