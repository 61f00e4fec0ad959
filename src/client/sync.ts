// `sync` (CONTRACT §10): the task's exact skills into DIR, verified, through the host cache, with
// one request and no download when nothing changed since the last sync.
import { createHash } from 'node:crypto';
import { resolve as resolvePath } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ClientError,
  EXIT_FAILED,
  EXIT_INTEGRITY,
  EXIT_OK,
  EXIT_UNRESOLVED,
  ExitCode,
  errorMessage,
  IntegrityError,
  UsageError,
} from './errors';
import { Holdings } from './file-lock';
import {
  ClientPackageLimits,
  DEFAULT_CACHE_MAX_BYTES,
  DEFAULT_CACHE_MAX_ENTRIES,
  DEFAULT_PACKAGE_LIMITS,
  defaultCacheDir,
  MAX_PARALLEL_DOWNLOADS,
  maxDownloadBytes,
} from './limits';
import { LockedSkill, readLock, Unresolved, writeLock } from './lock-file';
import { cacheScope, hexOf, PackageCache } from './package-cache';
import { HttpAnswer, serviceError, ServiceClient } from './service-client';
import { SkillDir, Stage } from './skill-dir';
import { parseTaskSkills, Ref, TaskSkills } from './task-skills';
import { PackageFile, unpackPackage, UnpackedFile } from './unpack';

export interface SyncOptions {
  /** The service root, e.g. `https://skills.example.com`. */
  url: string;
  /** A task token or an API key. */
  token: string;
  taskId: number;
  dir: string;
  /** Only `preload_skill_refs`. */
  preloadOnly?: boolean;
  /** Default: defaultCacheDir(); `false` skips the host cache. */
  cacheDir?: string | false;
  /** Unresolved names make the exit code 3. */
  strict?: boolean;
  cacheMaxEntries?: number;
  cacheMaxBytes?: number;
  limits?: ClientPackageLimits;
  onProgress?: (event: ProgressEvent) => void;
}

export type From = 'cache' | 'download';

interface Obtained {
  from: From;
  files: PackageFile[];
  /** The package's bytes, when it was downloaded. */
  bytes: number;
}

export type ProgressEvent =
  | { kind: 'resolved'; total: number; toFetch: number; notModified: boolean }
  /** `bytes`: what this skill's package took to download (0 from the cache). */
  | { kind: 'skill'; name: string; version: number; from: From; done: number; total: number; bytes: number }
  | { kind: 'failed'; name: string; message: string }
  | { kind: 'warning'; message: string };

export interface SyncedSkill {
  name: string;
  version: number;
  content_hash: string;
  from: From;
}

export interface SyncFailure {
  name: string;
  exit_code: ExitCode;
  message: string;
}

export interface SyncResult {
  fingerprint: string | null;
  skills: SyncedSkill[];
  unresolved: Unresolved[];
  requests: number;
  bytes_downloaded: number;
  /** Skills left as they were (their previous copy, if any, still in DIR). */
  failed: SyncFailure[];
  exitCode: ExitCode;
}

/** How long a sync waits between looks at a package another process is fetching. */
const WAIT_MS = 50;
const MAX_TASK_SKILLS_BYTES = 32 * 1024 * 1024;

class Limiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly max: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((go) => this.waiting.push(go));
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}

function checkOptions(options: SyncOptions): void {
  if (!options.url) throw new UsageError('No service URL: set SKILL_RESOLVER_URL or pass --url');
  if (!options.token) throw new UsageError('No credentials: set SKILL_RESOLVER_TOKEN or pass --token');
  if (!Number.isSafeInteger(options.taskId) || options.taskId <= 0 || options.taskId > 2 ** 31 - 1) {
    throw new UsageError('The task id must be a positive integer');
  }
  if (!options.dir) throw new UsageError('No target folder: pass --dir');
  for (const [flag, value] of [
    ['--cache-max-entries', options.cacheMaxEntries],
    ['--cache-max-bytes', options.cacheMaxBytes],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
      throw new UsageError(`${flag} must be a whole number, 0 or more`);
    }
  }
}

function httpFailure(answer: HttpAnswer, what: string, taskId: number): ClientError {
  const detail = serviceError(answer);
  switch (answer.status) {
    case 401:
      return new ClientError(
        EXIT_FAILED,
        `The service refused the credentials (401${detail}): the token is wrong, expired or revoked; check SKILL_RESOLVER_TOKEN`,
      );
    case 404:
      return new ClientError(
        EXIT_FAILED,
        `${what} was not found (404${detail}): task ${taskId} does not exist or these credentials may not read it`,
      );
    default:
      return new ClientError(EXIT_FAILED, `${what}: the service answered ${answer.status}${detail}`);
  }
}

