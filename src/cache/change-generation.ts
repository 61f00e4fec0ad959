// A counter that moves on every write that can change an answer. Caches remember the generation
// they were filled at and serve an entry only while it is still current, so a read that raced a
// write can never be served after it. Writes through this process bump it before their response
// leaves; writes elsewhere (other replicas, SQL by hand) arrive through the change listener.
import { Injectable } from '@nestjs/common';

/** Skill bindings changed: a user's, or a group's (by name). */
export type BindingChange = { userId: number } | { groupName: string };

/** Whose bindings a resolution read: its task's creator's and the team lineage's groups'. */
export interface BindingScope {
  /** Null for a value that read only the lineage's groups' (a team's entry). */
  creatorUserId: number | null;
  /** The team's namespace; null when the team is gone (only the creator's bindings apply). */
  teamNamespace: string | null;
}

/** Whether a change to these bindings can change a resolution that read `scope`. */
export function bindingChangeReaches(change: BindingChange, scope: BindingScope): boolean {
  if ('userId' in change) return change.userId === scope.creatorUserId;
  const ns = scope.teamNamespace;
  // The group's teams and its children's: their lineage holds the group.
  return ns !== null && (ns === change.groupName || ns.startsWith(`${change.groupName}/`));
}

@Injectable()
export class ChangeGeneration {
  private generation = 0;
  /**
   * Until when (performance.now()) every change made elsewhere is known to have been heard: the
   * change listener's heartbeat moves it on; Infinity when nothing else writes (the embedded
   * database). Past it, caches serve nothing.
   */
  private heardUntil = Infinity;
  /** Moves on every ghost or binding change: an entry computed across one is not kept. */
  private ghostChanges = 0;
  private readonly ghostListeners: Array<(ghostId: number) => void> = [];
  private readonly bindingListeners: Array<(change: BindingChange) => void> = [];

  current(): number {
    return this.generation;
  }

  /** How many ghost changes have been seen: read before a computation that reads ghosts. */
  ghostChangesSeen(): number {
    return this.ghostChanges;
  }

  /** A ghost's row changed (here or elsewhere): entries that read it are dropped. */
  ghostChanged(ghostId: number): void {
    this.ghostChanges++;
    for (const listener of this.ghostListeners) listener(ghostId);
  }

  onGhostChange(listener: (ghostId: number) => void): void {
    this.ghostListeners.push(listener);
  }

  /** Skill bindings changed (here or elsewhere): entries that read them are dropped. */
  bindingChanged(change: BindingChange): void {
    this.ghostChanges++;
    for (const listener of this.bindingListeners) listener(change);
  }

  onBindingChange(listener: (change: BindingChange) => void): void {
    this.bindingListeners.push(listener);
  }

  bump(): void {
    this.generation++;
  }

  /** Whether an entry filled at `generation` may be served now. */
  isCurrent(generation: number, now = performance.now()): boolean {
    return generation === this.generation && now < this.heardUntil;
  }

  /** Whether changes made elsewhere are being heard now (caches may serve). */
  hearing(now = performance.now()): boolean {
    return now < this.heardUntil;
  }

  /** On (for good) or off (until the next heartbeat); what was cached before is dropped either way. */
  setHeard(heard: boolean): void {
    this.heardUntil = heard ? Infinity : 0;
    this.bump();
  }

  /**
   * A heartbeat was heard: every change made before `until - maxAge` has been. After a gap (the
   * deadline had passed), changes may have been missed meanwhile, so what was cached is dropped.
   */
  heardUntilAtLeast(until: number, now = performance.now()): void {
    if (now >= this.heardUntil) {
      this.bump();
      this.heardUntil = until;
    } else {
      this.heardUntil = Math.max(this.heardUntil, until);
    }
  }
}

/** The ghosts a value was computed from, and ghostChangesSeen() before it was. */
export interface GhostDependencies {
  ghostIds: readonly number[];
  ghostChangesSeen: number;
  /** Whose skill bindings it read, when it read any. */
  bindings?: BindingScope;
}

/** How a GenerationCache orders its entries for eviction. */
export interface CacheOrder {
  /**
   * A hit moves its entry to the back (a Map delete and set) only once more than half the capacity
   * of entries were put after it; until then it is in the newer half and stays put. An entry is
   * then dropped only after about half the capacity of insertions since it was last read (not the
   * full capacity, as with every hit moved), and among the older ones the least recently moved goes
   * first. For caches read on every request whose entries mostly stay (a reader's resolution, a
   * verified credential): most hits cost one lookup. Off, every hit moves its entry, so
   * recentKeys() lists exactly the most recently used.
   */
  lazy?: boolean;
}

/** A bounded map (least recently used out first) of values tagged with the generation they were computed at. */
export class GenerationCache<V> {
  private readonly entries = new Map<
    string,
    { generation: number; value: V; ghostIds?: readonly number[]; bindings?: BindingScope; order: number }
  >();
  /** Insertions so far (a move counts as one): an entry's `order` is this count when it was put last. */
  private inserted = 0;
  /** How many entries may be put after one before a hit moves it to the back again. */
  private readonly moveAfter: number;

  constructor(
    private readonly changes: ChangeGeneration,
    private readonly maxEntries = 50_000,
    { lazy = false }: CacheOrder = {},
  ) {
    this.moveAfter = lazy ? Math.floor(maxEntries / 2) : 0;
    changes.onGhostChange((ghostId) => {
      for (const [key, entry] of this.entries) if (entry.ghostIds?.includes(ghostId)) this.entries.delete(key);
    });
    changes.onBindingChange((change) => {
      for (const [key, entry] of this.entries) {
        if (entry.bindings && bindingChangeReaches(change, entry.bindings)) this.entries.delete(key);
      }
    });
  }

  /** Whether anything is kept at all (a cache of 0 entries is off). */
  get keeps(): boolean {
    return this.maxEntries > 0;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (!this.changes.isCurrent(entry.generation)) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-inserted last: a Map iterates in insertion order, so the first key is the least recently used
    // (with `lazy`, the least recently moved). With nothing put after it, it is last already.
    if (this.inserted - entry.order - 1 > this.moveAfter) {
      this.entries.delete(key);
      entry.order = this.inserted++;
      this.entries.set(key, entry);
    }
    return entry.value;
  }

  /** The keys of up to `limit` entries that may be served now, the most recently used first. */
  recentKeys(limit: number): string[] {
    const keys: string[] = [];
    if (!this.changes.hearing()) return keys;
    const all = [...this.entries];
    for (let i = all.length - 1; i >= 0 && keys.length < limit; i--) {
      if (this.changes.isCurrent(all[i][1].generation)) keys.push(all[i][0]);
    }
    return keys;
  }

  /**
   * `generation` is the one read before the value was computed. A value computed from ghosts
   * names them (`ghosts`): it is kept only if no ghost changed meanwhile, and dropped when one of
   * them changes; a value without `ghosts` does not depend on any ghost. One that names the
   * `bindings` it read is dropped when those change.
   */
  set(key: string, value: V, generation: number, ghosts?: GhostDependencies): void {
    if (!this.keeps || !this.changes.isCurrent(generation)) return;
    if (ghosts && ghosts.ghostChangesSeen !== this.changes.ghostChangesSeen()) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    const order = this.inserted++;
    this.entries.set(key, { generation, value, ghostIds: ghosts?.ghostIds, bindings: ghosts?.bindings, order });
  }
}
