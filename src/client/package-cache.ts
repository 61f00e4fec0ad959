// The host cache: each package's zip, as the service stores it, in one file
// `<cache>/<scope>/<content hash>.zip`, where the scope is a digest of the service URL alone, so
// every identity on the host shares one entry per package. Nothing leaks by it: an entry is only
// looked up by a content hash the service just resolved for this caller (who could download those
// very bytes), and on every use its bytes are hashed again against that content hash before they
// are unpacked with the package rules, so an entry that was damaged, or planted by anyone else
// who can write the cache, is never used. An entry appears only by renaming a complete
// `.partial-*` file into place, so no reader ever sees half of one. A sync that finds another
// fetching a package waits for that entry by watching the scope folder (ScopeWatch), not by
// looking again and again. One file per entry, one lease per sync: on a host starting many
// sandboxes, every file created costs (docs/sandbox-client.md#host-cache).
// Every file call is synchronous (microseconds each for these sizes): an asynchronous one is a
// handoff to libuv's threads and back, which waits for a core when a host starts many sandboxes.
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  FSWatcher,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  Stats,
  statSync,
  unlinkSync,
  utimesSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { errnoCode } from './errors';
import { breakIfStale, Holdings, isHeld, liveContent, randomSuffix } from './file-lock';

export interface CacheBounds {
  maxEntries: number;
  maxBytes: number;
}

const SCOPE_NAME = /^[0-9a-f]{32}$/;
const ENTRY_FILE = /^([0-9a-f]{64})\.zip$/;
const LOCK_NAME = /^([0-9a-f]{64})\.lock$/;
const LEASE_NAME = /^\.lease-[0-9a-f]{12}$/;
const PARTIAL_NAME = /^\.partial-([0-9a-f]{64})-[0-9a-f]{12}$/;
/** What clients before this layout left: entry folders, their leases and trash; eviction clears them. */
const OLD_ENTRY_FOLDER = /^[0-9a-f]{64}$/;
const OLD_LEASE_NAME = /^([0-9a-f]{64})\.lease-[0-9a-f]{12}$/;
const OLD_TRASH_NAME = /^\.trash-[0-9a-f]{12}$/;

/** One scope per service: a digest of its URL (no identity in it); `3`: the layout of one file per entry. */
export function cacheScope(serviceUrl: string): string {
  return createHash('sha256').update(`skill-resolver/scope/3\n${serviceUrl}`, 'utf8').digest('hex').slice(0, 32);
}

export function hexOf(contentHash: string): string {
  return contentHash.slice('sha256:'.length);
}

/** Where the scope folder cannot be watched, how often a waiting sync looks again. */
export const POLL_MS = 50;
/**
 * A watched wait looks again after this long even when nothing changed: a holder killed on another
 * host (or in another pid namespace) leaves its lock as it was, and the wait must see it go stale.
 */
export const WATCHED_LOOK_MS = 1_000;

/**
 * Changes in one scope folder, by package: its entry renamed in or away, its download lock created
 * or removed (inotify on Linux, through fs.watch). Each change bumps the package's generation and
 * wakes whoever waits for it; a waiter that read the generation before it looked, and sees it
 * moved, looks again at once, so no change between its look and its wait is missed.
 */
class ScopeWatch {
  private watcher: FSWatcher | null = null;
  private broken = false;
  private readonly generations = new Map<string, number>();
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(private readonly dir: string) {}

  get active(): boolean {
    return this.watcher !== null;
  }

  /** Starts watching; false where the folder cannot be watched (then waits poll). */
  start(): boolean {
    if (this.watcher) return true;
    if (this.broken) return false;
    try {
      // Not persistent: a watch never keeps the process alive by itself.
      this.watcher = watch(this.dir, { persistent: false }, (event, name) => this.changed(event, name));
      this.watcher.on('error', () => this.fail());
      return true;
    } catch {
      this.broken = true;
      return false;
    }
  }

  generation(hex: string): number {
    return this.generations.get(hex) ?? 0;
  }

