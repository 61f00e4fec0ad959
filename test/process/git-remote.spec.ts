// Reading folders of remote repositories with the git program, against a real git server on
// loopback (git http-backend): refs, folders and their tree ids, what a folder may hold that a
// package may not, redirects, credentials, and the limits (bytes, time), with nothing left behind.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError } from '../../src/common/errors/domain-error';
import { GitRemote } from '../../src/git-sources/git/git-remote';
import type { GitLocation, GitSettings } from '../../src/git-sources/git/git-remote.types';
import { checkGitLocation } from '../../src/git-sources/git/git-rules';
import { GitTestRepo, GitTestServer, lfsPointer } from '../support/git-server';

const MiB = 1024 * 1024;
const TOKEN = 'tok-5f1e9c0a-secret';

let server: GitTestServer;
let other: GitTestServer;
let tmpRoot: string;
let settings: GitSettings;

function remote(over: Partial<GitSettings> = {}): GitRemote {
  return new GitRemote({ ...settings, ...over }, { tmpRoot });
}

function at(url: string, ref?: string, path?: string, allowed = settings.allowedHosts): GitLocation {
  return checkGitLocation({ url, ref, path }, allowed);
}

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(error)}`);
  return error;
}

/** Processes whose command line holds `text` (git and its helpers name the remote's URL). */
async function processesNaming(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`).catch(() => Buffer.alloc(0));
    if (cmdline.includes(text)) found.push(`${pid}: ${cmdline.toString().replace(/\0/g, ' ')}`);
  }
  return found;
}

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

beforeAll(async () => {
  [server, other] = await Promise.all([GitTestServer.start(), GitTestServer.start()]);
  tmpRoot = await mkdtemp(join(tmpdir(), 'git-remote-spec-'));
  settings = {
    allowedHosts: [`http://${server.host}`, `http://${other.host}`],
    credentials: new Map(),
    timeoutMs: 60_000,
    maxFetchBytes: 8 * MiB,
  };
});

afterAll(async () => {
  await Promise.all([server?.stop(), other?.stop()]);
  if (tmpRoot) await rm(tmpRoot, { recursive: true, force: true });
});

afterEach(async () => {
  // Every operation removes its temporary repository, whatever happened.
  expect(await readdir(tmpRoot)).toEqual([]);
});

describe('refs', () => {
  let repo: GitTestRepo;
  let first: string;
  let second: string;
  let devTip: string;

  beforeAll(async () => {
    repo = await server.createRepo('refs');
    first = await repo.commit({ 'SKILL.md': 'one' });
    await repo.tag('v1', first);
    await repo.tag('v2', first, 'release two');
    second = await repo.commit({ 'SKILL.md': 'two' });
    devTip = await repo.commit({ 'SKILL.md': 'dev' }, { branch: 'dev' });
  });

  it('resolve a branch as it moves, light and annotated tags to their commit, a commit id as is, and HEAD', async () => {
    const git = remote();
    expect(await git.resolve(at(repo.url, 'main'))).toBe(second);
    expect(await git.resolve(at(repo.url, 'refs/heads/main'))).toBe(second);
    expect(await git.resolve(at(repo.url))).toBe(second);
    expect(await git.resolve(at(repo.url, 'v1'))).toBe(first);
    const annotated = await repo.revParse('refs/tags/v2');
    expect(annotated).not.toBe(first);
    expect(await git.resolve(at(repo.url, 'v2'))).toBe(first);
    expect(await git.resolve(at(repo.url, first))).toBe(first);
    expect(await git.resolve(at(repo.url, 'dev'))).toBe(devTip);

    await repo.setBranch('main', first);
    expect(await git.resolve(at(repo.url, 'main'))).toBe(first);
    await repo.setHead('dev');
    expect(await git.resolve(at(repo.url, 'HEAD'))).toBe(devTip);
    await repo.setHead('main');
    await repo.setBranch('main', second);
  });

  it('an unknown branch, and a commit id the remote does not have, are GIT_REF_NOT_FOUND', async () => {
    const git = remote();
    expect((await failure(git.resolve(at(repo.url, 'no-such-branch')))).code).toBe('GIT_REF_NOT_FOUND');
    const unknown = 'deadbeef'.repeat(5);
    // A full id is taken as given; fetching it is what finds it missing.
    expect(await git.resolve(at(repo.url, unknown))).toBe(unknown);
    expect((await failure(git.readFolder(at(repo.url, unknown), unknown))).code).toBe('GIT_REF_NOT_FOUND');
    expect((await failure(git.treeId(at(repo.url, unknown), unknown))).code).toBe('GIT_REF_NOT_FOUND');
  });

  it('without the git program the import fails, and leaves nothing behind', async () => {
    const missing = new GitRemote(settings, { tmpRoot, git: join(tmpRoot, 'no-such-git') });
    const error = await failure(missing.resolve(at(repo.url, 'main')));
    expect(error.code).toBe('GIT_FETCH_FAILED');
    expect(error.message).toContain('git could not be started');
  });

  it('a repository that does not exist is GIT_FETCH_FAILED with the remote status', async () => {
    const error = await failure(remote().resolve(at(server.repoUrl('missing'))));
    expect(error.code).toBe('GIT_FETCH_FAILED');
    expect(error.details).toEqual({ status: 404 });
  });
});

