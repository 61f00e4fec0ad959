// `verify` (docs/sandbox-client.md#commands): every materialised file re-hashed against the lock, and nothing added.
import { join, resolve as resolvePath } from 'node:path';
import { ClientError, EXIT_FAILED, EXIT_INTEGRITY, EXIT_OK, UsageError } from './errors';
import { LOCK_FILE, readLock } from './lock-file';
import { folderProblems, FolderProblemKind } from './skill-dir';

export interface VerifyOptions {
  dir: string;
}

export type VerifyProblemKind = 'pending' | FolderProblemKind;

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

/** The check `sync --verify` makes before it decides, so a sync that exits 0 leaves nothing for verify to find. */
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
    files += skill.files.length;
    for (const found of await folderProblems(join(dir, name), skill.files, { hashes: true })) {
      problems.push({ name, path: found.path, problem: found.problem });
    }
  }
  return { skills: names.length, files, problems, exitCode: problems.length === 0 ? EXIT_OK : EXIT_INTEGRITY };
}
