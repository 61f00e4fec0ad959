// The skill folders of DIR: `DIR/<name>/` is built beside it as `.partial-<name>-<rand>/` and
// swapped in with two renames, so a reader sees the old copy or the new one, never a mix. Only
// folders the lock lists are replaced or removed; nothing else in DIR is touched. Folders and
// renames are synchronous calls (microseconds), file contents asynchronous.
import { lstatSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { lstat, open, readdir, readFile, rm } from 'node:fs/promises';
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
  const top = await lstat(base).catch((err: unknown) => {
    if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') return null;
    throw err;
  });
  if (top === null)
    return files.slice(0, check.first ? 1 : undefined).map((f) => ({ path: f.path, problem: 'missing' }));
  if (!top.isDirectory()) return [{ path: '.', problem: 'not-a-folder' }];

  const listed = new Set<string>();
  const folders = new Set<string>();
  for (const file of files) {
    listed.add(file.path);
    for (let i = file.path.indexOf('/'); i !== -1; i = file.path.indexOf('/', i + 1))
      folders.add(file.path.slice(0, i));
  }
  // The listing first (one readdir per folder), so a sync without hashes reads no file at all.
  const walk = async (prefix: string): Promise<void> => {
    let entries: Array<import('node:fs').Dirent>;
    try {
      entries = await readdir(prefix ? join(base, prefix) : base, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (enough()) return;
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory() && folders.has(rel)) await walk(rel);
      else if (!listed.has(rel)) extras.push({ path: rel, problem: 'extra' });
    }
  };
  await walk('');
  if (enough()) return extras;
  for (const file of files) {
    if (enough()) break;
    const path = join(base, file.path);
    const info = await lstat(path).catch(() => null);
    if (info === null) {
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
      const data = await readFile(path).catch(() => null);
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
  async write(file: PackageFile, data: Buffer): Promise<void> {
    const target = join(this.path, file.path);
    const parent = dirname(target);
    if (!this.made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      this.made.add(parent);
    }
    const handle = await open(target, 'wx', MODES[file.mode]);
    try {
      await handle.writeFile(data);
      // The umask may have taken bits away: the manifest's mode is the one asked for.
      await handle.chmod(MODES[file.mode]);
    } finally {
      await handle.close();
    }
  }

  /** Writes every file, folders first, then the files all at once. */
  async writeAll(files: Array<PackageFile & { data: Buffer }>): Promise<void> {
    for (const parent of new Set(files.map((f) => dirname(join(this.path, f.path))))) {
      if (!this.made.has(parent)) {
        mkdirSync(parent, { recursive: true });
        this.made.add(parent);
      }
    }
    await Promise.all(files.map((file) => this.write(file, file.data)));
  }

  async abort(): Promise<void> {
    await rm(this.path, { recursive: true, force: true });
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
    if (movedAside) await rm(old, { recursive: true, force: true });
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
      if (LEFTOVER.test(name) || LOCK_TEMP.test(name)) await rm(join(this.dir, name), { recursive: true, force: true });
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
    await rm(aside, { recursive: true, force: true });
  }
}
