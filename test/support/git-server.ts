// A real git server on loopback for the tests: Debian's `git http-backend` run as CGI behind a small
// Node HTTP server, serving bare repositories the tests build with the `git` program.
//
//   const server = await GitTestServer.start();
//   const repo = await server.createRepo('skills');              // served at server.repoUrl('skills')
//   const first = await repo.commit({ 'a/SKILL.md': '---\n...', 'a/run.sh': { content: '#!/bin/sh\n', executable: true } });
//   await repo.commit({ ...tree, 'a/link': { symlink: 'SKILL.md' }, 'a/sub': { submodule: SHA } });
//   await repo.commit(tree, { branch: 'dev' });                  // a commit on another branch (created)
//   await repo.tag('v1', first);                                  // a light tag
//   await repo.tag('v2', first, 'release two');                   // an annotated tag (returns the tag object id)
//   await repo.setBranch('main', first);                          // move a branch (any commit, even backwards)
//   await repo.setHead('dev');                                    // what HEAD names
//   await repo.revParse('refs/tags/v2^{}');
//   server.requireAuth('private', 'the-token');                   // Basic auth, the token as password, any user
//   server.requests                                               // every request: {method, path, authorization?}
//   await server.stop();                                          // closes sockets, kills running backends, removes the folder
//
// Special paths (no repository behind them):
//   /redirect/<host:port>/<rest>  302 to http://<host:port>/<rest> (query kept); a Location on another origin
//   /hang/<anything>              accepted and never answered (until stop() or the client goes)
//   /stall/<name>.git/...         the refs of <name> are advertised (GET), its fetches (POST) never answered
//   /echo-auth/<name>.git/...     refs advertised (GET); a fetch (POST) gets a git error quoting the
//                                 request's Authorization header and its decoded password (a remote
//                                 that repeats credentials back)
//
// `commit(tree)` writes the whole tree of the new commit (not a change on top of the last one):
// spread the previous tree to keep files. Its parent is the branch's current tip, if any. Every
// served repository has uploadpack.allowAnySHA1InWant set, and uploadpack.allowFilter unless
// createRepo(name, { allowFilter: false }).
import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const GIT_HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

/** A file's content (mode 100644), or a file with its mode, a symbolic link or a submodule (gitlink). */
export type GitTestEntry =
  string | Buffer | { content: string | Buffer; executable?: boolean } | { symlink: string } | { submodule: string };

export interface GitTestRequest {
  method: string;
  /** The path and query as the client sent them. */
  path: string;
  authorization?: string;
  /** The answer's status and the body bytes git http-backend sent, once it is sent. */
  status?: number;
  bytes?: number;
  /** Its connection closed (answered, or the client went). */
  closed?: boolean;
}

/** The bytes of a Git LFS pointer file (what a repository stores in place of an LFS-tracked file). */
export function lfsPointer(size = 12345): string {
  return `version https://git-lfs.github.com/spec/v1\noid sha256:${'4d'.repeat(32)}\nsize ${size}\n`;
}

/** `git` with no system or global configuration and a fixed identity and clock. */
function git(
  args: string[],
  options: { cwd?: string; input?: string | Buffer; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      {
        cwd: options.cwd,
        encoding: 'buffer',
        maxBuffer: 64 * 1024 * 1024,
        env: {
          PATH: process.env.PATH,
          HOME: options.cwd ?? tmpdir(),
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_AUTHOR_NAME: 'Test',
          GIT_AUTHOR_EMAIL: 'test@example.com',
          GIT_COMMITTER_NAME: 'Test',
          GIT_COMMITTER_EMAIL: 'test@example.com',
          GIT_AUTHOR_DATE: '1700000000 +0000',
          GIT_COMMITTER_DATE: '1700000000 +0000',
          ...options.env,
        },
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`git ${args.join(' ')}: ${error.message} ${stderr.toString()}`));
        else resolve(stdout.toString().trim());
      },
    );
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

export class GitTestRepo {
  private commits = 0;

  constructor(
    /** The bare repository's folder. */
    readonly dir: string,
    readonly url: string,
  ) {}