  /** Resolves once `hex` changed after generation `since`, after `ms`, or when `signal` fires. */
  wait(hex: string, since: number, ms: number, signal: AbortSignal): Promise<void> {
    if (this.generation(hex) !== since || signal.aborted || !this.watcher) return Promise.resolve();
    return new Promise((resolve) => {
      const set = this.waiters.get(hex) ?? new Set<() => void>();
      this.waiters.set(hex, set);
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        set.delete(done);
        if (set.size === 0) this.waiters.delete(hex);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      set.add(done);
    });
  }

  stop(): void {
    this.watcher?.close();
    this.watcher = null;
    for (const set of [...this.waiters.values()]) for (const wake of [...set]) wake();
  }

  private changed(event: string, name: string | Buffer | null): void {
    const file = typeof name === 'string' ? name : name?.toString('utf8');
    // Without a name (an overflowed event queue), anything may have changed.
    if (!file) {
      for (const hex of this.waiters.keys()) this.bump(hex);
      return;
    }
    // A refreshed lock (its heartbeat) is a 'change'; only names that come and go matter here.
    if (event !== 'rename') return;
    const hex = ENTRY_FILE.exec(file)?.[1] ?? LOCK_NAME.exec(file)?.[1];
    if (hex) this.bump(hex);
  }

  private bump(hex: string): void {
    this.generations.set(hex, this.generation(hex) + 1);
    for (const wake of [...(this.waiters.get(hex) ?? [])]) wake();
  }

  private fail(): void {
    this.broken = true;
    this.stop();
  }
}

export class PackageCache {
  readonly scopeDir: string;
  /** Entries this process added: a sync that added none leaves eviction to those that did. */
  published = 0;
  private readonly changes: ScopeWatch;
  private leased: string[] | null = null;

  private constructor(
    readonly root: string,
    scope: string,
    private readonly holdings: Holdings,
  ) {
    this.scopeDir = join(root, scope);
    this.changes = new ScopeWatch(this.scopeDir);
  }

  /** Creates the cache and scope folders (0700) when missing. */
  static async open(root: string, scope: string, holdings: Holdings): Promise<PackageCache> {
    const cache = new PackageCache(root, scope, holdings);
    mkdirSync(cache.scopeDir, { recursive: true, mode: 0o700 });
    return cache;
  }

  entryPath(hex: string): string {
    return join(this.scopeDir, `${hex}.zip`);
  }

  private lockPath(hex: string): string {
    return join(this.scopeDir, `${hex}.lock`);
  }

  /**
   * Marks the entries of `hexes` in use by this process until it ends: one lease file for the whole
   * sync, naming them, which eviction leaves alone. Taken before the first entry is read.
   */
  async lease(hexes: readonly string[]): Promise<void> {
    if (this.leased) return;
    this.leased = [...hexes];
    await this.holdings.create(join(this.scopeDir, `.lease-${randomSuffix()}`), { hexes: this.leased });
  }

