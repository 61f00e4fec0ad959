// Reads one folder of one commit of a remote repository (docs/publishing.md#importing-from-git).
//
// Why the `git` program rather than a JavaScript implementation such as isomorphic-git: protocol v2,
// a shallow fetch of exactly one commit and `--filter=blob:none` (trees only, for the drift check,
// then only the blobs of the folder asked for) are what git itself speaks and maintains against
// every hosting service; a reimplementation would lag behind them and read whole packs in our
// process. git runs as a child process, so nothing blocks the event loop, and we bound it:
// - no shell, every caller value after `--` (or on stdin), env cleared to a minimal set, no system
//   or global configuration, only the http(s) transports, no redirects, no credential helpers or
//   prompts, no hooks, symlinks or submodules;
// - one deadline (and the caller's AbortSignal) for the whole operation: every git runs in its own
//   process group, killed as a whole, and the temporary repository is removed;
// - the bytes fetched are the size of the temporary repository's object folder, watched while git
//   runs; past the limit git is killed (413), and a folder whose files would expand past the limit
//   is refused before they are read.
// Redirects: before git runs, one request of `<url>/info/refs?service=git-upload-pack` follows at
// most 3 redirects, each to an allowed host only; git is then given the final URL and told never
// to follow one itself. A token configured for a host goes only to that host, as a header scoped to
// its origin through the environment (not the command line), and is masked in any error text.
import { ChildProcess, spawn } from 'node:child_process';
import { lstat, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DomainError } from '../../common/errors/domain-error';
import {
  checkGitUrl,
  gitBasicAuthorization,
  gitCredentialFor,
  gitEntryKind,
  GitTreeEntry,
  gitUrlText,
  isCommitId,
  isGitHostAllowed,
  isLfsPointer,
  isUnknownObjectMessage,
  maskGitSecrets,
  parseLsRemote,
  parseLsTree,
  pickRef,
  refCandidates,
  shortGitMessage,
} from './git-rules';
import type { GitFile, GitFolder, GitLocation, GitRemoteReader, GitSettings } from './git-remote.types';

/** Temporary folders of an import start with this, under os.tmpdir() (or the given root). */
export const GIT_TEMP_PREFIX = 'skill-resolver-git-';
export const GIT_MAX_REDIRECTS = 3;
/** A folder of 50 skills of at most 512 files each. */
export const DEFAULT_GIT_MAX_FOLDER_FILES = 50 * 512;
const STDERR_KEEP = 64 * 1024;

export interface GitRemoteOptions {
  /** The git program (default `git` on PATH). */
  git?: string;
  /** Where temporary repositories go (default os.tmpdir()). */
  tmpRoot?: string;
  /** How often the fetched bytes are measured while git runs. */
  pollMs?: number;
}

interface RunOptions {
  gitDir?: string;
  input?: string;
  /** Past this many bytes of output git is killed and the operation is GIT_FETCH_TOO_LARGE. */
  stdoutLimit?: number;
  /** An object folder to measure while git runs (the bytes fetched). */
  watch?: string;
}

interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** One import's deadline, temporary folder and child processes. */
class Operation {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly children = new Set<ChildProcess>();
  private readonly onCallerAbort = (): void => this.abort('cancelled');
  private reason: 'deadline' | 'cancelled' | null = null;
  dir = '';

  constructor(
    readonly timeoutMs: number,
    private readonly callerSignal?: AbortSignal,
  ) {
    this.timer = setTimeout(() => this.abort('deadline'), timeoutMs);
    if (callerSignal?.aborted) this.abort('cancelled');
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.reason !== null;
  }

  timeoutError(): DomainError {
    return this.reason === 'cancelled'
      ? new DomainError('GIT_TIMEOUT', 'The import from git was cancelled')
      : new DomainError('GIT_TIMEOUT', `The import from git did not finish within ${this.timeoutMs} ms`, {
          timeout_ms: this.timeoutMs,
        });
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.timeoutError();
  }

