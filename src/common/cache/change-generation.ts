// A counter that moves on every write that can change an answer. Caches remember the generation
// they were filled at and serve an entry only while it is still current, so a read that raced a
// write can never be served after it. Writes through this process bump it before their response
// leaves; writes elsewhere (other replicas, SQL by hand) arrive through the change listener.
import { Injectable } from '@nestjs/common';

@Injectable()
export class ChangeGeneration {
  private generation = 0;
  /** False while changes from elsewhere cannot be heard: caches then serve nothing. */
  private heard = true;

  current(): number {
    return this.generation;
  }

  bump(): void {
    this.generation++;
  }

  /** Whether an entry filled at `generation` may be served now. */
  isCurrent(generation: number): boolean {
    return this.heard && generation === this.generation;
  }

  setHeard(heard: boolean): void {
    this.heard = heard;
    this.bump();
  }
}

/** A bounded map (least recently used out first) of values tagged with the generation they were computed at. */
export class GenerationCache<V> {
  private readonly entries = new Map<string, { generation: number; value: V }>();

  constructor(
    private readonly changes: ChangeGeneration,
    private readonly maxEntries = 50_000,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (!this.changes.isCurrent(entry.generation)) return undefined;
    // Re-inserted last: a Map iterates in insertion order, so the first key is the least recently used.
    this.entries.set(key, entry);
    return entry.value;
  }

  /** `generation` is the one read before the value was computed. */
  set(key: string, value: V, generation: number): void {
    if (this.maxEntries === 0 || !this.changes.isCurrent(generation)) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { generation, value });
  }
}