describe('folders', () => {
  let repo: GitTestRepo;
  const tree = {
    'README.md': 'a monorepo',
    'skills/alpha/SKILL.md': '---\nname: alpha\n---\n',
    'skills/alpha/scripts/run.sh': { content: '#!/bin/sh\necho hi\n', executable: true },
    'skills/beta/SKILL.md': '---\nname: beta\n---\n',
  };
  let first: string;
  let second: string;

  beforeAll(async () => {
    repo = await server.createRepo('mono');
    first = await repo.commit(tree);
    second = await repo.commit({ ...tree, 'skills/beta/SKILL.md': '---\nname: beta\n---\nchanged\n' });
  });

  it('read one folder of a monorepo with modes, and its tree id stays when another folder moves', async () => {
    const git = remote();
    const alpha = await git.readFolder(at(repo.url, 'main', 'skills/alpha/'), second);
    expect(alpha).toEqual({
      commit: second,
      treeId: await repo.treeId(second, 'skills/alpha'),
      files: [
        { path: 'SKILL.md', mode: 0o100644, bytes: Buffer.from('---\nname: alpha\n---\n') },
        { path: 'scripts/run.sh', mode: 0o100755, bytes: Buffer.from('#!/bin/sh\necho hi\n') },
      ],
      symlinks: [],
      submodules: [],
      lfsPointers: [],
    });
    expect(await git.treeId(at(repo.url, 'main', 'skills/alpha'), first)).toBe(alpha.treeId);
    const betaBefore = await git.treeId(at(repo.url, 'main', 'skills/beta'), first);
    const betaAfter = await git.treeId(at(repo.url, 'main', 'skills/beta'), second);
    expect(betaBefore).not.toBe(betaAfter);
    expect(betaAfter).toBe(await repo.treeId(second, 'skills/beta'));
  });

  it('read the root with paths from the root', async () => {
    const root = await remote().readFolder(at(repo.url), first);
    expect(root.treeId).toBe(await repo.treeId(first, ''));
    expect(root.files.map((file) => file.path)).toEqual([
      'README.md',
      'skills/alpha/SKILL.md',
      'skills/alpha/scripts/run.sh',
      'skills/beta/SKILL.md',
    ]);
  });

  it('a missing path, or one naming a file, is GIT_PATH_NOT_FOUND', async () => {
    const git = remote();
    for (const path of ['skills/gamma', 'skills/alpha/SKILL.md', 'skills/alph']) {
      expect((await failure(git.readFolder(at(repo.url, 'main', path), first))).code).toBe('GIT_PATH_NOT_FOUND');
      expect((await failure(git.treeId(at(repo.url, 'main', path), first))).code).toBe('GIT_PATH_NOT_FOUND');
    }
  });

  it('read the same from a remote that cannot leave blobs out', async () => {
    const plain = await server.createRepo('plain', { allowFilter: false });
    const commit = await plain.commit(tree);
    const git = remote();
    const alpha = await git.readFolder(at(plain.url, 'main', 'skills/alpha'), commit);
    expect(alpha.files.map((file) => [file.path, file.mode, file.bytes.toString()])).toEqual([
      ['SKILL.md', 0o100644, '---\nname: alpha\n---\n'],
      ['scripts/run.sh', 0o100755, '#!/bin/sh\necho hi\n'],
    ]);
    expect(await git.treeId(at(plain.url, 'main', 'skills/alpha'), commit)).toBe(alpha.treeId);
  });

  it('a host no longer allowed is GIT_HOST_NOT_ALLOWED before anything is asked of it', async () => {
    const before = server.requests.length;
    const location = at(repo.url, 'main', 'skills/alpha');
    const error = await failure(remote({ allowedHosts: [`http://${other.host}`] }).treeId(location, first));
    expect(error.code).toBe('GIT_HOST_NOT_ALLOWED');
    expect(server.requests.length).toBe(before);
  });

  it('report symbolic links, submodules and Git LFS pointers', async () => {
    const odd = await server.createRepo('odd');
    const commit = await odd.commit({
      'skill/SKILL.md': 'x',
      'skill/link.md': { symlink: 'SKILL.md' },
      'skill/vendor/lib': { submodule: 'ab'.repeat(20) },
      'skill/model.bin': lfsPointer(),
    });
    const folder = await remote().readFolder(at(odd.url, 'main', 'skill'), commit);
    expect(folder.symlinks).toEqual(['link.md']);
    expect(folder.submodules).toEqual(['vendor/lib']);
    expect(folder.lfsPointers).toEqual(['model.bin']);
    expect(folder.files.map((file) => file.path)).toEqual(['SKILL.md', 'model.bin']);
  });
});

