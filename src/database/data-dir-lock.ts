// An exclusive lock on the embedded data folder: PGlite takes none, and two processes on one
// folder lose writes. The lock file names its holder by pid *and* by the holder's start time (and
// the boot it started in), so a pid that now belongs to another process does not keep it: a lock
// whose holder is gone (dead, a zombie not yet reaped, another boot, a reused pid) is taken over;
// a live holder is refused.
import { linkSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE_NAME = 'skill-resolver.lock';
/** How long a holder that looks alive is given to finish dying (just killed, or in uninterruptible I/O). */
const DYING_GRACE_MS = 3_000;
const POLL_MS = 50;

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    super(
      `Data folder ${dataDir} is in use by another process (pid ${holderPid}); stop it or set DATA_DIR to another folder`,
    );
  }
}

export interface DataDirLock {
  path: string;
  /** Set when a lock left by a process that is gone was taken over. */
  tookOverFromPid?: number;
  release(): void;
}

/** Who holds the lock: written as one JSON line; `start` and `boot` are null where /proc is missing. */
export interface LockHolder {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: the process start time in clock ticks since boot. */
  start: string | null;
  /** /proc/sys/kernel/random/boot_id: pids and start times are only comparable within one boot. */
  boot: string | null;
}

type ProcState = { state: string; start: string } | 'gone' | 'unknown';

function readProcStat(pid: number): ProcState {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return existsByPid(pid) ? 'unknown' : 'gone';
    return 'unknown';
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')': split after the last.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], start: fields[19] };
}

/**
 * When a process started (ms since the epoch), from the boot time and its start in clock ticks
 * (USER_HZ, 100 on every Linux architecture); null where /proc cannot tell.
 */
function startedAtMs(startTicks: string): number | null {
  try {
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    return btime ? Number(btime[1]) * 1000 + Number(startTicks) * 10 : null;
  } catch {
    return null;
  }
}

function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

function existsByPid(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Process `pid` as a lock holder (this process by default). */
export function holderOf(pid = process.pid): LockHolder {
  const stat = readProcStat(pid);
  return { pid, start: typeof stat === 'object' ? stat.start : null, boot: bootId() };
}

/**
 * Whether `holder` is a live process other than this one. Where /proc exists a pid counts only if
 * the process behind it started when the holder did, in the same boot, and is not a zombie. A lock
 * that names a pid alone (written by an earlier version) counts only if that process started
 * before the lock was written (`writtenAtMs`).
 */
export function holderIsAlive(holder: LockHolder, writtenAtMs?: number): boolean {
  if (holder.pid === process.pid) return false; // e.g. pid 1 in a restarted container
  if (holder.boot !== null) {
    const boot = bootId();
    if (boot !== null && boot !== holder.boot) return false;
  }
  const stat = readProcStat(holder.pid);
  if (stat === 'gone') return false;
  if (stat === 'unknown') return existsByPid(holder.pid);
  // Z: killed but not yet reaped by its parent; X: dead.
  if (stat.state === 'Z' || stat.state === 'X') return false;
  if (holder.start !== null) return holder.start === stat.start;
  const startedAt = writtenAtMs === undefined ? null : startedAtMs(stat.start);
  // A second of slack: the boot time is in whole seconds.
  return startedAt === null || startedAt <= writtenAtMs! + 1_000;
}

/** The holder a lock file names; null when it is unreadable. */
export function parseHolder(text: string): LockHolder | null {
  const trimmed = text.trim();
  // Files written before start times were recorded hold the pid alone.
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed), start: null, boot: null };
  try {
    const parsed = JSON.parse(trimmed) as Partial<LockHolder>;
    if (!Number.isInteger(parsed.pid) || (parsed.pid as number) <= 0) return null;
    return {
      pid: parsed.pid as number,
      start: typeof parsed.start === 'string' ? parsed.start : null,
      boot: typeof parsed.boot === 'string' ? parsed.boot : null,
    };
  } catch {
    return null;
  }
}

function readLock(path: string): { text: string; holder: LockHolder | null; writtenAtMs: number } | null {
  try {
    const writtenAtMs = statSync(path).mtimeMs;
    const text = readFileSync(path, 'utf8');
    return { text, holder: parseHolder(text), writtenAtMs };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Creates the lock whole: written aside, then linked into place (fails if it exists), so no one reads it half-written. */
function tryCreate(path: string, content: string): boolean {
  const draft = `${path}.new-${process.pid}`;
  writeFileSync(draft, content, { mode: 0o600 });
  try {
    linkSync(draft, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkSync(draft);
  }
}

/**
 * Moves a stale lock aside, so that of two processes taking over at once only one removes it. If
 * what was moved is not the stale file judged (another process took over and wrote its own in
 * between), it is put back.
 */
function removeStale(path: string, staleText: string): void {
  const aside = `${path}.stale-${process.pid}`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  let moved: string | null;
  try {
    moved = readFileSync(aside, 'utf8');
  } catch {
    moved = null;
  }
  if (moved !== null && moved !== staleText) {
    try {
      linkSync(aside, path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  unlinkSync(aside);
}

const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

export function acquireDataDirLock(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK_FILE_NAME);
  const me = holderOf();
  const content = `${JSON.stringify(me)}\n`;
  let tookOverFromPid: number | undefined;
  let waitedSince: number | undefined;
  for (let attempt = 0; attempt < 200; attempt++) {
    if (tryCreate(path, content)) {
      const release = (): void => {
        process.removeListener('exit', release);
        if (readLock(path)?.text === content) unlinkSync(path);
      };
      // Also on process.exit() (the migration CLI exits that way); only kill -9 leaves it behind.
      process.once('exit', release);
      return { path, tookOverFromPid, release };
    }
    const found = readLock(path);
    if (!found) continue;
    const { text, holder, writtenAtMs } = found;
    if (holder && holderIsAlive(holder, writtenAtMs)) {
      // A holder killed a moment ago may still be exiting: give it a little time before refusing.
      waitedSince ??= Date.now();
      if (Date.now() - waitedSince >= DYING_GRACE_MS) throw new DataDirLockedError(dataDir, holder.pid);
      sleepSync(POLL_MS);
      continue;
    }
    removeStale(path, text);
    tookOverFromPid = holder?.pid;
  }
  throw new Error(`Could not take the lock file ${path}`);
}
