// Lock and lease files shared by every process on one cache (or one DIR): created with O_EXCL,
// holding who holds them, refreshed while held. A holder that is gone is told apart in two ways:
// on the same host and in the same pid namespace, its pid no longer runs; anywhere (another
// container on a shared volume), its file has not been refreshed for STALE_MS.
// These small files are made and read with synchronous calls (microseconds each): queued behind
// the package writes in libuv's pool, they would hold every download up.
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  readlinkSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { errnoCode } from './errors';

export const HEARTBEAT_MS = 2_000;
export const STALE_MS = 15_000;

interface Holder {
  pid: number;
  host: string;
  /** The pid namespace (`pid:[4026531836]`), so a pid is only compared within one. */
  ns: string | null;
  /** Unique per acquisition: breaking a lock checks it is still the one judged stale. */
  nonce: string;
}

function pidNamespace(): string | null {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}

const me = { pid: process.pid, host: hostname(), ns: pidNamespace() };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) === 'EPERM';
  }
}

/**
 * 12 hex digits (48 random bits) that tell this name or acquisition apart from others'. No secret
 * rests on them: every file is created with O_EXCL, so a name taken already fails rather than being
 * followed or overwritten; Math.random costs nanoseconds where the crypto generator cost 30-40 us a
 * call at start-up, 30 calls a sync.
 */
export function randomSuffix(): string {
  return Math.floor(Math.random() * 2 ** 48)
    .toString(16)
    .padStart(12, '0');
}

/** The files this process holds, refreshed every HEARTBEAT_MS while any is held. */
export class Holdings {
  private readonly held = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  /** Creates `path` exclusively, with `extra` beside who holds it; false when it exists (held by someone, or stale). */
  async create(path: string, extra: Record<string, unknown> = {}): Promise<boolean> {
    const holder: Holder = { ...extra, ...me, nonce: randomSuffix() };
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (err) {
      if (errnoCode(err) === 'EEXIST') return false;
      throw err;
    }
    try {
      writeSync(fd, JSON.stringify(holder));
    } finally {
      closeSync(fd);
    }
    this.held.set(path, holder.nonce);
    this.startBeating();
    return true;
  }

  /** Creates `path`, first removing it when its holder is gone; false while a live holder has it. */
  async acquire(path: string): Promise<boolean> {
    if (await this.create(path)) return true;
    if (!(await breakIfStale(path))) return false;
    return this.create(path);
  }

  async release(path: string): Promise<void> {
    if (!this.held.delete(path)) return;
    if (this.held.size === 0) this.stopBeating();
    try {
      unlinkSync(path);
    } catch {
      // Already gone (broken as stale by another process): nothing to release.
    }
  }

  async releaseAll(): Promise<void> {
    await Promise.all([...this.held.keys()].map((path) => this.release(path)));
  }

  holds(path: string): boolean {
    return this.held.has(path);
  }

  private startBeating(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      const now = new Date();
      for (const path of this.held.keys()) {
        try {
          utimesSync(path, now, now);
        } catch {
          // Broken as stale meanwhile: the next acquire or release sees it.
        }
      }
    }, HEARTBEAT_MS);
    // A process that is done with everything else does not wait for the next beat.
    this.timer.unref();
  }

  private stopBeating(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

async function readHolder(path: string): Promise<{ holder: Holder | null; ageMs: number; content: unknown } | null> {
  try {
    const text = readFileSync(path, 'utf8');
    const info = statSync(path);
    let holder: Holder | null = null;
    let content: unknown = null;
    try {
      content = JSON.parse(text);
      const parsed = content as Partial<Holder>;
      if (typeof parsed.pid === 'number' && typeof parsed.nonce === 'string') holder = parsed as Holder;
    } catch {
      // Created but not yet written, or cut short by a crash: judged by its age alone.
    }
    return { holder, ageMs: Date.now() - info.mtimeMs, content };
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return null;
    throw err;
  }
}

/** What the holder of `path` wrote there (its JSON) while it is still there; null when the file or its holder is gone. */
export async function liveContent(path: string): Promise<unknown> {
  const found = await readHolder(path);
  return found !== null && !isStaleHolder(found.holder, found.ageMs) ? found.content : null;
}

/** Whether the file at `path` is held by someone still there; a missing file is not held. */
export async function isHeld(path: string): Promise<boolean> {
  const found = await readHolder(path);
  return found !== null && !isStaleHolder(found.holder, found.ageMs);
}

function isStaleHolder(holder: Holder | null, ageMs: number): boolean {
  if (ageMs > STALE_MS) return true;
  if (!holder) return false;
  const here = holder.host === me.host && holder.ns !== null && holder.ns === me.ns;
  return here && holder.pid !== me.pid && !isAlive(holder.pid);
}

/**
 * Removes a stale lock. It is first renamed aside, so that of several processes breaking it at
 * once one wins; if what was renamed turns out to be a fresh lock taken meanwhile, it is put back.
 * True when the path is free now.
 */
export async function breakIfStale(path: string): Promise<boolean> {
  const found = await readHolder(path);
  if (!found) return true;
  if (!isStaleHolder(found.holder, found.ageMs)) return false;
  const aside = `${path}.stale-${randomSuffix()}`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return true;
    throw err;
  }
  const moved = await readHolder(aside);
  const same = moved !== null && (moved.holder?.nonce ?? null) === (found.holder?.nonce ?? null);
  try {
    // Someone's fresh lock: give it back unless yet another one was created meanwhile.
    if (!same) linkSync(aside, path);
  } catch {
    // Another lock was created meanwhile: it stands.
  }
  try {
    unlinkSync(aside);
  } catch {
    // Gone already.
  }
  return same;
}