describe('limits', () => {
  let repo: GitTestRepo;
  let commit: string;

  beforeAll(async () => {
    repo = await server.createRepo('large');
    commit = await repo.commit({
      'small/SKILL.md': 'small',
      'noise/data.bin': randomBytes(3 * MiB),
      'zeros/data.bin': Buffer.alloc(8 * MiB),
    });
  });

  it('a fetch past maxFetchBytes is stopped: GIT_FETCH_TOO_LARGE', async () => {
    const git = remote({ maxFetchBytes: MiB });
    expect((await failure(git.readFolder(at(repo.url, 'main', 'noise'), commit))).code).toBe('GIT_FETCH_TOO_LARGE');
    // The drift check fetches trees only: the large blobs never come.
    expect(await git.treeId(at(repo.url, 'main', 'noise'), commit)).toBe(await repo.treeId(commit, 'noise'));
    // Another folder of the same commit is read without them.
    expect((await git.readFolder(at(repo.url, 'main', 'small'), commit)).files).toHaveLength(1);
  });

  it('files that would expand past maxFolderBytes are refused before they are read', async () => {
    const error = await failure(remote({ maxFolderBytes: MiB }).readFolder(at(repo.url, 'main', 'zeros'), commit));
    expect(error.code).toBe('GIT_FETCH_TOO_LARGE');
    expect(error.message).toContain(`${8 * MiB} bytes`);
  });

  it('a folder of more entries than maxFolderFiles is refused before its files are fetched', async () => {
    const error = await failure(remote({ maxFolderFiles: 1 }).readFolder(at(repo.url, 'main'), commit));
    expect(error.code).toBe('GIT_FETCH_TOO_LARGE');
    expect(error.message).toContain('more than 1 entries');
  });

  it('a remote that never answers is GIT_TIMEOUT at the deadline', async () => {
    const error = await failure(remote({ timeoutMs: 1000 }).resolve(at(server.hangUrl())));
    expect(error.code).toBe('GIT_TIMEOUT');
    expect(error.details).toEqual({ timeout_ms: 1000 });
  });

  it('a fetch that never ends is killed at the deadline or when the caller gives up, and no git is left running', async () => {
    const stalled = server.stallUrl('large');
    const deadline = failure(remote({ timeoutMs: 3000 }).readFolder(at(stalled, 'main', 'small'), commit));
    let settled = false;
    void deadline.then(() => (settled = true));
    let seen = false;
    await until(async () => (seen = (await processesNaming(stalled)).length > 0) || settled);
    expect(seen).toBe(true);
    expect((await deadline).code).toBe('GIT_TIMEOUT');
    expect(await processesNaming(stalled)).toEqual([]);

    const caller = new AbortController();
    const cancelled = failure(remote().readFolder(at(stalled, 'main', 'small'), commit, caller.signal));
    await until(async () => (await processesNaming(stalled)).length > 0);
    caller.abort();
    expect((await cancelled).code).toBe('GIT_TIMEOUT');
    expect(await processesNaming(stalled)).toEqual([]);
  });
});

