// Computations under way, by key: a caller that finds one begun from a state it still accepts waits
// for it instead of computing the same thing again (what a cache would serve it a moment later).
export class InFlight<V, Begun> {
  private readonly running = new Map<string, { begun: Begun; value: Promise<V> }>();

  /**
   * The value being computed for `key` when `current` accepts what it began from, else
   * `compute()`'s, begun from `begun` and shared with the callers that come meanwhile.
   */
  async run(key: string, begun: Begun, current: (begun: Begun) => boolean, compute: () => Promise<V>): Promise<V> {
    const running = this.running.get(key);
    if (running && current(running.begun)) return running.value;
    const entry = { begun, value: compute() };
    this.running.set(key, entry);
    try {
      return await entry.value;
    } finally {
      if (this.running.get(key) === entry) this.running.delete(key);
    }
  }
}