  adopt(child: ChildProcess): void {
    this.children.add(child);
    child.once('close', () => this.children.delete(child));
    // A program that could not start never closes.
    child.once('error', () => this.children.delete(child));
  }

  /** Ends the operation: every git still running is killed (and waited for), the folder removed. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
    await Promise.all([...this.children].map((child) => killAndWait(child)));
    if (this.dir !== '') await rm(this.dir, { recursive: true, force: true, maxRetries: 3 });
  }

  private abort(reason: 'deadline' | 'cancelled'): void {
    if (this.reason !== null) return;
    this.reason = reason;
    this.controller.abort();
    for (const child of this.children) killGroup(child);
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function killAndWait(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('close', () => resolve());
    killGroup(child);
  });
}

/** Bytes under `dir` (files only; a file vanishing meanwhile counts nothing). */
async function folderBytes(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let total = 0;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(path);
    else
      total += await lstat(path).then(
        (stat) => stat.size,
        () => 0,
      );
  }
  return total;
}

const NAME_DECODER = new TextDecoder('utf-8', { fatal: true });

export class GitRemote implements GitRemoteReader {
  private readonly git: string;
  private readonly tmpRoot: string;
  private readonly pollMs: number;

  constructor(
    private readonly settings: GitSettings,
    options: GitRemoteOptions = {},
  ) {
    this.git = options.git ?? 'git';
    this.tmpRoot = options.tmpRoot ?? tmpdir();
    this.pollMs = options.pollMs ?? 50;
  }

  resolve(location: GitLocation, signal?: AbortSignal): Promise<string> {
    return this.operation(signal, async (op) => {
      const base = await this.preflight(op, location);
      if (isCommitId(location.ref)) return location.ref;
      const patterns = refCandidates(location.ref).flatMap((name) => [name, `${name}^{}`]);
      const result = await this.run(op, base, ['ls-remote', '--', gitUrlText(base), ...patterns], {
        stdoutLimit: 1024 * 1024,
      });
      if (result.code !== 0) throw this.fetchFailed(result.stderr);
      const commit = pickRef(parseLsRemote(result.stdout.toString('latin1')), location.ref);
      if (commit === null) throw refNotFound(location.ref);
      return commit;
    });
  }

  treeId(location: GitLocation, commit: string, signal?: AbortSignal): Promise<string> {
    return this.operation(signal, async (op) => {
      const { repo, base } = await this.fetchCommit(op, location, commit);
      return this.folderTree(op, base, repo, commit, location.path);
    });
  }

  readFolder(location: GitLocation, commit: string, signal?: AbortSignal): Promise<GitFolder> {
    return this.operation(signal, async (op) => {
      const { repo, base } = await this.fetchCommit(op, location, commit);
      const treeId = await this.folderTree(op, base, repo, commit, location.path);
      const entries = await this.listFolder(op, base, repo, treeId, location.path);
      const folder: GitFolder = { commit, treeId, files: [], symlinks: [], submodules: [], lfsPointers: [] };
      const blobs: Array<{ path: string; entry: GitTreeEntry }> = [];
      for (const entry of entries) {
        const path = decodeName(entry.path, location.path);
        const kind = gitEntryKind(entry.mode);
        if (kind === 'symlink') folder.symlinks.push(path);
        else if (kind === 'submodule') folder.submodules.push(path);
        else if ((kind === 'file' || kind === 'executable') && entry.type === 'blob') blobs.push({ path, entry });
      }
      const contents = await this.readBlobs(
        op,
        base,
        repo,
        blobs.map(({ entry }) => entry.id),
      );
      for (const { path, entry } of blobs) {
        const bytes = contents.get(entry.id)!;
        const file: GitFile = { path, mode: gitEntryKind(entry.mode) === 'executable' ? 0o100755 : 0o100644, bytes };
        folder.files.push(file);
        if (isLfsPointer(bytes)) folder.lfsPointers.push(path);
      }
      folder.files.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
      for (const list of [folder.symlinks, folder.submodules, folder.lfsPointers]) {
        list.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      }
      return folder;
    });
  }

