// The package limits the client unpacks with: the service's defaults (docs/packages.md#limits; a unit test
// holds them equal to what the service's configuration loads), and the host cache's own bounds.
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { ZipLimits } from '../package/zip-reader';

export type ClientPackageLimits = ZipLimits & { maxPackageBytes: number };

const MIB = 1024 * 1024;

export const DEFAULT_PACKAGE_LIMITS: Readonly<ClientPackageLimits> = Object.freeze({
  maxPackageBytes: 10 * MIB,
  maxEntries: 512,
  maxFileBytes: 16 * MIB,
  maxExpandedBytes: 64 * MIB,
  maxCompressionRatio: 200,
  maxPathBytes: 512,
});

/** The service's variables for the same limits: a deployment that raises them sets them in the sandbox too. */
export const LIMIT_VARIABLES: Readonly<Record<keyof ClientPackageLimits, string>> = Object.freeze({
  maxPackageBytes: 'MAX_PACKAGE_BYTES',
  maxEntries: 'MAX_PACKAGE_ENTRIES',
  maxFileBytes: 'MAX_FILE_BYTES',
  maxExpandedBytes: 'MAX_EXPANDED_BYTES',
  maxCompressionRatio: 'MAX_COMPRESSION_RATIO',
  maxPathBytes: 'MAX_PATH_BYTES',
});

/**
 * The most bytes a stored (canonical) package can take: its files stored as they are (deflate is
 * kept only when smaller) plus a local and a central header with the name per entry, and the end
 * record. A download past this is refused before it is read to the end.
 */
export function maxDownloadBytes(limits: ClientPackageLimits): number {
  const perEntry = 30 + 46 + 2 * (limits.maxPathBytes + 65);
  return Math.max(limits.maxPackageBytes, limits.maxExpandedBytes + limits.maxEntries * perEntry + 22);
}

export const DEFAULT_CACHE_MAX_ENTRIES = 32;
export const DEFAULT_CACHE_MAX_BYTES = 256 * MIB;
/** Downloads one sync runs at once (docs/sandbox-client.md#sync). */
export const MAX_PARALLEL_DOWNLOADS = 8;

/**
 * `SKILL_RESOLVER_CACHE_DIR`, else `$XDG_CACHE_HOME/skill-resolver`, else
 * `~/.cache/skill-resolver`; a user without a home gets a folder of their own under the temp dir.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.SKILL_RESOLVER_CACHE_DIR?.trim();
  if (explicit) return resolve(explicit);
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg && isAbsolute(xdg)) return join(xdg, 'skill-resolver');
  const home = homedir();
  if (home) return join(home, '.cache', 'skill-resolver');
  return join(tmpdir(), `skill-resolver-${process.getuid?.() ?? 'user'}`);
}