/** Everything one run needs, so the steps below read as the contract's steps. */
class SyncRun {
  readonly client: ServiceClient;
  readonly holdings = new Holdings();
  readonly dir: SkillDir;
  readonly limits: ClientPackageLimits;
  readonly downloads = new Limiter(MAX_PARALLEL_DOWNLOADS);
  cache: PackageCache | null = null;
  done = 0;
  total = 0;

  constructor(readonly options: SyncOptions) {
    this.client = new ServiceClient(options.url, options.token, MAX_PARALLEL_DOWNLOADS + 1);
    this.dir = new SkillDir(resolvePath(options.dir));
    this.limits = options.limits ?? DEFAULT_PACKAGE_LIMITS;
  }

  progress(event: ProgressEvent): void {
    this.options.onProgress?.(event);
  }

  async taskSkills(fingerprint: string | null): Promise<HttpAnswer> {
    const answer = await this.client.get(`/tasks/${this.options.taskId}/skills`, {
      headers: fingerprint ? { 'if-none-match': `"${fingerprint}"` } : {},
      maxBytes: MAX_TASK_SKILLS_BYTES,
      tooLarge: () => new ClientError(EXIT_FAILED, "The service's answer for the task's skills is too large"),
    });
    if (answer.status !== 200 && answer.status !== 304)
      throw httpFailure(answer, `Task ${this.options.taskId}`, this.options.taskId);
    return answer;
  }

  /** The package bytes, checked against the ref's content hash, then unpacked by the package rules. */
  async download(ref: Ref): Promise<{ files: UnpackedFile[]; bytes: number }> {
    const zip = await this.downloads.run(async () => {
      const hash = createHash('sha256');
      const answer = await this.client.get(`/skills/${ref.skill_id}/download?version=${ref.version}`, {
        maxBytes: maxDownloadBytes(this.limits),
        tooLarge: () => new IntegrityError(`The package of ${ref.name} is larger than any package the service stores`),
        onChunk: (chunk) => {
          hash.update(chunk);
          this.client.bytesDownloaded += chunk.length;
        },
      });
      if (answer.status !== 200) {
        throw httpFailure(
          answer,
          `The package of ${ref.name} (skill ${ref.skill_id} v${ref.version})`,
          this.options.taskId,
        );
      }
      const got = `sha256:${hash.digest('hex')}`;
      if (got !== ref.content_hash) {
        throw new IntegrityError(
          `The package of ${ref.name} v${ref.version} does not match its content hash: expected ${ref.content_hash}, received ${got}`,
        );
      }
      return answer.body;
    });
    return { files: unpackPackage(zip, ref.name, this.limits), bytes: zip.length };
  }

  /** Fills `stage` with the files of `ref`, from the cache when it holds a sound copy. */
  async obtain(ref: Ref, stage: Stage): Promise<Obtained> {
    const cache = this.cache;
    const fromDownload = async (): Promise<Obtained> => {
      const { files, bytes } = await this.download(ref);
      // The cache entry and the copy in DIR are written at once: neither waits for the other.
      const publish = cache
        ? cache.publish(hexOf(ref.content_hash), ref.content_hash, ref.name, files).catch((err: unknown) => {
            this.progress({ kind: 'warning', message: `The cache could not keep ${ref.name}: ${errorMessage(err)}` });
          })
        : undefined;
      await Promise.all([publish, stage.writeAll(files)]);
      return { from: 'download', files, bytes };
    };
    if (!cache) return fromDownload();

    const hex = hexOf(ref.content_hash);
    let discarded = false;
    let leased = false;
    for (;;) {
      const manifest = await cache.manifest(hex, ref.content_hash, ref.name);
      if (typeof manifest === 'object') {
        // Read under a lease, so no eviction takes the entry away meanwhile (one that already
        // had it reads as missing, and the loop starts over).
        if (!leased) await cache.lease(hex);
        leased = true;
        const check = await cache.readVerified(hex, manifest, (file, data) => stage.write(file, data));
        if (check === 'ok') {
          await cache.touch(hex);
          return { from: 'cache', files: manifest.files, bytes: 0 };
        }
        await stage.reset();
        if (check === 'missing') continue;
      }
      if (manifest !== 'missing') {
        // A damaged entry goes, and is fetched again, once.
        if (discarded)
          throw new IntegrityError(`The cached copy of ${ref.name} failed its check again after a fresh fetch`);
        this.progress({
          kind: 'warning',
          message: `The cached copy of ${ref.name} (${ref.content_hash}) failed its check; fetching it again`,
        });
        await cache.discard(hex);
        discarded = true;
        continue;
      }
      if (await cache.lockDownload(hex)) {
        try {
          // Published by another sync while this one waited for the lock.
          if ((await cache.manifest(hex, ref.content_hash, ref.name)) !== 'missing') continue;
          return await fromDownload();
        } finally {
          await cache.unlockDownload(hex);
        }
      }
      // Another sync is fetching this package: its entry appears, or its lock goes (or goes stale).
      await sleep(WAIT_MS);
    }
  }