  /** Commits `tree` (path → entry) on `branch` (default `main`), after its current tip; returns the commit id. */
  async commit(
    tree: Record<string, GitTestEntry>,
    options: { branch?: string; message?: string } = {},
  ): Promise<string> {
    const branch = options.branch ?? 'main';
    const index = join(this.dir, `test-index-${++this.commits}`);
    const env = { GIT_INDEX_FILE: index };
    try {
      for (const [path, entry] of Object.entries(tree)) {
        let mode = '100644';
        let id: string;
        if (typeof entry === 'string' || Buffer.isBuffer(entry)) {
          id = await git(['hash-object', '-w', '--stdin'], { cwd: this.dir, input: entry });
        } else if ('content' in entry) {
          if (entry.executable) mode = '100755';
          id = await git(['hash-object', '-w', '--stdin'], { cwd: this.dir, input: entry.content });
        } else if ('symlink' in entry) {
          mode = '120000';
          id = await git(['hash-object', '-w', '--stdin'], { cwd: this.dir, input: entry.symlink });
        } else {
          mode = '160000';
          id = entry.submodule;
        }
        await git(['update-index', '--add', '--cacheinfo', `${mode},${id},${path}`], { cwd: this.dir, env });
      }
      const treeId = await git(['write-tree'], { cwd: this.dir, env });
      const parent = await this.tip(branch);
      const message = options.message ?? `commit ${this.commits}`;
      const commit = await git(['commit-tree', treeId, ...(parent ? ['-p', parent] : []), '-m', message], {
        cwd: this.dir,
      });
      await this.setBranch(branch, commit);
      return commit;
    } finally {
      await rm(index, { force: true });
    }
  }

  /** A light tag, or an annotated one when `message` is given (then the tag object's id is returned). */
  async tag(name: string, commit: string, message?: string): Promise<string> {
    if (message === undefined) {
      await git(['update-ref', `refs/tags/${name}`, commit], { cwd: this.dir });
      return commit;
    }
    await git(['tag', '-a', '-m', message, name, commit], { cwd: this.dir });
    return this.revParse(`refs/tags/${name}`);
  }

  /** Points `branch` at `commit` (creating it, or moving it anywhere). */
  async setBranch(branch: string, commit: string): Promise<void> {
    await git(['update-ref', `refs/heads/${branch}`, commit], { cwd: this.dir });
  }

  /** Makes HEAD name `branch`. */
  async setHead(branch: string): Promise<void> {
    await git(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { cwd: this.dir });
  }

  revParse(rev: string): Promise<string> {
    return git(['rev-parse', '--verify', rev], { cwd: this.dir });
  }

  /** The id of `path`'s tree at `commit` (`''` for the root). */
  treeId(commit: string, path: string): Promise<string> {
    return this.revParse(`${commit}:${path}`);
  }

  private async tip(branch: string): Promise<string | null> {
    try {
      return await git(['rev-parse', '--verify', '-q', `refs/heads/${branch}`], { cwd: this.dir });
    } catch {
      return null;
    }
  }
}

export class GitTestServer {
  readonly requests: GitTestRequest[] = [];
  private readonly auth = new Map<string, string>();
  private readonly sockets = new Set<Socket>();
  private readonly backends = new Set<ChildProcess>();

  private constructor(
    private readonly server: Server,
    /** The folder holding the served repositories (GIT_PROJECT_ROOT). */
    readonly root: string,
    /** `http://127.0.0.1:<port>` */
    readonly url: string,
  ) {}

  static async start(): Promise<GitTestServer> {
    const root = await mkdtemp(join(tmpdir(), 'git-test-server-'));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const git = new GitTestServer(server, root, `http://127.0.0.1:${port}`);
    server.on('connection', (socket) => {
      git.sockets.add(socket);
      socket.on('close', () => git.sockets.delete(socket));
    });
    server.on('request', (req, res) => git.handle(req, res));
    return git;
  }

  /** `127.0.0.1:<port>`, as GIT_ALLOWED_HOSTS names it (with `http://` in front). */
  get host(): string {
    return this.url.slice('http://'.length);
  }

  /** The URL a client clones `name` from: `<url>/<name>.git`. */
  repoUrl(name: string): string {
    return `${this.url}/${name}.git`;
  }

  /** A URL on this server that answers 302 to the same path on `target` (an origin such as `http://host:port`). */
  redirectUrl(target: string, name: string): string {
    return `${this.url}/redirect/${target.replace(/^https?:\/\//, '')}/${name}.git`;
  }

  /** A URL on this server that is accepted and never answered. */
  hangUrl(name = 'never'): string {
    return `${this.url}/hang/${name}.git`;
  }

  /** Repository `name` whose refs are advertised but whose fetches are never answered. */
  stallUrl(name: string): string {
    return `${this.url}/stall/${name}.git`;
  }

  /** Repository `name` whose fetches fail with a message quoting the credentials they carried. */
  echoAuthUrl(name: string): string {
    return `${this.url}/echo-auth/${name}.git`;
  }

