// `sync` (docs/sandbox-client.md#sync): the task's exact skills into DIR, verified, through the host cache, with
// one request and no download when nothing changed since the last sync. It gathers the facts
// (the lock, what DIR holds, the task's refs), lets plan-sync.ts decide, and carries the plan out
// within one deadline; a folder that differs from the lock is rebuilt.
import { createHash } from 'node:crypto';
import { resolve as resolvePath } from 'node:path';
import { Deadline, DEFAULT_SLOW_DOWNLOAD, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, SlowDownloadRule } from './deadline';
import { ClientError, EXIT_FAILED, ExitCode, errorMessage, IntegrityError, UsageError } from './errors';
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
import { conditionalFingerprint, exitCodeOf, Found, lockAfter, Outcome, planSync, Step } from './plan-sync';
import { HttpAnswer, RetryNotice, serviceError, ServiceClient } from './service-client';
import { FolderProblem, SkillDir } from './skill-dir';
import { parseTaskSkills, Ref, TaskSkills } from './task-skills';
import { unpackPackage, UnpackedFile } from './unpack';

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
  /** Re-hash every file of the locked folders (not only their sizes and modes), and rebuild any that differs. */
  verify?: boolean;
  /** The deadline of the whole run (default 300 s): past it, what is not done is left as it was, exit 1. */
  timeoutMs?: number;
  /** The caller's own way to stop the run, with the same effect as the deadline. */
  signal?: AbortSignal;
  /** The cut of a slow answer (default: under 1 KiB/s over 30 s). */
  slowDownload?: SlowDownloadRule;
  cacheMaxEntries?: number;
  cacheMaxBytes?: number;
  limits?: ClientPackageLimits;
  onProgress?: (event: ProgressEvent) => void;
}

export type From = 'cache' | 'download';

interface Obtained {
  from: From;
  files: UnpackedFile[];
  /** The package's bytes, when it was downloaded. */
  bytes: number;
}

export type ProgressEvent =
  | { kind: 'resolved'; total: number; toFetch: number; notModified: boolean }
  /** `bytes`: what this skill's package took to download (0 from the cache). */
  | { kind: 'skill'; name: string; version: number; from: From; done: number; total: number; bytes: number }
  /** A locked folder that differs from the lock, about to be rebuilt; `detail` names the first difference. */
  | { kind: 'repair'; name: string; detail: string }
  /** A folder the lock did not list, found to be exactly the ref's package, and taken into the lock. */
  | { kind: 'adopted'; name: string }
  | { kind: 'failed'; name: string; message: string }
  | { kind: 'warning'; message: string }
  /**
   * A 503 or 429 about to be retried: `what` was asked, `by` answered (`the service`, or `the store
   * at <origin>`), `detail` is the answer's ` (CODE: message)` or ''.
   */
  | { kind: 'retry'; what: string; by: string; status: number; detail: string; waitMs: number; attempt: number };

export interface SyncedSkill {
  name: string;
  version: number;
  content_hash: string;
  from: From;
  /** The version's lifecycle status (docs/resolution.md#version-lifecycle); null when the service sent none. */
  status: string | null;
}

/** Statuses a sync warns about: the skill still works, but its publisher has taken the version back. */
const WARNED_STATUSES = new Set(['deprecated', 'yanked']);

/** One warning per materialised skill whose version is deprecated or yanked. */
function warnStatuses(skills: readonly SyncedSkill[], progress: (event: ProgressEvent) => void): void {
  for (const skill of skills) {
    if (skill.status !== null && WARNED_STATUSES.has(skill.status)) {
      progress({ kind: 'warning', message: `${skill.name} v${skill.version} is ${skill.status}` });
    }
  }
}

