// Unpacks a downloaded package with the service's own reader, limits and path rules (docs/packages.md#limits):
// whatever bytes arrive, only safe relative paths under the one skill root come out, in memory.
import { createHash } from 'node:crypto';
import { findSkillRoot } from '../package/skill-root';
import { ExpansionBudget, listZip, readEntry } from '../package/zip-reader';
import { IntegrityError } from './errors';
import { ClientPackageLimits } from './limits';

export interface PackageFile {
  /** Relative to the skill root, checked by the package path rules. */
  path: string;
  size: number;
  /** Bare hex. */
  sha256: string;
  mode: '755' | '644';
}

export interface UnpackedFile extends PackageFile {
  data: Buffer;
}

export function sha256Hex(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * The files of `zip`, sorted by UTF-8 bytes of their paths; throws IntegrityError naming the first
 * problems when the archive breaks any rule the service checks at publish, or when its skill folder
 * is not `name`.
 */
export function unpackPackage(zip: Buffer, name: string, limits: ClientPackageLimits): UnpackedFile[] {
  const refuse = (what: string): never => {
    throw new IntegrityError(`The package of ${name} is refused: ${what}`);
  };
  const listing = listZip(zip, limits);
  const { root, problems } = listing.ok ? findSkillRoot(listing.entries) : { root: null, problems: [] };
  const all = [...listing.problems, ...problems];
  if (all.length > 0)
    refuse(
      all
        .slice(0, 3)
        .map((p) => `${p.code} ${p.message}`)
        .join('; '),
    );
  if (!root) return refuse('it has no skill root');
  if (root.folder !== null && root.folder !== name) refuse(`its skill folder is "${root.folder}", not "${name}"`);

  const budget = new ExpansionBudget(zip.length, limits);
  const files: UnpackedFile[] = [];
  for (const entry of listing.entries) {
    if (entry.directory || entry.ignored) continue;
    // listZip reported every entry that may not be read, so none is left here; kept as a guard.
    if (!entry.readable) refuse(`the entry ${JSON.stringify(entry.name)} cannot be read`);
    const read = readEntry(zip, entry, budget);
    if (!read.ok) return refuse(`${read.problem.code} ${read.problem.message}`);
    const path = entry.path.slice(root.prefix.length);
    files.push({ path, size: read.data.length, sha256: sha256Hex(read.data), mode: entry.mode, data: read.data });
  }
  return sortByPath(files);
}

/** By the UTF-8 bytes of the path: the manifest's order (docs/packages.md#content-hash-and-revision). */
export function sortByPath<T extends { path: string }>(files: T[]): T[] {
  return files
    .map((file) => ({ file, key: Buffer.from(file.path, 'utf8') }))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map(({ file }) => file);
}
