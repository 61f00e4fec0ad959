// The archive the well-known index serves for a version (docs/well-known.md#archives): the version's
// files with SKILL.md at the archive root, written by the canonical writer from the stored package's
// own entries. The compressed bodies are copied, never deflated again, so the bytes follow from the
// stored package alone: every replica and every rebuild gives the same archive, whatever zlib it runs.
import { createHash } from 'node:crypto';
import { CanonicalEntry, writeCanonicalZip } from './canonical-zip';
import type { ManifestFile } from './manifest';
import { RECOVERY_LIMITS, StoredPackageError } from './stored-package';
import { DEFLATED, listZip, STORED } from './zip-reader';

/**
 * `stored` is a version's canonical package, `contentHash` its recorded `sha256:<hex>`, `manifest`
 * its recorded files in manifest order. Throws StoredPackageError when the bytes are not that
 * package: a hash that differs, or entries that are not the manifest's, in its order.
 */
export function rootArchive(stored: Buffer, contentHash: string, skillName: string, manifest: ManifestFile[]): Buffer {
  // The hash covers every body and its CRC-32, so the copied bodies are the ones written at publish.
  if (`sha256:${createHash('sha256').update(stored).digest('hex')}` !== contentHash) {
    throw new StoredPackageError(`the stored bytes do not hash to ${contentHash}`);
  }
  const listing = listZip(stored, RECOVERY_LIMITS);
  if (!listing.ok) throw new StoredPackageError(`the stored package cannot be listed: ${listing.problems[0]?.message}`);
  if (listing.entries.length !== manifest.length) {
    throw new StoredPackageError(
      `the stored package holds ${listing.entries.length} entries, its manifest ${manifest.length}`,
    );
  }
  const entries = manifest.map((file, i): CanonicalEntry => {
    const entry = listing.entries[i];
    const method = entry.method;
    if (
      entry.name !== `${skillName}/${file.path}` ||
      entry.directory ||
      entry.declaredSize !== file.size ||
      entry.mode !== file.mode ||
      (method !== STORED && method !== DEFLATED)
    ) {
      throw new StoredPackageError(`entry ${i + 1} of the stored package is not ${JSON.stringify(file.path)}`);
    }
    const body = stored.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
    return { path: file.path, mode: file.mode, method, crc32: entry.crc32, size: file.size, body };
  });
  return writeCanonicalZip('', entries);
}
