// The manifest of a skill version and its revision: the identity of the files, not of the zip around them.
import { canonicalDigest } from './canonical-json';

export interface ManifestFile {
  path: string;
  size: number;
  /** Bare hex. */
  sha256: string;
  mode: '755' | '644';
}

/** Sorted by UTF-8 bytes (not UTF-16 units), the order docs/packages.md#content-hash-and-revision fixes for the revision. */
export function sortManifest(files: ManifestFile[]): ManifestFile[] {
  return files
    .map((file) => ({ file, key: Buffer.from(file.path, 'utf8') }))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map(({ file }) => file);
}

/** Fields are copied one by one so nothing else a caller attached can change the digest. */
export function manifestRevision(sorted: ManifestFile[]): string {
  return canonicalDigest(sorted.map(({ path, size, sha256, mode }) => ({ path, size, sha256, mode })));
}