  /** One skill into DIR; a failure leaves its previous copy (and lock entry) as they were. */
  async materialise(ref: Ref, managed: boolean): Promise<{ from: From; entry: LockedSkill; bytes: number }> {
    if (!managed && (await this.dir.occupied(ref.name))) {
      throw new ClientError(
        EXIT_FAILED,
        `${this.dir.dir}/${ref.name} exists but the lock does not list it; move it away or sync into another folder`,
      );
    }
    const stage = await this.dir.stage(ref.name);
    try {
      const { from, files, bytes } = await this.obtain(ref, stage);
      await stage.commit();
      const entry: LockedSkill = {
        skill_id: ref.skill_id,
        version: ref.version,
        content_hash: ref.content_hash,
        files: files.map(({ path, size, sha256, mode }) => ({ path, size, sha256, mode })),
      };
      return { from, entry, bytes };
    } catch (err) {
      await stage.abort();
      throw err;
    }
  }

  close(): void {
    this.client.close();
  }
}

function exitCodeOf(failed: SyncFailure[], unresolved: Unresolved[], strict: boolean): ExitCode {
  if (failed.some((f) => f.exit_code === EXIT_INTEGRITY)) return EXIT_INTEGRITY;
  if (failed.length > 0) return EXIT_FAILED;
  if (strict && unresolved.length > 0) return EXIT_UNRESOLVED;
  return EXIT_OK;
}

/** Syncs the task's skills into `options.dir`; throws ClientError for what ends the whole run. */
export async function sync(options: SyncOptions): Promise<SyncResult> {
  checkOptions(options);
  const run = new SyncRun(options);
  try {
    await run.dir.prepare();
    const dirLock = `${run.dir.dir}/.skill-resolver.sync.lock`;
    while (!(await run.holdings.acquire(dirLock))) await sleep(WAIT_MS);
    return await syncLocked(run);
  } finally {
    await run.holdings.releaseAll();
    run.close();
  }
}

