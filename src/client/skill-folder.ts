// A skill folder on disk read as a package would carry it (docs/sandbox-client.md#publish): every
// regular file under the folder but `.git`, `.DS_Store` and `__MACOSX`, with its mode, in manifest
// order. What no zip entry can hold (a symbolic link, a device, a name that is not UTF-8) or what
// the limits refuse before reading (too many files, a file or a whole too large) is a problem with
// the service's own code; everything else is left to the package rules, which read the archive
// written from these files exactly as the service reads an upload.
import { isUtf8 } from 'node:buffer';
import { lstatSync, readdirSync, readFileSync, Stats } from 'node:fs';
import { join } from 'node:path';
import { CanonicalFile } from '../package/canonical-zip';
import { Problem, problem, shown } from '../package/problem';
import type { ZipLimits } from '../package/zip-reader';

/** Left out of a package wherever they are, as the service leaves them out of an upload. */
const SKIPPED_FOLDERS = new Set(['.git', '__MACOSX']);
const SKIPPED_FILES = new Set(['.DS_Store', '.git']);

export interface SkillFolder {
  /** The files read, sorted by the UTF-8 bytes of their paths (manifest order). */
  files: CanonicalFile[];
  /** What the folder holds that no package may: each with the code the service gives it. */
  problems: Problem[];
}

function byUtf8(a: CanonicalFile, b: CanonicalFile): number {
  return Buffer.compare(Buffer.from(a.path, 'utf8'), Buffer.from(b.path, 'utf8'));
}

/**
 * Reads `dir`. Stops counting at one entry past the limit and never reads a file past its limit, so
 * a folder of any size costs at most the limits' worth of work.
 */
export function readSkillFolder(dir: string, limits: ZipLimits): SkillFolder {
  const files: CanonicalFile[] = [];
  const problems: Problem[] = [];
  let entries = 0;
  let expanded = 0;
  let stopped = false;

  const visit = (folder: string, prefix: string): void => {
    let names: Buffer[];
    try {
      names = readdirSync(folder, { encoding: 'buffer' });
    } catch (err) {
      problems.push(
        problem('ZIP_INVALID', `The folder ${shown(prefix || '.')} cannot be read: ${(err as Error).message}`),
      );
      return;
    }
    names.sort((a, b) => Buffer.compare(a, b));
    for (const raw of names) {
      if (stopped) return;
      if (!isUtf8(raw)) {
        problems.push(problem('ZIP_UNSAFE_PATH', `A name in ${shown(prefix || '.')} is not valid UTF-8.`));
        continue;
      }
      const name = raw.toString('utf8');
      const path = `${prefix}${name}`;
      const full = join(folder, name);
      let stat: Stats;
      try {
        stat = lstatSync(full);
      } catch (err) {
        problems.push(problem('ZIP_INVALID', `${shown(path)} cannot be read: ${(err as Error).message}`, path));
        continue;
      }
      if (stat.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(name)) visit(full, `${path}/`);
        continue;
      }
      if (SKIPPED_FILES.has(name)) continue;
      if (++entries > limits.maxEntries) {
        problems.push(
          problem(
            'ZIP_TOO_MANY_ENTRIES',
            `The folder holds more than ${limits.maxEntries} files; a package may hold at most that many.`,
          ),
        );
        stopped = true;
        return;
      }
      if (stat.isSymbolicLink()) {
        problems.push(
          problem('ZIP_SYMLINK', `${shown(path)} is a symbolic link; a package holds regular files only.`, path),
        );
        continue;
      }
      if (!stat.isFile()) {
        problems.push(problem('ZIP_UNSAFE_PATH', `${shown(path)} is not a regular file.`, path));
        continue;
      }
      if (stat.size > limits.maxFileBytes) {
        problems.push(
          problem(
            'ZIP_ENTRY_TOO_LARGE',
            `${shown(path)} is ${stat.size} bytes, more than the ${limits.maxFileBytes} a file may be.`,
            path,
          ),
        );
        continue;
      }
      expanded += stat.size;
      if (expanded > limits.maxExpandedBytes) {
        problems.push(
          problem(
            'ZIP_TOO_LARGE_EXPANDED',
            `The files add up to more than the ${limits.maxExpandedBytes} bytes a package may expand to.`,
          ),
        );
        stopped = true;
        return;
      }
      files.push({ path, mode: (stat.mode & 0o111) !== 0 ? '755' : '644', data: readFileSync(full) });
    }
  };

  visit(dir, '');
  return { files: files.sort(byUtf8), problems };
}