  /**
   * The entry's zip, when it is a regular file of at most `maxBytes` whose bytes hash to
   * `contentHash`; `missing` when there is none (or it went away meanwhile: evicted by another
   * process), `corrupt` otherwise. Read whole at once, so an eviction after it opened changes
   * nothing.
   */
  async read(hex: string, contentHash: string, maxBytes: number): Promise<Buffer | 'missing' | 'corrupt'> {
    let data: Buffer;
    try {
      const fd = openSync(this.entryPath(hex), constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const info = fstatSync(fd);
        // Never more than a package can take: a file grown huge is not read whole.
        if (!info.isFile() || info.size > maxBytes) return 'corrupt';
        data = Buffer.allocUnsafe(info.size);
        let at = 0;
        for (let got = -1; at < data.length && got !== 0; at += got) got = readSync(fd, data, at, data.length - at, at);
        if (at !== data.length) return 'corrupt';
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      const code = errnoCode(err);
      if (code === 'ENOENT') return 'missing';
      if (code === 'ELOOP' || code === 'EISDIR' || code === 'ENOTDIR') return 'corrupt';
      throw err;
    }
    const got = `sha256:${createHash('sha256').update(data).digest('hex')}`;
    return got === contentHash ? data : 'corrupt';
  }

  /** Whether an entry is there (not whether it is sound: `read` tells). */
  has(hex: string): boolean {
    return existsSync(this.entryPath(hex));
  }

  /** Marks the entry as just used, for the least-recently-used order. */
  async touch(hex: string): Promise<void> {
    const now = new Date();
    try {
      utimesSync(this.entryPath(hex), now, now);
    } catch {
      // Evicted meanwhile: nothing to mark.
    }
  }

  /** Takes the entry away: one unlink, which a reader that already opened it does not notice. */
  async discard(hex: string): Promise<void> {
    // Recursive: what sits there may be a folder planted in its place.
    rmSync(this.entryPath(hex), { recursive: true, force: true });
  }

  /** The download lock of one package in this scope: one process fetches it, the others wait. */
  lockDownload(hex: string): Promise<boolean> {
    return this.holdings.acquire(this.lockPath(hex));
  }

  unlockDownload(hex: string): Promise<void> {
    return this.holdings.release(this.lockPath(hex));
  }

  /**
   * The number of changes seen so far to `hex`'s entry and lock, to pass to `waitForChange` after
   * looking at them; null until the scope folder is watched (`watch()`).
   */
  changesTo(hex: string): number | null {
    return this.changes.active ? this.changes.generation(hex) : null;
  }

  /** Starts watching the scope folder; false where it cannot be watched. */
  watch(): boolean {
    return this.changes.start();
  }

  /**
   * Waits until `hex`'s entry or download lock changes after `since` (what `changesTo` gave before
   * the caller looked), WATCHED_LOOK_MS at most; without a watch, POLL_MS. Returns early when
   * `signal` fires: the caller checks it.
   */
  async waitForChange(hex: string, since: number | null, signal: AbortSignal): Promise<void> {
    if (since === null || !this.changes.active) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, POLL_MS);
        signal.addEventListener('abort', done, { once: true });
        function done(): void {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
      });
      return;
    }
    await this.changes.wait(hex, since, WATCHED_LOOK_MS, signal);
  }

  /** Stops watching: the end of the sync. */
  close(): void {
    this.changes.stop();
  }

  /** Writes the entry to a `.partial-*` file and renames it in; only the download lock's holder calls it. */
  async publish(hex: string, zip: Buffer): Promise<void> {
    // A partial left by a killed holder has another random name; eviction removes it.
    const partial = join(this.scopeDir, `.partial-${hex}-${randomSuffix()}`);
    try {
      writeFileSync(partial, zip, { flag: 'wx', mode: 0o600 });
      // Over an entry published meanwhile (a lock broken as stale while its holder still ran), the
      // same bytes replace the same bytes, in one step.
      renameSync(partial, this.entryPath(hex));
      this.published++;
    } catch (err) {
      rmSync(partial, { force: true });
      throw err;
    }
  }

  /**
   * Keeps the whole cache (every scope) within its bounds, least recently used first, never
   * removing an entry `keep` names or a live sync's lease names. One process evicts at a time;
   * leftovers of killed processes (partials, stale locks and leases) and of older clients go too.
   */
  async evict(bounds: CacheBounds, keep: ReadonlySet<string>): Promise<void> {
    const evictLock = join(this.root, '.evict.lock');
    if (!(await this.holdings.acquire(evictLock))) return;
    try {
      const entries: Entry[] = [];
      const leases = new Map<string, Leases>();
      for (const scope of readdirSync(this.root).filter((n) => SCOPE_NAME.test(n))) {
        const scopeDir = join(this.root, scope);
        const names = listing(scopeDir);
        const leased: Leases = { read: new Set(), hexes: new Set() };
        await readLeases(scopeDir, names, leased);
        leases.set(scopeDir, leased);
        for (const name of names) {
          if (LOCK_NAME.test(name)) await breakIfStale(join(scopeDir, name));
          const partial = PARTIAL_NAME.exec(name);
          if (OLD_TRASH_NAME.test(name) || (partial && !(await isHeld(join(scopeDir, `${partial[1]}.lock`))))) {
            rmSync(join(scopeDir, name), { recursive: true, force: true });
          }
          const hex = ENTRY_FILE.exec(name)?.[1] ?? (OLD_ENTRY_FOLDER.test(name) ? name : null);
          if (hex === null) continue;
          const pinned = leased.hexes.has(hex) || (scopeDir === this.scopeDir && keep.has(hex));
          entries.push({ scopeDir, name, hex, pinned, ...entryUsage(join(scopeDir, name)) });
        }
      }
      // Entries in use stay, but still count against the bounds.
      let count = entries.length;
      let bytes = entries.reduce((sum, e) => sum + e.bytes, 0);
      entries.sort((a, b) => a.usedAt - b.usedAt);
      for (const entry of entries) {
        if (count <= bounds.maxEntries && bytes <= bounds.maxBytes) break;
        if (entry.pinned) continue;
        // A sync may have started since the scan: a lease taken since is read before the entry goes.
        const leased = leases.get(entry.scopeDir)!;
        await readLeases(entry.scopeDir, listing(entry.scopeDir), leased);
        if (leased.hexes.has(entry.hex)) continue;
        removeEntry(join(entry.scopeDir, entry.name));
        count--;
        bytes -= entry.bytes;
      }
    } finally {
      await this.holdings.release(evictLock);
    }
  }
}

