// The skill folders of DIR: `DIR/<name>/` is built beside it as `.partial-<name>-<rand>/` and
// swapped in with two renames, so a reader sees the old copy or the new one, never a mix. Only
// folders the lock lists are replaced or removed; nothing else in DIR is touched.
// Every call is synchronous: a skill's files are small, and written from memory they take
// microseconds each, while each asynchronous call is a handoff to libuv's threads and back, which
// on a host starting a hundred sandboxes at once waits for a core (docs/sandbox-client.md#start-storm).
// A file is one open (`wx`, with its mode), one write and one close.
import {
  chmodSync,
  closeSync,
  Dirent,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  Stats,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { ClientError, EXIT_FAILED, errnoCode } from './errors';
import { randomSuffix } from './file-lock';
import { LOCK_TEMP } from './lock-file';
import { PackageFile, sha256Hex } from './unpack';

export type FolderProblemKind = 'not-a-folder' | 'missing' | 'not-a-file' | 'size' | 'sha256' | 'mode' | 'extra';

export interface FolderProblem {
  /** Relative to the skill folder; `.` for the folder itself. */
  path: string;
  problem: FolderProblemKind;
}

export interface FolderCheck {
  /** Re-reads every file and compares its sha256 too (otherwise sizes and modes only). */
  hashes: boolean;
  /** Stops at the first difference (a sync only asks whether the folder matches). */
  first?: boolean;
}

/**
 * How the folder at `base` differs from `files`: a listed file missing, not a regular file, of
 * another size, mode or (with `hashes`) sha256, and anything there the list does not hold. A
 * symbolic link is never followed: in the place of a file or a folder it is a difference.
 */
export async function folderProblems(base: string, files: PackageFile[], check: FolderCheck): Promise<FolderProblem[]> {
  const problems: FolderProblem[] = [];
  const extras: FolderProblem[] = [];
  const enough = (): boolean => check.first === true && problems.length + extras.length > 0;
  let top: Stats;
  try {
    top = lstatSync(base);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR')
      return files.slice(0, check.first ? 1 : undefined).map((f) => ({ path: f.path, problem: 'missing' }));
    throw err;
  }
  if (!top.isDirectory()) return [{ path: '.', problem: 'not-a-folder' }];

  const listed = new Set<string>();
  const folders = new Set<string>();
  for (const file of files) {
    listed.add(file.path);
    for (let i = file.path.indexOf('/'); i !== -1; i = file.path.indexOf('/', i + 1))
      folders.add(file.path.slice(0, i));
  }
  // The listing first (one readdir per folder), so a sync without hashes reads no file at all.
  const walk = (prefix: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(prefix ? join(base, prefix) : base, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (enough()) return;
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory() && folders.has(rel)) walk(rel);
      else if (!listed.has(rel)) extras.push({ path: rel, problem: 'extra' });
    }
  };
  walk('');
  if (enough()) return extras;
  for (const file of files) {
    if (enough()) break;
    const path = join(base, file.path);
    const info = lstatSync(path, { throwIfNoEntry: false });
    if (info === undefined) {
      problems.push({ path: file.path, problem: 'missing' });
      continue;
    }
    if (!info.isFile()) {
      problems.push({ path: file.path, problem: 'not-a-file' });
      continue;
    }
    if (info.size !== file.size) {
      problems.push({ path: file.path, problem: 'size' });
      continue;
    }
    if (((info.mode & 0o111) !== 0) !== (file.mode === '755')) {
      problems.push({ path: file.path, problem: 'mode' });
      continue;
    }
    if (check.hashes) {
      let data: Buffer | null = null;
      try {
        data = readFileSync(path);
      } catch {
        // Gone since the lstat: missing.
      }
      if (data === null) problems.push({ path: file.path, problem: 'missing' });
      else if (data.length !== file.size) problems.push({ path: file.path, problem: 'size' });
      else if (sha256Hex(data) !== file.sha256) problems.push({ path: file.path, problem: 'sha256' });
    }
  }
  return [...problems, ...extras];
}

/** Folders a killed sync may leave in DIR; the names the client gives them and nothing else. */
const LEFTOVER = /^\.(partial|old)-[a-z0-9-]{1,64}-[0-9a-f]{12}$/;
const MODES = { '644': 0o644, '755': 0o755 } as const;

/**
 * The process's umask, read once from /proc (Linux); null where it cannot be read. Reading it with
 * `process.umask()` would set it to 0 for a moment, which another thread could see.
 */