  private async operation<T>(signal: AbortSignal | undefined, work: (op: Operation) => Promise<T>): Promise<T> {
    const op = new Operation(this.settings.timeoutMs, signal);
    try {
      op.throwIfAborted();
      op.dir = await mkdtemp(join(this.tmpRoot, GIT_TEMP_PREFIX));
      return await work(op);
    } catch (error) {
      if (op.aborted) throw op.timeoutError();
      throw error;
    } finally {
      await op.close();
    }
  }

  /**
   * Asks the remote for its refs once with Node's own HTTP client, to see where it redirects:
   * each hop must go to an allowed host (GIT_HOST_NOT_ALLOWED otherwise), at most 3 of them;
   * an answer that is not a success is GIT_FETCH_FAILED with its status. Returns the URL git is given.
   */
  private async preflight(op: Operation, location: GitLocation): Promise<URL> {
    let base = checkGitUrl(location.url, this.settings.allowedHosts);
    for (let hop = 0; ; hop++) {
      const probe = new URL(`${gitUrlText(base)}/info/refs?service=git-upload-pack`);
      const answer = await this.probe(op, probe);
      if (answer.status >= 200 && answer.status < 300) return base;
      if (answer.status >= 300 && answer.status < 400 && answer.location !== undefined) {
        if (hop >= GIT_MAX_REDIRECTS) {
          throw new DomainError('GIT_FETCH_FAILED', `The remote redirected more than ${GIT_MAX_REDIRECTS} times`);
        }
        base = this.redirectTarget(probe, answer.location);
        continue;
      }
      throw new DomainError('GIT_FETCH_FAILED', `The remote answered ${answer.status}`, { status: answer.status });
    }
  }

  private redirectTarget(probe: URL, location: string): URL {
    let target: URL;
    try {
      target = new URL(location, probe);
    } catch {
      throw new DomainError('GIT_FETCH_FAILED', 'The remote redirected to an invalid URL');
    }
    if (target.username !== '' || target.password !== '' || !isGitHostAllowed(this.settings.allowedHosts, target)) {
      throw new DomainError(
        'GIT_HOST_NOT_ALLOWED',
        `The remote redirected to ${target.protocol}//${target.host}, which is not an allowed git host`,
        { host: target.host },
      );
    }
    if (!target.pathname.endsWith('/info/refs')) {
      throw new DomainError('GIT_FETCH_FAILED', 'The remote redirected somewhere that is not a git repository');
    }
    const base = new URL(`${target.protocol}//${target.host}`);
    base.pathname = target.pathname.slice(0, -'/info/refs'.length);
    return base;
  }

  private probe(op: Operation, url: URL): Promise<{ status: number; location?: string }> {
    op.throwIfAborted();
    const token = gitCredentialFor(this.settings.credentials, url);
    const headers: Record<string, string> = { 'user-agent': 'git/2 (skill-resolver)', 'git-protocol': 'version=2' };
    if (token !== undefined) headers.authorization = gitBasicAuthorization(token);
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise((resolve, reject) => {
      const request = send(url, { method: 'GET', headers, agent: false, signal: op.signal });
      request.on('response', (response: IncomingMessage) => {
        const location = response.headers.location;
        resolve({ status: response.statusCode ?? 0, location });
        response.destroy();
      });
      request.on('error', (error) => {
        reject(
          op.aborted
            ? op.timeoutError()
            : new DomainError('GIT_FETCH_FAILED', `The remote could not be reached: ${this.mask(error.message)}`),
        );
      });
      request.end();
    });
  }

