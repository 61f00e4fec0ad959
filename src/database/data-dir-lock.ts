// An exclusive lock on the embedded data folder: PGlite takes none, and two processes on one
// folder lose writes. A lock left by a dead process is taken over; a live holder is refused.
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE_NAME = 'skill-resolver.lock';

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
  /** Set when a lock left by a dead process was taken over. */
  tookOverFromPid?: number;
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function tryCreate(path: string): boolean {
  try {
    const fd = openSync(path, 'wx', 0o600);
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

export function acquireDataDirLock(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, LOCK_FILE_NAME);
  let tookOverFromPid: number | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(path)) {
      const release = (): void => {
        process.removeListener('exit', release);
        if (readPid(path) === process.pid) unlinkSync(path);
      };
      // Also on process.exit() (the migration CLI exits that way); only kill -9 leaves it behind.
      process.once('exit', release);
      return { path, tookOverFromPid, release };
    }
    const holder = readPid(path);
    if (holder !== null && holder !== process.pid && isAlive(holder)) {
      throw new DataDirLockedError(dataDir, holder);
    }
    // Stale (dead holder, or an unreadable half-written file): move it aside atomically, so that
    // of two processes taking over at once only one removes it, then race for a fresh create.
    try {
      renameSync(path, `${path}.stale-${process.pid}`);
      unlinkSync(`${path}.stale-${process.pid}`);
      tookOverFromPid = holder ?? undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  throw new Error(`Could not take the lock file ${path}`);
}
