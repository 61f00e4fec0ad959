// The host cache: each package's zip, as the service stores it, under
// `<cache>/<scope>/<content hash>/`, where the scope is a digest of the service URL alone, so
// every identity on the host shares one entry per package. Nothing leaks by it: an entry is only
// looked up by a content hash the service just resolved for this caller (who could download those
// very bytes), and on every use its bytes are hashed again against that content hash before they
// are unpacked with the package rules, so an entry that was damaged, or planted by anyone else
// who can write the cache, is never used. An entry appears only by renaming a complete
// `.partial-*` folder into place, so no reader ever sees half of one.
// Folders, manifests and renames use synchronous calls (microseconds each), so they never wait in
// libuv's pool behind the files being written; the zips are read and written asynchronously.
import { createHash } from 'node:crypto';
import {
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { open, rm, writeFile } from 'node:fs/promises';
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

export class PackageCache {
  readonly scopeDir: string;

  private constructor(
    readonly root: string,
    scope: string,
    private readonly holdings: Holdings,
  ) {
    this.scopeDir = join(root, scope);
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
      const handle = await open(join(this.entryDir(hex), PACKAGE), constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        // Never more than the manifest says: a file grown huge is not read whole.
        const size = (await handle.stat()).size;
        if (size !== manifest.bytes) return 'corrupt';
        data = await handle.readFile();
      } finally {
        await handle.close();
      }
    } catch (err) {
      const code = errnoCode(err);
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EISDIR') {
        return existsSync(join(this.entryDir(hex), MANIFEST)) ? 'corrupt' : 'missing';
      }
      throw err;
    }
    if (data.length !== manifest.bytes) return 'corrupt';
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
    await rm(aside, { recursive: true, force: true });
  }

  /** The download lock of one package in this scope: one process fetches it, the others wait. */
  lockDownload(hex: string): Promise<boolean> {
    return this.holdings.acquire(this.lockPath(hex));
  }

  unlockDownload(hex: string): Promise<void> {
    return this.holdings.release(this.lockPath(hex));
  }

  /** Writes the entry into a `.partial-*` folder and renames it in; only the download lock's holder calls it. */
  async publish(hex: string, contentHash: string, name: string, zip: Buffer): Promise<void> {
    // A partial left by a killed holder has another random name; eviction removes it.
    const partial = join(this.scopeDir, `.partial-${hex}-${randomSuffix()}`);
    mkdirSync(partial, { mode: 0o700 });
    try {
      await writeFile(join(partial, PACKAGE), zip, { flag: 'wx', mode: 0o600 });
      const manifest: CacheManifest = { format: 2, content_hash: contentHash, name, bytes: zip.length };
      writeFileSync(join(partial, MANIFEST), JSON.stringify(manifest), { flag: 'wx', mode: 0o600 });
      renameSync(partial, this.entryDir(hex));
    } catch (err) {
      await rm(partial, { recursive: true, force: true });
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
            await rm(join(scopeDir, name), { recursive: true, force: true });
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