interface Entry {
  scopeDir: string;
  /** Its file (`<hex>.zip`), or the folder an older client made (`<hex>`). */
  name: string;
  hex: string;
  bytes: number;
  usedAt: number;
  pinned: boolean;
}

/** The live leases of one scope folder: the lease files read, and the packages they name. */
interface Leases {
  read: Set<string>;
  hexes: Set<string>;
}

/** Adds what the live leases among `names` not read yet name; stale leases are removed. */
async function readLeases(scopeDir: string, names: string[], leases: Leases): Promise<void> {
  for (const name of names) {
    if (leases.read.has(name)) continue;
    const path = join(scopeDir, name);
    const old = OLD_LEASE_NAME.exec(name);
    if (old) {
      leases.read.add(name);
      if (!(await breakIfStale(path))) leases.hexes.add(old[1]);
      continue;
    }
    if (!LEASE_NAME.test(name)) continue;
    leases.read.add(name);
    const content = (await liveContent(path)) as { hexes?: unknown } | null;
    if (content === null) {
      await breakIfStale(path);
      continue;
    }
    if (!Array.isArray(content.hexes)) continue;
    for (const hex of content.hexes) if (typeof hex === 'string') leases.hexes.add(hex);
  }
}

/** Bytes and last use of an entry; one that cannot be read is the first to go. */
function entryUsage(path: string): { bytes: number; usedAt: number } {
  let info: Stats;
  try {
    info = statSync(path);
  } catch {
    return { bytes: 0, usedAt: 0 };
  }
  if (info.isFile()) return { bytes: info.size, usedAt: info.mtimeMs };
  // An older client's folder: its manifest says the bytes and was touched on use.
  try {
    const manifest = join(path, 'manifest.json');
    const recorded = (JSON.parse(readFileSync(manifest, 'utf8')) as { bytes?: unknown }).bytes;
    return { bytes: typeof recorded === 'number' ? recorded : 0, usedAt: statSync(manifest).mtimeMs };
  } catch {
    return { bytes: 0, usedAt: 0 };
  }
}

/** An entry file goes with one unlink; an older client's folder is renamed aside first, then deleted. */
function removeEntry(path: string): void {
  try {
    unlinkSync(path);
    return;
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT') return;
    if (code !== 'EISDIR' && code !== 'EPERM') throw err;
  }
  const aside = join(path, '..', `.trash-${randomSuffix()}`);
  try {
    renameSync(path, aside);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return;
    throw err;
  }
  rmSync(aside, { recursive: true, force: true });
}

function listing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
