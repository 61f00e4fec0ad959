// Which skills a git folder holds and the package each one makes (docs/publishing.md#importing-from-git):
// a folder with SKILL.md is one skill; else each child folder with SKILL.md is one. Each package is
// the archive an upload of that folder would be, so the package rules judge it as they judge an
// upload; what no archive can hold (a symbolic link) becomes the problem an archive would give.
import { crc32 } from 'node:zlib';
import { DomainError } from '../common/errors/domain-error';
import { CanonicalEntry, writeCanonicalZip } from '../package/canonical-zip';
import { Problem, problem, shown } from '../package/problem';
import { STORED } from '../package/zip-reader';
import type { GitFile, GitFolder } from './git/git-remote.types';

/** One import takes at most this many skills (GIT_TOO_MANY_SKILLS past it, and none is imported). */
export const MAX_SKILLS_PER_IMPORT = 50;

/** Left out of a package wherever they are, as an upload's are. */
const SKIPPED_FOLDERS = new Set(['.git', '__MACOSX']);
const SKIPPED_FILES = new Set(['.DS_Store', '.git']);

export interface FolderSkill {
  /** Relative to the repository root, no leading or trailing `/`; `''` for the root. */
  path: string;
  /** The folder's own name (the archive's root folder); `''` for the repository root. */
  folderName: string;
  files: GitFile[];
  /** Found before the package is read: symbolic links, too many files. */
  problems: Problem[];
  /** Submodules skipped. */
  warnings: Problem[];
}

/**
 * The skills of `folder`, read at `path`. Throws GIT_LFS_UNSUPPORTED when any of their files is an
 * LFS pointer, GIT_TOO_MANY_SKILLS past the maximum, and SKILL_INVALID (SKILL_MD_MISSING) when the
 * folder holds no skill at all: it exists, but is no package.
 */
export function folderSkills(folder: GitFolder, path: string, maxEntries: number): FolderSkill[] {
  if (folder.lfsPointers.length > 0) {
    const paths = folder.lfsPointers.map((p) => join(path, p)).slice(0, 20);
    throw new DomainError(
      'GIT_LFS_UNSUPPORTED',
      `Git LFS files cannot be imported (their bytes are not in the repository): ${paths.join(', ')}`,
      { paths },
    );
  }
  if (folder.files.some((f) => f.path === 'SKILL.md')) {
    return [skillAt(folder, '', path, maxEntries)];
  }
  const children = [
    ...new Set(folder.files.filter((f) => /^[^/]+\/SKILL\.md$/.test(f.path)).map((f) => f.path.split('/')[0])),
  ].filter((child) => !SKIPPED_FOLDERS.has(child));
  if (children.length > MAX_SKILLS_PER_IMPORT) {
    throw new DomainError(
      'GIT_TOO_MANY_SKILLS',
      `The folder holds ${children.length} skills; one import takes at most ${MAX_SKILLS_PER_IMPORT}. Nothing was imported`,
      { count: children.length, max: MAX_SKILLS_PER_IMPORT },
    );
  }
  if (children.length === 0) {
    throw new DomainError('SKILL_INVALID', 'The folder holds no skill', {
      errors: [
        problem(
          'SKILL_MD_MISSING',
          `${shown(path || '/')} holds no SKILL.md, and none of its folders does: a skill is a folder with SKILL.md.`,
        ),
      ],
      warnings: [],
    });
  }
  return children.sort(byUtf8).map((child) => skillAt(folder, child, path, maxEntries));
}

/** The archive an upload of the skill's folder would be: its files under the folder's name (or at the root), stored. */
export function skillArchive(skill: FolderSkill): Buffer {
  const entries: CanonicalEntry[] = skill.files.map((f) => ({
    path: f.path,
    mode: (f.mode & 0o111) !== 0 ? '755' : '644',
    method: STORED,
    crc32: crc32(f.bytes),
    size: f.bytes.length,
    body: f.bytes,
  }));
  // Stored, not deflated: the package rules rebuild the canonical form off the event loop anyway.
  return writeCanonicalZip(skill.folderName ? `${skill.folderName}/` : '', entries);
}

function skillAt(folder: GitFolder, child: string, path: string, maxEntries: number): FolderSkill {
  const prefix = child ? `${child}/` : '';
  const under = (p: string) => p.startsWith(prefix);
  const files = folder.files
    .filter((f) => under(f.path))
    .map((f) => ({ ...f, path: f.path.slice(prefix.length) }))
    .filter((f) => !skipped(f.path))
    .sort((a, b) => byUtf8(a.path, b.path));
  const problems = folder.symlinks
    .filter(under)
    .map((p) => p.slice(prefix.length))
    .filter((p) => !skipped(p))
    .map((p) => problem('ZIP_SYMLINK', `${shown(p)} is a symbolic link; a package holds regular files only.`, p));
  const warnings = folder.submodules
    .filter(under)
    .map((p) => p.slice(prefix.length))
    .map((p) => problem('SUBMODULE_SKIPPED', `${shown(p)} is a git submodule: its files are not imported.`, p));
  if (files.length > maxEntries) {
    problems.push(
      problem(
        'ZIP_TOO_MANY_ENTRIES',
        `The folder holds ${files.length} files; a package may hold at most ${maxEntries}.`,
      ),
    );
  }
  const skillPath = join(path, child);
  return {
    path: skillPath,
    folderName: skillPath.split('/').pop() ?? '',
    files: files.length > maxEntries ? [] : files,
    problems,
    warnings,
  };
}

function skipped(path: string): boolean {
  const parts = path.split('/');
  return parts.slice(0, -1).some((p) => SKIPPED_FOLDERS.has(p)) || SKIPPED_FILES.has(parts[parts.length - 1]);
}

function join(a: string, b: string): string {
  return a && b ? `${a}/${b}` : a || b;
}

function byUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