  /** A temporary repository with `commit` and its trees fetched (no history, no blobs when the remote can filter). */
  private async fetchCommit(
    op: Operation,
    location: GitLocation,
    commit: string,
  ): Promise<{ repo: string; base: URL }> {
    if (!isCommitId(commit)) throw refNotFound(commit);
    const base = await this.preflight(op, location);
    const repo = join(op.dir, 'repo.git');
    const init = await this.run(op, base, ['init', '--bare', '--quiet', '--template=', '--', repo]);
    if (init.code !== 0) throw this.fetchFailed(init.stderr);
    // The remote is a promisor: git may leave blobs out and fetch the ones asked for later.
    const url = gitUrlText(base).replace(/\\/g, '\\\\').replace(/"/g, '\\"');
    await writeFile(
      join(repo, 'config'),
      '[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tpartialclone = origin\n' +
        `[remote "origin"]\n\turl = "${url}"\n\tpromisor = true\n\tpartialclonefilter = blob:none\n`,
    );
    const fetched = await this.run(
      op,
      base,
      [
        'fetch',
        '--quiet',
        '--depth=1',
        '--no-tags',
        '--no-write-fetch-head',
        '--filter=blob:none',
        '--recurse-submodules=no',
        '--',
        'origin',
        commit,
      ],
      { gitDir: repo, watch: join(repo, 'objects') },
    );
    if (fetched.code !== 0) {
      if (isUnknownObjectMessage(fetched.stderr)) throw refNotFound(commit);
      throw this.fetchFailed(fetched.stderr);
    }
    const type = await this.run(op, base, ['cat-file', '-t', commit], { gitDir: repo });
    if (type.code !== 0 || type.stdout.toString().trim() !== 'commit') throw refNotFound(commit);
    return { repo, base };
  }

  /** The tree id of `path` at `commit` (GIT_PATH_NOT_FOUND when it is missing or not a folder). */
  private async folderTree(op: Operation, base: URL, repo: string, commit: string, path: string): Promise<string> {
    if (path === '') {
      const root = await this.run(op, base, ['rev-parse', '--verify', '--quiet', `${commit}^{tree}`], { gitDir: repo });
      if (root.code !== 0) throw this.fetchFailed(root.stderr);
      return root.stdout.toString().trim();
    }
    const listed = await this.run(op, base, ['ls-tree', '-z', '--full-tree', commit, '--', path], {
      gitDir: repo,
      stdoutLimit: 64 * 1024,
    });
    if (listed.code !== 0) throw this.fetchFailed(listed.stderr);
    const entry = parseLsTree(listed.stdout).find((item) => item.path.equals(Buffer.from(path)));
    if (entry === undefined || entry.type !== 'tree') {
      throw new DomainError('GIT_PATH_NOT_FOUND', `"${path}" is not a folder at commit ${commit}`, { path, commit });
    }
    return entry.id;
  }

  /** Every entry under the folder's tree (paths relative to it), at most maxFolderFiles. */
  private async listFolder(
    op: Operation,
    base: URL,
    repo: string,
    treeId: string,
    path: string,
  ): Promise<GitTreeEntry[]> {
    const limit = this.settings.maxFolderFiles ?? DEFAULT_GIT_MAX_FOLDER_FILES;
    // A record is the mode, type, id and a path (4,096 bytes at most on common file systems).
    const listed = await this.run(op, base, ['ls-tree', '-r', '-z', treeId], {
      gitDir: repo,
      stdoutLimit: limit * 4200,
    });
    if (listed.code !== 0) throw this.fetchFailed(listed.stderr);
    const entries = parseLsTree(listed.stdout);
    if (entries.length > limit) throw folderTooLarge(path, `more than ${limit} entries`);
    return entries;
  }

  /** The blobs' bytes by id: fetched in one request, sized, then read (refused past maxFolderBytes). */
  private async readBlobs(op: Operation, base: URL, repo: string, ids: string[]): Promise<Map<string, Buffer>> {
    const contents = new Map<string, Buffer>();
    if (ids.length === 0) return contents;
    const unique = [...new Set(ids)];
    const input = `${unique.join('\n')}\n`;
    // The same request git makes when it lacks a blob of a partial clone, for all of them at once.
    const fetched = await this.run(
      op,
      base,
      [
        'fetch',
        '--quiet',
        '--no-tags',
        '--no-write-fetch-head',
        '--filter=blob:none',
        '--recurse-submodules=no',
        '--stdin',
        '--',
        'origin',
      ],
      { gitDir: repo, input, watch: join(repo, 'objects') },
    );
    if (fetched.code !== 0) throw this.fetchFailed(fetched.stderr);

    const sized = await this.run(op, base, ['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], {
      gitDir: repo,
      input,
      stdoutLimit: unique.length * 128,
    });
    if (sized.code !== 0) throw this.fetchFailed(sized.stderr);
    const sizes = new Map<string, number>();
    for (const line of sized.stdout.toString('latin1').split('\n')) {
      const match = /^([0-9a-f]{40}) blob (\d+)$/.exec(line);
      if (match) sizes.set(match[1], Number(match[2]));
    }
    const maxBytes = this.settings.maxFolderBytes ?? this.settings.maxFetchBytes;
    let total = 0;
    for (const id of ids) {
      const size = sizes.get(id);
      if (size === undefined) throw new DomainError('GIT_FETCH_FAILED', `The remote did not send blob ${id}`);
      total += size;
    }
    if (total > maxBytes) throw folderTooLarge('', `${total} bytes of files, more than ${maxBytes}`);

    const uniqueBytes = unique.reduce((sum, id) => sum + sizes.get(id)!, 0);
    const read = await this.run(op, base, ['cat-file', '--batch'], {
      gitDir: repo,
      input,
      stdoutLimit: uniqueBytes + unique.length * 128,
    });
    if (read.code !== 0) throw this.fetchFailed(read.stderr);
    let offset = 0;
    const out = read.stdout;
    while (offset < out.length) {
      const newline = out.indexOf(0x0a, offset);
      const match = /^([0-9a-f]{40}) blob (\d+)$/.exec(out.subarray(offset, newline).toString('latin1'));
      if (!match) throw new DomainError('GIT_FETCH_FAILED', 'git printed an unexpected object');
      const size = Number(match[2]);
      contents.set(match[1], Buffer.from(out.subarray(newline + 1, newline + 1 + size)));
      offset = newline + 1 + size + 1;
    }
    for (const id of unique) {
      if (!contents.has(id)) throw new DomainError('GIT_FETCH_FAILED', `The remote did not send blob ${id}`);
    }
    return contents;
  }

  /** Runs git with the hardened options, in its own process group, bounded by the operation. */
  private run(op: Operation, base: URL, args: string[], options: RunOptions = {}): Promise<RunResult> {
    op.throwIfAborted();
    const argv = [...(options.gitDir ? [`--git-dir=${options.gitDir}`] : []), ...this.configArgs(base, op), ...args];
    const child = spawn(this.git, argv, {
      cwd: op.dir,
      env: this.environment(base, op),
      detached: true,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    op.adopt(child);
    const watcher = new AbortController();
    let tooLarge: string | null = null;

    return new Promise<RunResult>((resolve, reject) => {
      const stdout: Buffer[] = [];
      let stdoutBytes = 0;
      let stderr = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        stdoutBytes += chunk.length;
        if (options.stdoutLimit !== undefined && stdoutBytes > options.stdoutLimit) {
          tooLarge ??= `more than ${options.stdoutLimit} bytes of listing`;
          killGroup(child);
          return;
        }
        stdout.push(chunk);
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
      });
      if (options.input !== undefined) {
        child.stdin!.on('error', () => undefined);
        child.stdin!.end(options.input);
      }
      const watching =
        options.watch === undefined
          ? Promise.resolve()
          : this.watchBytes(options.watch, watcher.signal, () => {
              tooLarge ??= `more than ${this.settings.maxFetchBytes} bytes fetched`;
              killGroup(child);
            });
      child.once('error', (error) => {
        watcher.abort();
        reject(new DomainError('GIT_FETCH_FAILED', `git could not be started: ${error.message}`));
      });
      child.once('close', (code) => {
        watcher.abort();
        void watching.then(async () => {
          if (op.aborted) return reject(op.timeoutError());
          if (tooLarge === null && options.watch !== undefined && code === 0) {
            const bytes = await folderBytes(options.watch);
            if (bytes > this.settings.maxFetchBytes)
              tooLarge = `${bytes} bytes fetched, more than ${this.settings.maxFetchBytes}`;
          }
          if (tooLarge !== null)
            return reject(new DomainError('GIT_FETCH_TOO_LARGE', `The fetch was stopped: ${tooLarge}`));
          resolve({ code, stdout: Buffer.concat(stdout), stderr });
        });
      });
    });
  }

  /** Measures `objects` every pollMs until `signal` aborts; calls `over` once past maxFetchBytes. */
  private async watchBytes(objects: string, signal: AbortSignal, over: () => void): Promise<void> {
    while (!signal.aborted) {
      try {
        await sleep(this.pollMs, undefined, { signal });
      } catch {
        return;
      }
      if ((await folderBytes(objects)) > this.settings.maxFetchBytes) {
        over();
        return;
      }
    }
  }

  private configArgs(base: URL, op: Operation): string[] {
    const config = [
      // Only the transport of the URL checked against the allowed hosts.
      'protocol.allow=never',
      'protocol.https.allow=always',
      `protocol.http.allow=${base.protocol === 'http:' ? 'always' : 'never'}`,
      'protocol.version=2',
      // Redirects were followed (to allowed hosts only) before git runs.
      'http.followRedirects=false',
      'http.proxy=',
      // A backstop for a git left running by a process that died: the deadline is ours.
      'http.lowSpeedLimit=1',
      `http.lowSpeedTime=${Math.max(1, Math.ceil(op.timeoutMs / 1000))}`,
      'credential.helper=',
      'core.askPass=',
      'core.symlinks=false',
      'core.hooksPath=/dev/null',
      'core.fsmonitor=false',
      'submodule.recurse=false',
      'fetch.recurseSubmodules=false',
      // Received packs are kept as packs, written as they arrive: the object folder is the bytes fetched.
      'fetch.unpackLimit=1',
      'transfer.unpackLimit=1',
      'fetch.negotiationAlgorithm=noop',
      'fetch.writeCommitGraph=false',
      'gc.auto=0',
      'maintenance.auto=false',
      'init.defaultBranch=main',
    ];
    return config.flatMap((item) => ['-c', item]);
  }

  private environment(base: URL, op: Operation): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: op.dir,
      LANG: 'C',
      LC_ALL: 'C',
      GIT_TERMINAL_PROMPT: '0',
      GIT_ASKPASS: '',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CEILING_DIRECTORIES: dirname(op.dir),
      GIT_LITERAL_PATHSPECS: '1',
      GIT_NO_REPLACE_OBJECTS: '1',
      GIT_PROTOCOL_FROM_USER: '0',
    };
    const token = gitCredentialFor(this.settings.credentials, base);
    if (token !== undefined) {
      // Through the environment, not argv (which any local user can list), and only for this origin.
      env.GIT_CONFIG_COUNT = '1';
      env.GIT_CONFIG_KEY_0 = `http.${base.protocol}//${base.host}/.extraHeader`;
      env.GIT_CONFIG_VALUE_0 = `Authorization: ${gitBasicAuthorization(token)}`;
    }
    return env;
  }

  private mask(text: string): string {
    return maskGitSecrets(text, [...this.settings.credentials.values()]);
  }

  private fetchFailed(stderr: string): DomainError {
    const message = shortGitMessage(this.mask(stderr)) || 'git failed without a message';
    return new DomainError('GIT_FETCH_FAILED', `The git remote failed: ${message}`, { remote_message: message });
  }
}

function refNotFound(ref: string): DomainError {
  return new DomainError('GIT_REF_NOT_FOUND', `The remote has no branch, tag or commit "${ref}"`, { ref });
}

function folderTooLarge(path: string, what: string): DomainError {
  return new DomainError('GIT_FETCH_TOO_LARGE', `The folder${path === '' ? '' : ` "${path}"`} is too large: ${what}`);
}

/** A path under the folder as text (UTF-8 only: the package rules read names as text). */
function decodeName(bytes: Buffer, folder: string): string {
  try {
    return NAME_DECODER.decode(bytes);
  } catch {
    throw new DomainError('VALIDATION_FAILED', [`A file name under "${folder}" is not UTF-8`]);
  }
}
