// `verify` (CONTRACT §10): every materialised file re-hashed against the lock, and nothing added.
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import { ClientError, EXIT_FAILED, EXIT_INTEGRITY, EXIT_OK, UsageError } from './errors';
import { LOCK_FILE, readLock } from './lock-file';
import { sha256Hex } from './unpack';

export interface VerifyOptions {
  dir: string;
}

export type VerifyProblemKind = 'pending' | 'missing' | 'not-a-file' | 'size' | 'sha256' | 'mode' | 'extra';

export interface VerifyProblem {
  name: string;
  path?: string;
  problem: VerifyProblemKind;
}

export interface VerifyResult {
  skills: number;
  files: number;
  problems: VerifyProblem[];
  exitCode: typeof EXIT_OK | typeof EXIT_INTEGRITY;
}

/** Every path under `base` that is not a folder, relative to it. */
async function walk(base: string, prefix = ''): Promise<string[]> {
  const found: string[] = [];
  let names: string[];
  try {
    names = await readdir(join(base, prefix));
  } catch {
    return found;
  }
  for (const name of names) {
    const rel = prefix ? `${prefix}/${name}` : name;
    const info = await lstat(join(base, rel));
    if (info.isDirectory()) found.push(...(await walk(base, rel)));
    else found.push(rel);
  }
  return found;
}

export async function verify(options: VerifyOptions): Promise<VerifyResult> {
  if (!options.dir) throw new UsageError('No folder: pass --dir');
  const dir = resolvePath(options.dir);
  const lock = await readLock(dir);
  if (!lock)
    throw new ClientError(EXIT_FAILED, `${join(dir, LOCK_FILE)} does not exist: nothing was synced into ${dir}`);
  const problems: VerifyProblem[] = [];
  let files = 0;
  const names = Object.keys(lock.skills).sort();
  for (const name of names) {
    const skill = lock.skills[name];
    if (skill.pending) problems.push({ name, problem: 'pending' });
    const base = join(dir, name);
    const listed = new Set<string>();
    for (const file of skill.files) {
      files++;
      listed.add(file.path);
      const path = join(base, file.path);
      try {
        const info = await lstat(path);
        if (!info.isFile()) {
          problems.push({ name, path: file.path, problem: 'not-a-file' });
          continue;
        }
        const data = await readFile(path);
        if (data.length !== file.size) problems.push({ name, path: file.path, problem: 'size' });
        else if (sha256Hex(data) !== file.sha256) problems.push({ name, path: file.path, problem: 'sha256' });
        else if (((info.mode & 0o111) !== 0) !== (file.mode === '755')) {
          problems.push({ name, path: file.path, problem: 'mode' });
        }
      } catch {
        problems.push({ name, path: file.path, problem: 'missing' });
      }
    }
    for (const path of await walk(base)) {
      if (!listed.has(path)) problems.push({ name, path, problem: 'extra' });
    }
  }
  return { skills: names.length, files, problems, exitCode: problems.length === 0 ? EXIT_OK : EXIT_INTEGRITY };
}
