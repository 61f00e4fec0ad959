// The keys of stored packages (docs/storage.md#keys): content addresses, so one key holds one set
// of bytes forever and every version with those bytes shares it.
const CONTENT_HASH = /^sha256:([0-9a-f]{64})$/;
const PACKAGE_KEY = /^packages\/sha256\/([0-9a-f]{2})\/([0-9a-f]{64})\.zip$/;

/** Every object the service writes is under this (inside `S3_PREFIX` or `BLOB_DIR`). */
export const PACKAGES_ROOT = 'packages/';

/** `packages/sha256/<2 hex>/<64 hex>.zip` for `sha256:<64 hex>`. */
export function packageKey(contentHash: string): string {
  const hex = CONTENT_HASH.exec(contentHash)?.[1];
  if (!hex) throw new Error('not a sha256 content hash');
  return `${PACKAGES_ROOT}sha256/${hex.slice(0, 2)}/${hex}.zip`;
}

/** The content hash a package key stands for; null for any other key (a temporary file, a stray object). */
export function contentHashOfKey(key: string): string | null {
  const match = PACKAGE_KEY.exec(key);
  return match && match[2].startsWith(match[1]) ? `sha256:${match[2]}` : null;
}
