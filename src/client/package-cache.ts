// The host cache: each package's zip, as the service stores it, under
// `<cache>/<scope>/<content hash>/`, where the scope is a digest of the service URL alone, so
// every identity on the host shares one entry per package. Nothing leaks by it: an entry is only
// looked up by a content hash the service just resolved for this caller (who could download those
// very bytes), and on every use its bytes are hashed again against that content hash before they
// are unpacked with the package rules, so an entry that was damaged, or planted by anyone else
// who can write the cache, is never used. An entry appears only by renaming a complete
// `.partial-*` folder into place, so no reader ever sees half of one. A sync that finds another
// fetching a package waits for that entry by watching the scope folder (ScopeWatch), not by
// looking again and again.
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
  statSync,
  utimesSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { errnoCode } from './errors';
import { breakIfStale, Holdings, isHeld, randomSuffix } from './file-lock';

export interface CacheManifest {
  format: 2;
  content_hash: string;
  /** The skill it was fetched for, for a person reading the cache. */
  name: string;
  /** The zip's size: what the entry costs against the byte bound. */
  bytes: number;
}

export interface CacheBounds {
  maxEntries: number;
  maxBytes: number;
}

const MANIFEST = 'manifest.json';
const PACKAGE = 'package.zip';
const SCOPE_NAME = /^[0-9a-f]{32}$/;
const ENTRY_NAME = /^[0-9a-f]{64}$/;
const PARTIAL_NAME = /^\.partial-([0-9a-f]{64})-[0-9a-f]{12}$/;
const TRASH_NAME = /^\.trash-[0-9a-f]{12}$/;
const LEASE_NAME = /^([0-9a-f]{64})\.lease-[0-9a-f]{12}$/;
const LOCK_NAME = /^[0-9a-f]{64}\.lock$/;

/** One scope per service: a digest of its URL (no identity in it). */
export function cacheScope(serviceUrl: string): string {
  return createHash('sha256').update(`skill-resolver/scope/2\n${serviceUrl}`, 'utf8').digest('hex').slice(0, 32);
}

export function hexOf(contentHash: string): string {
  return contentHash.slice('sha256:'.length);
}