/** The lock's entries with the statuses the refs carry now (a kept folder's may have changed). */
function withStatuses(skills: Record<string, LockedSkill>, refs: readonly Ref[]): Record<string, LockedSkill> {
  for (const ref of refs) {
    if (!Object.hasOwn(skills, ref.name)) continue;
    const { status: _old, ...entry } = skills[ref.name];
    skills[ref.name] = ref.status === undefined ? entry : { ...entry, status: ref.status };
  }
  return skills;
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
  /** Requests sent again after a 503 or 429 (each repeat counts once). */
  retries: number;
  bytes_downloaded: number;
  /** Skills left as they were (their previous copy, if any, still in DIR). */
  failed: SyncFailure[];
  exitCode: ExitCode;
}

/** How long a sync waits between looks at DIR's sync lock, held by another sync of the same DIR. */
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
  const positive = (value: number | undefined): boolean =>
    value === undefined || (Number.isFinite(value) && value > 0 && value <= MAX_TIMEOUT_MS);
  if (!positive(options.timeoutMs))
    throw new UsageError('--timeout must be a positive number of seconds, at most 24 days');
  const slow = options.slowDownload;
  if (slow && (!positive(slow.windowMs) || !Number.isFinite(slow.bytesPerSecond) || slow.bytesPerSecond < 0)) {
    throw new UsageError('The slow-download rule needs a positive window and a rate of 0 or more bytes per second');
  }
}