function readUmask(): number | null {
  try {
    const match = /^Umask:\s*([0-7]+)$/m.exec(readFileSync('/proc/self/status', 'latin1'));
    return match ? parseInt(match[1], 8) : null;
  } catch {
    return null;
  }
}

let umaskLeavesModes: boolean | undefined;

/**
 * Whether a file created with mode 0755 or 0644 gets exactly that mode (the usual umask, 022 or
 * 002, takes no bit of them away); otherwise each file is chmod-ed after it is created.
 */
function modesSurviveUmask(): boolean {
  if (umaskLeavesModes === undefined) {
    const umask = readUmask();
    umaskLeavesModes = umask !== null && (umask & 0o755) === 0;
  }
  return umaskLeavesModes;
}

export class Stage {
  /** Folders known to exist: the stage itself, then each one made. */
  private readonly made: Set<string>;

  constructor(
    private readonly dir: string,
    private readonly name: string,
    readonly path: string,
  ) {
    this.made = new Set([path]);
  }

  /** Writes one file with its manifest mode; `wx` never follows or overwrites anything there. */
  write(file: PackageFile, data: Buffer): void {
    const target = join(this.path, file.path);
    const parent = dirname(target);
    if (!this.made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      this.made.add(parent);
    }
    const fd = openSync(target, 'wx', MODES[file.mode]);
    try {
      for (let at = 0; at < data.length;) at += writeSync(fd, data, at, data.length - at);
      // A umask that took bits away: the manifest's mode is the one asked for.
      if (!modesSurviveUmask()) chmodSync(target, MODES[file.mode]);
    } finally {
      closeSync(fd);
    }
  }

  /** Writes every file; each folder is made once, when its first file comes. */
  async writeAll(files: Array<PackageFile & { data: Buffer }>): Promise<void> {
    for (const file of files) this.write(file, file.data);
  }

  async abort(): Promise<void> {
    rmSync(this.path, { recursive: true, force: true });
  }

  /**
   * Puts the stage in place of `DIR/<name>`. `replace`: the previous copy (a folder the lock
   * lists) is renamed aside, then removed. Otherwise the place must still be free: whatever
   * appeared there meanwhile stays, and the stage is refused.
   */
  async commit(replace: boolean): Promise<void> {
    const target = join(this.dir, this.name);
    if (!replace) {
      try {
        renameSync(this.path, target);
      } catch (err) {
        throw new ClientError(
          EXIT_FAILED,
          `${target} appeared while the sync wrote it (${errnoCode(err) ?? String(err)}); it is left as it is`,
        );
      }
      return;
    }
    const old = join(this.dir, `.old-${this.name}-${randomSuffix()}`);
    let movedAside = false;
    try {
      renameSync(target, old);
      movedAside = true;
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT') throw err;
    }
    try {
      renameSync(this.path, target);
    } catch (err) {
      if (movedAside) renameSync(old, target);
      throw err;
    }
    if (movedAside) rmSync(old, { recursive: true, force: true });
  }
}

export class SkillDir {
  constructor(readonly dir: string) {}

  async prepare(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
  }

  /** Removes what a killed sync left: staging folders, previous copies, lock temp files. */
  async cleanLeftovers(): Promise<void> {
    for (const name of readdirSync(this.dir)) {
      if (LEFTOVER.test(name) || LOCK_TEMP.test(name)) rmSync(join(this.dir, name), { recursive: true, force: true });
    }
  }

  async stage(name: string): Promise<Stage> {
    const path = join(this.dir, `.partial-${name}-${randomSuffix()}`);
    mkdirSync(path);
    return new Stage(this.dir, name, path);
  }

  /** Whether something not listed in the lock sits where `name`'s folder would go. */
  async occupied(name: string): Promise<boolean> {
    try {
      lstatSync(join(this.dir, name));
      return true;
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return false;
      throw err;
    }
  }

  /** How `DIR/<name>` differs from `files` (nothing: it matches). */
  problems(name: string, files: PackageFile[], check: FolderCheck): Promise<FolderProblem[]> {
    return folderProblems(join(this.dir, name), files, check);
  }

  /** Removes a folder the lock lists: renamed aside first, so it disappears at once. */
  async remove(name: string): Promise<void> {
    const aside = join(this.dir, `.old-${name}-${randomSuffix()}`);
    try {
      renameSync(join(this.dir, name), aside);
    } catch (err) {
      if (errnoCode(err) === 'ENOENT') return;
      throw new ClientError(EXIT_FAILED, `Cannot remove ${join(this.dir, name)}: ${errnoCode(err) ?? String(err)}`);
    }
    rmSync(aside, { recursive: true, force: true });
  }
}
