// The sandbox client as a library (docs/sandbox-client.md#commands): the same `sync` and `verify` as the command.
// Node's standard library and the package reader only: importing it loads no Nest, TypeORM or pg.
export { sync } from './sync';
export type { From, ProgressEvent, SyncedSkill, SyncFailure, SyncOptions, SyncResult } from './sync';
export { verify } from './verify';
export type { VerifyOptions, VerifyProblem, VerifyProblemKind, VerifyResult } from './verify';
export {
  ClientError,
  EXIT_FAILED,
  EXIT_INTEGRITY,
  EXIT_OK,
  EXIT_UNRESOLVED,
  EXIT_USAGE,
  IntegrityError,
  UsageError,
} from './errors';
export type { ExitCode } from './errors';
export { DEFAULT_SLOW_DOWNLOAD, DEFAULT_TIMEOUT_MS } from './deadline';
export type { SlowDownloadRule } from './deadline';
export { DEFAULT_CACHE_MAX_BYTES, DEFAULT_CACHE_MAX_ENTRIES, DEFAULT_PACKAGE_LIMITS, defaultCacheDir } from './limits';
export type { ClientPackageLimits } from './limits';
export { LOCK_FILE } from './lock-file';
export type { LockedSkill, LockFile, Unresolved } from './lock-file';
export { main } from './cli';
