// Where each file of a stored (canonical) package lies inside it (docs/storage.md#single-files):
// recorded with the version, so one file is read with one ranged request for exactly its
// compressed bytes, without reading the archive's directory first.
import type { ManifestFile } from './manifest';
import { DEFLATED, listZip, STORED, type ZipLimits } from './zip-reader';

/** `[offset of the data, compressed bytes]`; the entry is stored (not deflated) when they equal the file's size. */
export type FileOffset = [offset: number, compressedSize: number];

/** Only the manifest's own files are looked up; the archive was accepted once, under the limits of its day. */
const STORED_PACKAGE_LIMITS: ZipLimits = {
  maxEntries: 65_535,
  maxFileBytes: 1024 ** 3,
  maxExpandedBytes: 1024 ** 3,
  maxCompressionRatio: 1_000_000,
  maxPathBytes: 65_535,
};

/**
 * The offsets of `manifest`'s files (in its order) in `zip`, whose entries are `<skillName>/<path>`.
 * Null when the archive cannot be read strictly, misses a file, or holds one whose method its
 * compressed size would not tell (the canonical writer stores a file only when deflating does not
 * make it smaller, so a stored entry's two sizes are equal and a deflated one's differ).
 */
export function fileOffsets(zip: Buffer, skillName: string, manifest: ManifestFile[]): FileOffset[] | null {
  const listing = listZip(zip, STORED_PACKAGE_LIMITS);
  if (!listing.ok) return null;
  const byName = new Map(listing.entries.map((entry) => [entry.name, entry]));
  const offsets: FileOffset[] = [];
  for (const file of manifest) {
    const entry = byName.get(`${skillName}/${file.path}`);
    if (!entry || entry.declaredSize !== file.size) return null;
    const stored = entry.compressedSize === file.size;
    if (entry.method !== (stored ? STORED : DEFLATED)) return null;
    offsets.push([entry.dataStart, entry.compressedSize]);
  }
  return offsets;
}