  /**
   * A new empty bare repository served at repoUrl(name), HEAD naming `main`; `allowFilter: false`
   * makes it a remote that cannot leave blobs out (a fetch with a filter gets them all).
   */
  async createRepo(name: string, options: { allowFilter?: boolean } = {}): Promise<GitTestRepo> {
    const dir = join(this.root, `${name}.git`);
    await git(['init', '--bare', '--quiet', '--initial-branch=main', dir]);
    await git(['config', 'uploadpack.allowFilter', String(options.allowFilter ?? true)], { cwd: dir });
    await git(['config', 'uploadpack.allowAnySHA1InWant', 'true'], { cwd: dir });
    return new GitTestRepo(dir, this.repoUrl(name));
  }

  /** Requests to repository `name` need HTTP Basic with `token` as the password (401 otherwise). */
  requireAuth(name: string, token: string): void {
    this.auth.set(`/${name}.git/`, token);
  }

  async stop(): Promise<void> {
    for (const child of this.backends) child.kill('SIGKILL');
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await rm(this.root, { recursive: true, force: true });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const target = req.url ?? '/';
    const record: GitTestRequest = {
      method: req.method ?? 'GET',
      path: target,
      authorization: req.headers.authorization,
    };
    this.requests.push(record);
    let bytes = 0;
    const write = res.write.bind(res) as (chunk: Buffer) => boolean;
    res.write = ((chunk: Buffer) => {
      bytes += chunk.length;
      return write(chunk);
    }) as typeof res.write;
    res.on('finish', () => Object.assign(record, { status: res.statusCode, bytes }));
    res.on('close', () => (record.closed = true));
    const query = target.indexOf('?');
    const path = query < 0 ? target : target.slice(0, query);
    const search = query < 0 ? '' : target.slice(query + 1);

    if (path.startsWith('/hang/')) return; // never answered
    const special = /^\/(stall|echo-auth)(\/.*)$/.exec(path);
    if (special && req.method === 'POST') {
      if (special[1] === 'stall') return; // never answered
      const given = req.headers.authorization ?? 'none';
      const password = Buffer.from(given.replace(/^Basic /, ''), 'base64').toString();
      const text = `ERR seen ${given} ${password}\n`;
      const packet = `${(text.length + 4).toString(16).padStart(4, '0')}${text}`;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result' });
      res.end(packet);
      return;
    }
    if (special) return this.serve(req, res, special[2], search);
    const redirect = /^\/redirect\/([^/]+)(\/.*)$/.exec(path);
    if (redirect) {
      res.writeHead(302, { location: `http://${redirect[1]}${redirect[2]}${query < 0 ? '' : `?${search}`}` });
      res.end();
      return;
    }
    this.serve(req, res, path, search);
  }

  private serve(req: IncomingMessage, res: ServerResponse, path: string, search: string): void {
    for (const [prefix, token] of this.auth) {
      if (!path.startsWith(prefix)) continue;
      const given = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
      const password = given
        ? Buffer.from(given[1], 'base64')
            .toString()
            .replace(/^[^:]*:/, '')
        : null;
      if (password !== token) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' });
        res.end('authentication required\n');
        return;
      }
    }
    this.cgi(req, res, path, search);
  }

  /** git http-backend as CGI: request body to its stdin, its headers (and `Status:`) then body back. */
  private cgi(req: IncomingMessage, res: ServerResponse, path: string, search: string): void {
    const backend = spawn(GIT_HTTP_BACKEND, [], {
      stdio: ['pipe', 'pipe', 'ignore'],
      env: {
        PATH: process.env.PATH,
        HOME: this.root,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_PROJECT_ROOT: this.root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(path),
        QUERY_STRING: search,
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
        GIT_PROTOCOL: typeof req.headers['git-protocol'] === 'string' ? req.headers['git-protocol'] : '',
        REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
        REMOTE_USER: req.headers.authorization ? 'git' : '',
      },
    });
    this.backends.add(backend);
    backend.on('close', () => this.backends.delete(backend));
    backend.on('error', () => res.destroy());
    req.pipe(backend.stdin);
    backend.stdin.on('error', () => undefined);
    res.on('close', () => {
      if (!res.writableFinished) backend.kill('SIGKILL');
    });

    let head = Buffer.alloc(0);
    let headersDone = false;
    backend.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n') >= 0 ? head.indexOf('\r\n\r\n') : head.indexOf('\n\n');
      if (end < 0) return;
      const separator = head[end] === 0x0d ? 4 : 2;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (name === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      headersDone = true;
      res.writeHead(status, headers);
      const rest = head.subarray(end + separator);
      if (rest.length > 0) res.write(rest);
    });
    backend.stdout.on('end', () => {
      if (!headersDone) res.writeHead(502);
      res.end();
    });
  }
}