async function syncLocked(run: SyncRun): Promise<SyncResult> {
  const { options, dir, client } = run;
  const preloadOnly = options.preloadOnly === true;
  const strict = options.strict === true;
  await dir.cleanLeftovers();
  const lock = await readLock(dir.dir);
  const url = client.root.url;
  const matches =
    lock !== null && lock.url === url && lock.task_id === options.taskId && lock.preload_only === preloadOnly;

  // 1. The task's refs, conditional on what DIR already holds.
  let answer = await run.taskSkills(matches ? lock.fingerprint : null);
  if (answer.status === 304 && lock) {
    const intact = await Promise.all(
      Object.entries(lock.skills).map(
        async ([name, skill]) => !skill.pending && (await dir.present(name, skill.files)),
      ),
    );
    if (intact.every(Boolean)) {
      const skills = Object.entries(lock.skills).map(([name, s]) => ({
        name,
        version: s.version,
        content_hash: s.content_hash,
        from: 'cache' as const,
      }));
      run.progress({ kind: 'resolved', total: skills.length, toFetch: 0, notModified: true });
      return {
        fingerprint: lock.fingerprint,
        skills,
        unresolved: lock.unresolved,
        requests: client.requests,
        bytes_downloaded: client.bytesDownloaded,
        failed: [],
        exitCode: exitCodeOf([], lock.unresolved, strict),
      };
    }
    answer = await run.taskSkills(null);
  }
  if (answer.status !== 200)
    throw new ClientError(EXIT_FAILED, `Task ${options.taskId}: the service answered ${answer.status}`);
  const resolved: TaskSkills = parseTaskSkills(answer.body, preloadOnly);

  // 2-3. Which folders stay, which are (re)built, which go.
  const previous = lock?.skills ?? {};
  const wanted = new Set(resolved.refs.map((r) => r.name));
  const keep = new Map<string, LockedSkill>();
  const change: Ref[] = [];
  for (const ref of resolved.refs) {
    const had = Object.hasOwn(previous, ref.name) ? previous[ref.name] : undefined;
    const same = had && !had.pending && had.content_hash === ref.content_hash;
    if (same && (await dir.present(ref.name, had.files))) keep.set(ref.name, had);
    else change.push(ref);
  }
  const leaving = Object.keys(previous).filter((name) => !wanted.has(name));
  run.total = resolved.refs.length;
  run.progress({ kind: 'resolved', total: run.total, toFetch: change.length, notModified: false });

  const entries: Record<string, LockedSkill> = {};
  for (const [name, entry] of keep) entries[name] = entry;
  const baseLock = { url, task_id: options.taskId, preload_only: preloadOnly, unresolved: resolved.unresolved };
  if (change.length > 0 || leaving.length > 0) {
    // Before any folder changes: a sync killed from here on leaves these names marked, and the next one redoes them.
    const marked: Record<string, LockedSkill> = { ...entries };
    for (const ref of change) {
      const { skill_id, version, content_hash } = ref;
      marked[ref.name] = { skill_id, version, content_hash, files: previous[ref.name]?.files ?? [], pending: true };
    }
    for (const name of leaving) marked[name] = { ...previous[name], pending: true };
    await writeLock(dir.dir, { ...baseLock, fingerprint: null, skills: marked });
  }

  const skills: SyncedSkill[] = [];
  for (const ref of resolved.refs) {
    if (keep.has(ref.name)) {
      run.done++;
      skills.push({ name: ref.name, version: ref.version, content_hash: ref.content_hash, from: 'cache' });
    }
  }
  const failed: SyncFailure[] = [];
  const fail = (name: string, err: unknown): void => {
    const failure = err instanceof ClientError ? err : new ClientError(EXIT_FAILED, `${name}: ${errorMessage(err)}`);
    failed.push({ name, exit_code: failure.exitCode, message: failure.message });
    run.progress({ kind: 'failed', name, message: failure.message });
  };
  if (change.length > 0 && options.cacheDir !== false) {
    const root = resolvePath(options.cacheDir ?? defaultCacheDir());
    try {
      run.cache = await PackageCache.open(root, cacheScope(url, options.token), run.holdings);
    } catch (err) {
      run.progress({
        kind: 'warning',
        message: `The cache at ${root} cannot be used (${errorMessage(err)}); downloading without it`,
      });
    }
  }
  await Promise.all(
    change.map(async (ref) => {
      try {
        const { from, entry, bytes } = await run.materialise(ref, Object.hasOwn(previous, ref.name));
        entries[ref.name] = entry;
        skills.push({ name: ref.name, version: ref.version, content_hash: ref.content_hash, from });
        run.done++;
        run.progress({
          kind: 'skill',
          name: ref.name,
          version: ref.version,
          from,
          done: run.done,
          total: run.total,
          bytes,
        });
      } catch (err) {
        // The previous copy stays, and so does what the lock said of it.
        if (Object.hasOwn(previous, ref.name)) entries[ref.name] = previous[ref.name];
        fail(ref.name, err);
      }
    }),
  );
  for (const name of leaving) {
    try {
      await dir.remove(name);
    } catch (err) {
      // Still listed (and marked), so a later sync removes it.
      entries[name] = { ...previous[name], pending: true };
      fail(name, err);
    }
  }

  const complete = failed.length === 0;
  await writeLock(dir.dir, { ...baseLock, fingerprint: complete ? resolved.fingerprint : null, skills: entries });
  if (run.cache) {
    const inUse = new Set(resolved.refs.map((r) => hexOf(r.content_hash)));
    const bounds = {
      maxEntries: options.cacheMaxEntries ?? DEFAULT_CACHE_MAX_ENTRIES,
      maxBytes: options.cacheMaxBytes ?? DEFAULT_CACHE_MAX_BYTES,
    };
    await run.cache.evict(bounds, inUse).catch((err: unknown) => {
      run.progress({ kind: 'warning', message: `Cache eviction failed: ${errorMessage(err)}` });
    });
  }
  skills.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  failed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    fingerprint: resolved.fingerprint,
    skills,
    unresolved: resolved.unresolved,
    requests: client.requests,
    bytes_downloaded: client.bytesDownloaded,
    failed,
    exitCode: exitCodeOf(failed, resolved.unresolved, strict),
  };
}