function httpFailure(answer: HttpAnswer, what: string, taskId: number): ClientError {
  const detail = `${serviceError(answer)}${answer.gaveUp}`;
  if (answer.redirected) {
    return new ClientError(
      EXIT_FAILED,
      `${what}: the store at ${answer.origin}, where the service redirected the download, answered ${answer.status}${detail}`,
    );
  }
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
  readonly deadline: Deadline;
  cache: PackageCache | null = null;
  /** The packages of the run's refs, for the cache's lease. */
  cacheHexes: string[] = [];
  done = 0;
  total = 0;

  constructor(readonly options: SyncOptions) {
    this.deadline = new Deadline(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.signal);
    this.client = new ServiceClient(options.url, options.token, MAX_PARALLEL_DOWNLOADS + 1, {
      signal: this.deadline.signal,
      aborted: () => this.deadline.error(),
      slow: options.slowDownload ?? DEFAULT_SLOW_DOWNLOAD,
      remainingMs: () => this.deadline.remainingMs(),
      sleep: (ms) => this.deadline.sleep(ms),
    });
    this.dir = new SkillDir(resolvePath(options.dir));
    this.limits = options.limits ?? DEFAULT_PACKAGE_LIMITS;
  }

  progress(event: ProgressEvent): void {
    this.options.onProgress?.(event);
  }

  /** Tells of each retry of a request for `what`. */
  retried(what: string): (notice: RetryNotice) => void {
    return (notice) => this.progress({ kind: 'retry', what, ...notice });
  }

  async taskSkills(fingerprint: string | null): Promise<HttpAnswer> {
    const what = `The skills of task ${this.options.taskId}`;
    const answer = await this.client.get(`/tasks/${this.options.taskId}/skills`, {
      headers: fingerprint ? { 'if-none-match': `"${fingerprint}"` } : {},
      maxBytes: MAX_TASK_SKILLS_BYTES,
      tooLarge: () => new ClientError(EXIT_FAILED, "The service's answer for the task's skills is too large"),
      what,
      onRetry: this.retried(what),
    });
    if (answer.status === 304 && fingerprint === null) {
      throw new ClientError(
        EXIT_FAILED,
        `Task ${this.options.taskId}: the service answered 304 to an unconditional request`,
      );
    }
    if (answer.status !== 200 && answer.status !== 304)
      throw httpFailure(answer, `Task ${this.options.taskId}`, this.options.taskId);
    return answer;
  }

  /** The package bytes, checked against the ref's content hash. */
  async download(ref: Ref): Promise<Buffer> {
    return this.downloads.run(async () => {
      this.deadline.check();
      const hash = createHash('sha256');
      const what = `The package of ${ref.name} v${ref.version}`;
      const answer = await this.client.get(`/skills/${ref.skill_id}/download?version=${ref.version}`, {
        maxBytes: maxDownloadBytes(this.limits),
        tooLarge: () => new IntegrityError(`The package of ${ref.name} is larger than any package the service stores`),
        // Only a 200's body: an answer that is retried or redirected adds nothing to the hash.
        onChunk: (chunk) => {
          hash.update(chunk);
          this.client.bytesDownloaded += chunk.length;
        },
        what,
        followRedirect: true,
        onRetry: this.retried(what),
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
  }

  /**
   * The files of `ref`, unpacked by the package rules from bytes that hash to its content hash:
   * the host cache's copy when it holds a sound one, else a download (which the cache then keeps).
   */
  async obtain(ref: Ref): Promise<Obtained> {
    const cache = this.cache;
    const hex = hexOf(ref.content_hash);
    const fromDownload = async (): Promise<Obtained> => {
      const zip = await this.download(ref);
      const files = unpackPackage(zip, ref.name, this.limits);
      if (cache) {
        await cache.publish(hex, zip).catch((err: unknown) => {
          this.progress({ kind: 'warning', message: `The cache could not keep ${ref.name}: ${errorMessage(err)}` });
        });
      }
      return { from: 'download', files, bytes: zip.length };
    };
    if (!cache) return fromDownload();

    let discarded = false;
    for (;;) {
      this.deadline.check();
      // Read before looking, so a change between the look and the wait below is not missed.
      const since = cache.changesTo(hex);
      const found = await cache.read(hex, ref.content_hash, maxDownloadBytes(this.limits));
      if (Buffer.isBuffer(found)) {
        // The cache serves this sync: its other entries are leased, so no eviction takes them
        // before they are read (this one is in memory already).
        await cache.lease(this.cacheHexes);
        await cache.touch(hex);
        return { from: 'cache', files: unpackPackage(found, ref.name, this.limits), bytes: 0 };
      }
      if (found === 'corrupt') {
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
          if (cache.has(hex)) continue;
          return await fromDownload();
        } finally {
          await cache.unlockDownload(hex);
        }
      }
      // Another sync is fetching this package: its entry appears, or its lock goes (or goes
      // stale). The wait wakes on either; a watch started only now looks once more first.
      if (since === null && cache.watch()) continue;
      await cache.waitForChange(hex, since, this.deadline.signal);
    }
  }

  /**
   * One add, change or rebuild into DIR, or a claim: the files are obtained in memory first, then
   * written to a stage and swapped in. A failure, or the deadline passing before the swap, leaves
   * the previous copy as it was.
   */
  async materialise(step: Step & { ref: Ref }): Promise<{ from: From; entry: LockedSkill; bytes: number }> {
    const { ref } = step;
    const { from, files, bytes } = await this.obtain(ref);
    const entry: LockedSkill = {
      skill_id: ref.skill_id,
      version: ref.version,
      content_hash: ref.content_hash,
      files: files.map(({ path, size, sha256, mode }) => ({ path, size, sha256, mode })),
    };
    if (step.action === 'claim') {
      const differs = await this.dir.problems(ref.name, entry.files, { hashes: true, first: true });
      if (differs.length > 0) {
        throw new ClientError(
          EXIT_FAILED,
          `${this.dir.dir}/${ref.name} exists but the lock does not list it, and it is not ${ref.name} v${ref.version} ` +
            `(${describeProblem(differs[0])}); it is left as it is: move it away, or sync into another folder`,
        );
      }
      this.progress({ kind: 'adopted', name: ref.name });
      return { from, entry, bytes };
    }
    this.deadline.check();
    const stage = await this.dir.stage(ref.name);
    try {
      await stage.writeAll(files);
      this.deadline.check();
      await stage.commit(step.action !== 'add');
      return { from, entry, bytes };
    } catch (err) {
      await stage.abort();
      throw err;
    }
  }

  close(): void {
    this.client.close();
    this.cache?.close();
  }
}

function describeProblem(p: FolderProblem): string {
  return p.path === '.' ? p.problem : `${p.path}: ${p.problem}`;
}

/** Syncs the task's skills into `options.dir`; throws ClientError for what ends the whole run. */
export async function sync(options: SyncOptions): Promise<SyncResult> {
  checkOptions(options);
  const run = new SyncRun(options);
  try {
    await run.dir.prepare();
    const dirLock = `${run.dir.dir}/.skill-resolver.sync.lock`;
    while (!(await run.holdings.acquire(dirLock))) await run.deadline.sleep(WAIT_MS);
    return await syncLocked(run);
  } finally {
    await run.holdings.releaseAll();
    run.close();
  }
}

const sortByName = <T extends { name: string }>(items: T[]): T[] =>
  items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

async function syncLocked(run: SyncRun): Promise<SyncResult> {
  const { options, dir, client } = run;
  const preloadOnly = options.preloadOnly === true;
  const strict = options.strict === true;
  const hashes = options.verify === true;
  await dir.cleanLeftovers();
  const lock = await readLock(dir.dir);
  const previous = lock?.skills ?? {};
  const url = client.root.url;

  // What DIR holds of the lock, before asking: a folder that differs makes the request unconditional.
  const found = new Map<string, Found>();
  const differences = new Map<string, FolderProblem>();
  await Promise.all(
    Object.entries(previous).map(async ([name, skill]) => {
      if (skill.pending) return found.set(name, 'damaged');
      const problems = await dir.problems(name, skill.files, { hashes, first: true });
      if (problems.length > 0) differences.set(name, problems[0]);
      found.set(name, problems.length === 0 ? 'intact' : 'damaged');
    }),
  );

  // 1. The task's refs, conditional on what DIR already holds.
  const fingerprint = conditionalFingerprint(lock, { url, taskId: options.taskId, preloadOnly }, found);
  const answer = await run.taskSkills(fingerprint);
  if (answer.status === 304 && lock) {
    const skills = Object.entries(lock.skills).map(([name, s]) => ({
      name,
      version: s.version,
      content_hash: s.content_hash,
      from: 'cache' as const,
      status: s.status ?? null,
    }));
    run.progress({ kind: 'resolved', total: skills.length, toFetch: 0, notModified: true });
    warnStatuses(skills, (event) => run.progress(event));
    return {
      fingerprint: lock.fingerprint,
      skills: sortByName(skills),
      unresolved: lock.unresolved,
      requests: client.requests,
      retries: client.retries,
      bytes_downloaded: client.bytesDownloaded,
      failed: [],
      exitCode: exitCodeOf([], lock.unresolved, strict),
    };
  }
  const resolved: TaskSkills = parseTaskSkills(answer.body, preloadOnly);

  // 2-3. Which folders stay, which are written, rebuilt or claimed, which go.
  for (const ref of resolved.refs) {
    if (!Object.hasOwn(previous, ref.name)) found.set(ref.name, (await dir.occupied(ref.name)) ? 'occupied' : 'free');
  }
  const plan = planSync({ previous, refs: resolved.refs, found });
  const writes = plan.steps.filter((s): s is Step & { ref: Ref } => 'ref' in s);
  run.total = resolved.refs.length;
  run.progress({ kind: 'resolved', total: run.total, toFetch: writes.length, notModified: false });
  for (const step of writes) {
    const difference = differences.get(step.name);
    if (step.action === 'rebuild') {
      run.progress({
        kind: 'repair',
        name: step.name,
        detail: difference ? describeProblem(difference) : 'left unfinished by an earlier sync',
      });
    }
  }
  const baseLock = { url, task_id: options.taskId, preload_only: preloadOnly, unresolved: resolved.unresolved };
  // Before any folder changes: a sync killed from here on leaves these names marked, and the next one redoes them.
  if (plan.marked) await writeLock(dir.dir, { ...baseLock, fingerprint: null, skills: plan.marked });

  const skills: SyncedSkill[] = [];
  const statusOf = new Map(resolved.refs.map((r) => [r.name, r.status]));
  const outcomes = new Map<string, Outcome>();
  for (const step of plan.steps) {
    if (step.action !== 'keep') continue;
    run.done++;
    outcomes.set(step.name, { ok: true });
    const { version, content_hash } = step.entry;
    skills.push({ name: step.name, version, content_hash, from: 'cache', status: statusOf.get(step.name) ?? null });
  }
  const failed: SyncFailure[] = [];
  const fail = (name: string, err: unknown): void => {
    const failure = err instanceof ClientError ? err : new ClientError(EXIT_FAILED, `${name}: ${errorMessage(err)}`);
    outcomes.set(name, { ok: false });
    failed.push({ name, exit_code: failure.exitCode, message: failure.message });
    run.progress({ kind: 'failed', name, message: failure.message });
  };
  if (writes.length > 0 && options.cacheDir !== false) {
    const root = resolvePath(options.cacheDir ?? defaultCacheDir());
    try {
      run.cache = await PackageCache.open(root, cacheScope(url), run.holdings);
      run.cacheHexes = writes.map((step) => hexOf(step.ref.content_hash));
    } catch (err) {
      run.progress({
        kind: 'warning',
        message: `The cache at ${root} cannot be used (${errorMessage(err)}); downloading without it`,
      });
    }
  }
  await Promise.all(
    writes.map(async (step) => {
      const { ref } = step;
      try {
        const { from, entry, bytes } = await run.materialise(step);
        outcomes.set(ref.name, { ok: true, entry });
        skills.push({
          name: ref.name,
          version: ref.version,
          content_hash: ref.content_hash,
          from,
          status: ref.status ?? null,
        });
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
        fail(ref.name, err);
      }
    }),
  );
  for (const step of plan.steps) {
    if (step.action !== 'remove') continue;
    try {
      run.deadline.check();
      await dir.remove(step.name);
      outcomes.set(step.name, { ok: true });
    } catch (err) {
      fail(step.name, err);
    }
  }

  const complete = failed.length === 0;
  await writeLock(dir.dir, {
    ...baseLock,
    fingerprint: complete ? resolved.fingerprint : null,
    skills: withStatuses(lockAfter(plan, outcomes), resolved.refs),
  });
  warnStatuses(sortByName(skills), (event) => run.progress(event));
  // Only a sync that added entries can have taken the cache past its bounds (or one given bounds of
  // its own): the others leave the scan to it (docs/sandbox-client.md#host-cache).
  const explicitBounds = options.cacheMaxEntries !== undefined || options.cacheMaxBytes !== undefined;
  if (run.cache && (run.cache.published > 0 || explicitBounds)) {
    const inUse = new Set(resolved.refs.map((r) => hexOf(r.content_hash)));
    const bounds = {
      maxEntries: options.cacheMaxEntries ?? DEFAULT_CACHE_MAX_ENTRIES,
      maxBytes: options.cacheMaxBytes ?? DEFAULT_CACHE_MAX_BYTES,
    };
    await run.cache.evict(bounds, inUse).catch((err: unknown) => {
      run.progress({ kind: 'warning', message: `Cache eviction failed: ${errorMessage(err)}` });
    });
  }
  return {
    fingerprint: resolved.fingerprint,
    skills: sortByName(skills),
    unresolved: resolved.unresolved,
    requests: client.requests,
    retries: client.retries,
    bytes_downloaded: client.bytesDownloaded,
    failed: sortByName(failed),
    exitCode: exitCodeOf(failed, resolved.unresolved, strict),
  };
}