describe('redirects and credentials', () => {
  let commit: string;
  let elsewhere: GitTestRepo;

  beforeAll(async () => {
    elsewhere = await other.createRepo('moved');
    commit = await elsewhere.commit({ 'SKILL.md': 'moved' });
    const locked = await server.createRepo('locked');
    await locked.commit({ 'SKILL.md': 'locked' });
    server.requireAuth('locked', TOKEN);
  });

  it('a redirect to a host not allowed is GIT_HOST_NOT_ALLOWED and that host is never asked', async () => {
    const onlyServer = [`http://${server.host}`];
    const before = other.requests.length;
    const url = server.redirectUrl(other.url, 'moved');
    const error = await failure(remote({ allowedHosts: onlyServer }).resolve(at(url, 'main', '', onlyServer)));
    expect(error.code).toBe('GIT_HOST_NOT_ALLOWED');
    expect(other.requests.length).toBe(before);
  });

  it('a redirect to an allowed host is followed, and git reads from there', async () => {
    const url = server.redirectUrl(other.url, 'moved');
    const git = remote();
    expect(await git.resolve(at(url, 'main'))).toBe(commit);
    const folder = await git.readFolder(at(url, 'main'), commit);
    expect(folder.files).toEqual([{ path: 'SKILL.md', mode: 0o100644, bytes: Buffer.from('moved') }]);
  });

  it('three redirects are followed, a fourth is GIT_FETCH_FAILED', async () => {
    const hops = (count: number): string => {
      let url = other.repoUrl('moved');
      for (let i = 0; i < count; i++) url = `${server.url}/redirect/${url.replace(/^http:\/\//, '')}`;
      return url;
    };
    expect(await remote().resolve(at(hops(3), 'main'))).toBe(commit);
    const error = await failure(remote().resolve(at(hops(4), 'main')));
    expect(error.code).toBe('GIT_FETCH_FAILED');
    expect(error.message).toContain('more than 3 times');
  });

  it('a token goes to its host only, and never comes back in an error', async () => {
    const git = remote({ credentials: new Map([[server.host, TOKEN]]) });
    const withoutToken = remote();
    const url = server.repoUrl('locked');
    const denied = await failure(withoutToken.resolve(at(url)));
    expect(denied.code).toBe('GIT_FETCH_FAILED');
    expect(denied.details).toEqual({ status: 401 });

    const start = server.requests.length;
    const startOther = other.requests.length;
    const head = await git.resolve(at(url));
    expect((await git.readFolder(at(url), head)).files.map((file) => file.path)).toEqual(['SKILL.md']);
    // Through a redirect from the host with a token to one without: the second host sees none.
    expect(await git.resolve(at(server.redirectUrl(other.url, 'moved'), 'main'))).toBe(commit);
    const expected = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
    const toServer = server.requests.slice(start);
    expect(toServer.length).toBeGreaterThan(3);
    expect(toServer.every((request) => request.authorization === expected)).toBe(true);
    const toOther = other.requests.slice(startOther);
    expect(toOther.length).toBeGreaterThan(0);
    expect(toOther.every((request) => request.authorization === undefined)).toBe(true);

    // A remote that repeats the credentials back: the error says what it said, without them.
    const echoed = await failure(git.resolve(at(server.echoAuthUrl('refs'), 'main')));
    expect(echoed.code).toBe('GIT_FETCH_FAILED');
    const text = JSON.stringify({ message: echoed.message, details: echoed.details });
    expect(text).toContain('seen');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(expected.slice('Basic '.length));
  });
});
