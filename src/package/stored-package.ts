// Turning a package stored before packages were canonical into its canonical form: the files of
// its recorded manifest, read back from the old bytes and checked against the manifest's sizes
// and hashes. Used by the migration that rebuilds stored versions.
import { createHash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import type { PackageLimits } from './limits';
import { buildCanonicalZip } from './canonical-zip';
import type { ManifestFile } from './manifest';
import { DEFLATED, ExpansionBudget, listZip, readEntry, STORED } from './zip-reader';

export class StoredPackageError extends Error {}

/** Generous: these bytes were accepted once; only the manifest's own files are read. */
export const RECOVERY_LIMITS: PackageLimits = {
  maxPackageBytes: 1024 ** 3,
  maxEntries: 65_535,
  maxFileBytes: 1024 ** 3,
  maxExpandedBytes: 1024 ** 3,
  maxCompressionRatio: 1_000_000,
  maxPathBytes: 65_535,
};

/** Entry name -> its bytes, by the strict reader, or by the central directory alone when that fails. */
function readAll(bytes: Buffer, wanted: Set<string>): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const listing = listZip(bytes, RECOVERY_LIMITS);
  if (listing.ok) {
    const budget = new ExpansionBudget(bytes.length, RECOVERY_LIMITS);
    for (const entry of listing.entries) {
      if (!wanted.has(entry.name) || entry.directory) continue;
      const read = readEntry(bytes, entry, budget);
      if (read.ok) files.set(entry.name, read.data);
    }
    return files;
  }
  // Archives from before the strict reader may break one of its rules; the files are still where
  // the central directory says, and every one is checked against the manifest afterwards.
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new StoredPackageError('no end-of-central-directory record');
  let at = bytes.readUInt32LE(end + 16);
  for (let i = 0; i < bytes.readUInt16LE(end + 10); i++) {
    if (bytes.readUInt32LE(at) !== 0x02014b50) throw new StoredPackageError('a damaged central directory');
    const method = bytes.readUInt16LE(at + 10);
    const compressed = bytes.readUInt32LE(at + 20);
    const nameLength = bytes.readUInt16LE(at + 28);
    const name = bytes.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const local = bytes.readUInt32LE(at + 42);
    const dataStart = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const raw = bytes.subarray(dataStart, dataStart + compressed);
    if (wanted.has(name) && (method === STORED || method === DEFLATED)) {
      files.set(name, method === STORED ? raw : inflateRawSync(raw));
    }
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return files;
}

/**
 * The canonical zip of a stored version, and its SKILL.md text. Throws StoredPackageError when a
 * file of the manifest cannot be found with its recorded size and hash.
 */
export function rebuildStoredPackage(
  bytes: Buffer,
  skillName: string,
  manifest: ManifestFile[],
): { canonical: Buffer; contentHash: string; skillMd: string } {
  // The skill root of the old archive: SKILL.md at its root, or inside one folder.
  const names = new Set<string>();
  for (const prefix of ['', `${skillName}/`]) for (const file of manifest) names.add(prefix + file.path);
  let files = readAll(bytes, names);
  let prefix = files.has('SKILL.md') ? '' : `${skillName}/`;
  if (!files.has(`${prefix}SKILL.md`)) {
    // A folder whose name differs from the skill's cannot be: the name had to equal the folder.
    files = new Map();
    prefix = '';
  }
  const ordered = manifest.map((file) => {
    const data = files.get(prefix + file.path);
    if (!data || data.length !== file.size || createHash('sha256').update(data).digest('hex') !== file.sha256) {
      throw new StoredPackageError(`the file ${JSON.stringify(file.path)} does not match its manifest entry`);
    }
    return { path: file.path, mode: file.mode, data };
  });
  const canonical = buildCanonicalZip(skillName, ordered);
  return {
    canonical,
    contentHash: `sha256:${createHash('sha256').update(canonical).digest('hex')}`,
    skillMd: files.get(`${prefix}SKILL.md`)!.toString('utf8'),
  };
}