function isManifest(value: unknown, contentHash: string): value is CacheManifest {
  const m = value as Partial<CacheManifest> | null;
  return (
    !!m &&
    m.format === 2 &&
    m.content_hash === contentHash &&
    typeof m.name === 'string' &&
    Number.isSafeInteger(m.bytes) &&
    (m.bytes as number) >= 0
  );
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
    const hex = file.endsWith('.lock') ? file.slice(0, -'.lock'.length) : file;
    if (ENTRY_NAME.test(hex)) this.bump(hex);
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

  entryDir(hex: string): string {
    return join(this.scopeDir, hex);
  }

  private lockPath(hex: string): string {
    return join(this.scopeDir, `${hex}.lock`);
  }

  /** Marks the entry in use by this process until released: eviction leaves it alone. */
  async lease(hex: string): Promise<void> {
    await this.holdings.create(join(this.scopeDir, `${hex}.lease-${randomSuffix()}`));
  }

  /** The recorded manifest of a published entry; `corrupt` when it does not describe this package. */
  manifest(hex: string, contentHash: string): CacheManifest | 'missing' | 'corrupt' {
    let text: string;
    try {
      text = readFileSync(join(this.entryDir(hex), MANIFEST), 'utf8');
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return existsSync(this.entryDir(hex)) ? 'corrupt' : 'missing';
      throw err;
    }
    try {
      const parsed: unknown = JSON.parse(text);
      return isManifest(parsed, contentHash) ? parsed : 'corrupt';
    } catch {
      return 'corrupt';
    }
  }

  /**
   * The entry's zip, when its bytes hash to `contentHash` and are of the recorded size; `missing`
   * when the entry went away meanwhile (evicted by another process), `corrupt` otherwise.
   */
  async readPackage(hex: string, manifest: CacheManifest): Promise<Buffer | 'missing' | 'corrupt'> {
    let data: Buffer;
    try {
      const fd = openSync(join(this.entryDir(hex), PACKAGE), constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        // Never more than the manifest says: a file grown huge is not read whole.
        if (fstatSync(fd).size !== manifest.bytes) return 'corrupt';
        data = Buffer.allocUnsafe(manifest.bytes);
        let at = 0;
        for (let got = -1; at < data.length && got !== 0; at += got) got = readSync(fd, data, at, data.length - at, at);
        if (at !== manifest.bytes) return 'corrupt';
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      const code = errnoCode(err);
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EISDIR') {
        return existsSync(join(this.entryDir(hex), MANIFEST)) ? 'corrupt' : 'missing';
      }
      throw err;
    }
    const got = `sha256:${createHash('sha256').update(data).digest('hex')}`;
    return got === manifest.content_hash ? data : 'corrupt';
  }

  /** Marks the entry as just used, for the least-recently-used order. */
  async touch(hex: string): Promise<void> {
    const now = new Date();
    try {
      utimesSync(join(this.entryDir(hex), MANIFEST), now, now);
    } catch {
      // Evicted meanwhile: nothing to mark.
    }
  }

  /** Takes the entry away at once (one rename), then deletes it. */
  async discard(hex: string): Promise<void> {
    await this.trash(this.entryDir(hex));
  }

  private async trash(path: string): Promise<void> {
    const aside = join(dirname(path), `.trash-${randomSuffix()}`);
    try {
      renameSync(path, aside);
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return;
      throw err;
    }
    rmSync(aside, { recursive: true, force: true });
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

  /** Writes the entry into a `.partial-*` folder and renames it in; only the download lock's holder calls it. */
  async publish(hex: string, contentHash: string, name: string, zip: Buffer): Promise<void> {
    // A partial left by a killed holder has another random name; eviction removes it.
    const partial = join(this.scopeDir, `.partial-${hex}-${randomSuffix()}`);
    mkdirSync(partial, { mode: 0o700 });
    try {
      writeFileSync(join(partial, PACKAGE), zip, { flag: 'wx', mode: 0o600 });
      const manifest: CacheManifest = { format: 2, content_hash: contentHash, name, bytes: zip.length };
      writeFileSync(join(partial, MANIFEST), JSON.stringify(manifest), { flag: 'wx', mode: 0o600 });
      renameSync(partial, this.entryDir(hex));
      this.published++;
    } catch (err) {
      rmSync(partial, { recursive: true, force: true });
      // Published by someone else meanwhile (a lock broken as stale while its holder still ran).
      const code = errnoCode(err);
      if ((code === 'ENOTEMPTY' || code === 'EEXIST') && existsSync(this.entryDir(hex))) return;
      throw err;
    }
  }

  /**
   * Keeps the whole cache (every scope) within its bounds, least recently used first, never
   * removing an entry `keep` names or another process holds a lease on. One process evicts at a
   * time; leftovers of killed processes (partials, trash, stale locks and leases) go too.
   */
  async evict(bounds: CacheBounds, keep: ReadonlySet<string>): Promise<void> {
    const evictLock = join(this.root, '.evict.lock');
    if (!(await this.holdings.acquire(evictLock))) return;
    try {
      const entries: Array<{ scopeDir: string; hex: string; bytes: number; usedAt: number; pinned: boolean }> = [];
      for (const scope of readdirSync(this.root).filter((n) => SCOPE_NAME.test(n))) {
        const scopeDir = join(this.root, scope);
        const names = listing(scopeDir);
        const leased = new Set<string>();
        for (const name of names) {
          const lease = LEASE_NAME.exec(name);
          if (lease && !(await breakIfStale(join(scopeDir, name)))) leased.add(lease[1]);
          if (LOCK_NAME.test(name)) await breakIfStale(join(scopeDir, name));
        }
        for (const name of names) {
          const partial = PARTIAL_NAME.exec(name);
          if (TRASH_NAME.test(name) || (partial && !(await isHeld(join(scopeDir, `${partial[1]}.lock`))))) {
            rmSync(join(scopeDir, name), { recursive: true, force: true });
          }
          if (!ENTRY_NAME.test(name)) continue;
          const pinned = leased.has(name) || (scopeDir === this.scopeDir && keep.has(name));
          entries.push({ scopeDir, hex: name, pinned, ...entryUsage(join(scopeDir, name)) });
        }
      }
      // Entries in use stay, but still count against the bounds.
      let count = entries.length;
      let bytes = entries.reduce((sum, e) => sum + e.bytes, 0);
      entries.sort((a, b) => a.usedAt - b.usedAt);
      for (const entry of entries) {
        if (count <= bounds.maxEntries && bytes <= bounds.maxBytes) break;
        if (entry.pinned || (await hasLiveLease(entry.scopeDir, entry.hex))) continue;
        await this.trash(join(entry.scopeDir, entry.hex));
        count--;
        bytes -= entry.bytes;
      }
    } finally {
      await this.holdings.release(evictLock);
    }
  }
}

/** Checked again right before an entry goes: a sync may have started to read it since the scan. */
async function hasLiveLease(scopeDir: string, hex: string): Promise<boolean> {
  for (const name of listing(scopeDir)) {
    if (LEASE_NAME.exec(name)?.[1] === hex && (await isHeld(join(scopeDir, name)))) return true;
  }
  return false;
}

/** Bytes and last use of an entry; an unreadable manifest makes it the first to go. */
function entryUsage(dir: string): { bytes: number; usedAt: number } {
  try {
    const path = join(dir, MANIFEST);
    const bytes = (JSON.parse(readFileSync(path, 'utf8')) as { bytes?: unknown }).bytes;
    return { bytes: typeof bytes === 'number' ? bytes : 0, usedAt: statSync(path).mtimeMs };
  } catch {
    return { bytes: 0, usedAt: 0 };
  }
}

function listing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
