// The skill folders of DIR: `DIR/<name>/` is built beside it as `.partial-<name>-<rand>/` and
// swapped in with two renames, so a reader sees the old copy or the new one, never a mix. Only
// folders the lock lists are replaced or removed; nothing else in DIR is touched. Folders and
// renames are synchronous calls (microseconds), file contents asynchronous.
import { lstatSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ClientError, EXIT_FAILED, errnoCode } from './errors';
import { randomSuffix } from './file-lock';
import { LOCK_TEMP } from './lock-file';
import { PackageFile } from './unpack';

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

  /** Empties the stage (after a cache entry failed its check half way). */
  async reset(): Promise<void> {
    await rm(this.path, { recursive: true, force: true });
    mkdirSync(this.path);
    this.made.clear();
    this.made.add(this.path);
  }

  async abort(): Promise<void> {
    await rm(this.path, { recursive: true, force: true });
  }

  /** Puts the stage in place of `DIR/<name>`: the previous copy is renamed aside, then removed. */
  async commit(): Promise<void> {
    const target = join(this.dir, this.name);
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

  /** Every file present as a regular file of its recorded size (the check of a warm sync). */
  async present(name: string, files: PackageFile[]): Promise<boolean> {
    const base = join(this.dir, name);
    return files.every((file) => {
      const info = lstatSync(join(base, file.path), { throwIfNoEntry: false });
      return info !== undefined && info.isFile() && info.size === file.size;
    });
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
