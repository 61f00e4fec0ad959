// `DIR/.skill-resolver.lock.json`: what the last sync put in DIR (docs/sandbox-client.md#lock-file). Written whole
// and renamed into place, so it is never half written; a name marked `pending` is being replaced
// or removed, and is never trusted by the next sync.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unsafeReason } from '../package/zip-reader';
import { ClientError, EXIT_FAILED, errnoCode } from './errors';
import { randomSuffix } from './file-lock';
import { PackageFile } from './unpack';

export const LOCK_FILE = '.skill-resolver.lock.json';
const TEMP_PREFIX = `${LOCK_FILE}.tmp-`;
export const LOCK_TEMP = new RegExp(`^${TEMP_PREFIX.replace(/\./g, '\\.')}[0-9a-f]{12}$`);

/** The Agent Skills name rule: the only folder names the client creates or removes in DIR. */
export const SKILL_NAME = /^(?=.{1,64}$)[a-z0-9]+(-[a-z0-9]+)*$/;
export const CONTENT_HASH = /^sha256:[0-9a-f]{64}$/;

export interface Unresolved {
  name: string;
  source?: string;
  reason?: string;
}

export interface LockedSkill {
  skill_id: number;
  version: number;
  content_hash: string;
  files: PackageFile[];
  /** The version's lifecycle status when it was last resolved, for the warnings of a sync that gets a 304. */
  status?: string;
  /** Its folder is being replaced or removed: the next sync does it again. */
  pending?: true;
}

export interface LockFile {
  url: string;
  task_id: number;
  /** Whether `--preload-only` chose the set: a 304 is only trusted for the same choice. */
  preload_only: boolean;
  /** Null while a sync is under way, or when one left a skill behind. */
  fingerprint: string | null;
  skills: Record<string, LockedSkill>;
  unresolved: Unresolved[];
}

function damaged(dir: string, why: string): ClientError {
  return new ClientError(
    EXIT_FAILED,
    `${join(dir, LOCK_FILE)} is damaged (${why}); remove it and the skill folders it listed, then sync again`,
  );
}

const isInt = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

function checkFiles(files: unknown): files is PackageFile[] {
  return (
    Array.isArray(files) &&
    files.every(
      (f: Partial<PackageFile> | null) =>
        typeof f?.path === 'string' &&
        unsafeReason(f.path, { maxPathBytes: 4096 }) === null &&
        Number.isSafeInteger(f.size) &&
        typeof f.sha256 === 'string' &&
        /^[0-9a-f]{64}$/.test(f.sha256) &&
        (f.mode === '644' || f.mode === '755'),
    )
  );
}

/** The lock of DIR, or null when there is none; names are checked, so removal never leaves DIR. */
export async function readLock(dir: string): Promise<LockFile | null> {
  let text: string;
  try {
    text = readFileSync(join(dir, LOCK_FILE), 'utf8');
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return null;
    throw err;
  }
  let lock: Partial<LockFile>;
  try {
    lock = JSON.parse(text) as Partial<LockFile>;
  } catch {
    throw damaged(dir, 'not JSON');
  }
  if (typeof lock !== 'object' || lock === null) throw damaged(dir, 'not an object');
  if (typeof lock.url !== 'string' || !isInt(lock.task_id)) throw damaged(dir, 'no url or task_id');
  if (lock.fingerprint !== null && (typeof lock.fingerprint !== 'string' || !CONTENT_HASH.test(lock.fingerprint))) {
    throw damaged(dir, 'a bad fingerprint');
  }
  if (typeof lock.skills !== 'object' || lock.skills === null || Array.isArray(lock.skills)) {
    throw damaged(dir, 'no skills');
  }
  for (const [name, skill] of Object.entries(lock.skills)) {
    if (!SKILL_NAME.test(name)) throw damaged(dir, `the name ${JSON.stringify(name.slice(0, 80))}`);
    const ok =
      isInt(skill?.skill_id) &&
      isInt(skill.version) &&
      typeof skill.content_hash === 'string' &&
      CONTENT_HASH.test(skill.content_hash) &&
      checkFiles(skill.files) &&
      (skill.status === undefined || (typeof skill.status === 'string' && /^[a-z]{1,16}$/.test(skill.status))) &&
      (skill.pending === undefined || skill.pending === true);
    if (!ok) throw damaged(dir, `the entry of ${name}`);
  }
  const unresolved = Array.isArray(lock.unresolved) ? lock.unresolved : [];
  return {
    url: lock.url,
    task_id: lock.task_id,
    preload_only: lock.preload_only === true,
    fingerprint: lock.fingerprint ?? null,
    skills: lock.skills,
    unresolved,
  };
}

/** Writes the lock whole, then renames it over the previous one. */
export async function writeLock(dir: string, lock: LockFile): Promise<void> {
  const temp = join(dir, `${TEMP_PREFIX}${randomSuffix()}`);
  const ordered: LockFile = {
    url: lock.url,
    task_id: lock.task_id,
    preload_only: lock.preload_only,
    fingerprint: lock.fingerprint,
    skills: Object.fromEntries(Object.entries(lock.skills).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    unresolved: lock.unresolved,
  };
  try {
    writeFileSync(temp, `${JSON.stringify(ordered, null, 2)}\n`, { flag: 'wx', mode: 0o644 });
    renameSync(temp, join(dir, LOCK_FILE));
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
