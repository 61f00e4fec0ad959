// The sandbox client (docs/sandbox-client.md#commands) as a sandbox runs it: the built `skill-resolver` command in a
// child process, with a task token, against the real app on a real port, through a proxy that
// counts every request and can hold, cut or tamper with an answer.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientError, sync as syncLibrary } from '../../src/client';
import { cacheScope } from '../../src/client/package-cache';
import {
  cacheEntries,
  cliEnv,
  entryIsSound,
  finished,
  leftovers,
  Proxy,
  runBounded,
  runCli,
  sha256Hex,
  spawnCli,
  StubAnswer,
  StubServer,
  tree,
} from '../support/client-harness';
import { withClient } from '../support/database';
import { Scenario } from '../support/scenario';
import { publish, publishVersion, replaceStoredBytes } from '../support/skills';
import { as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';
import { buildZip, ZipEntryInput } from '../support/zip-builder';

const REPO = join(__dirname, '..', '..');

/**
 * The characters a terminal may act on, found in `text` other than the newlines ending lines: C0
 * but LF, DEL, C1, the bidi controls and the line and paragraph separators.
 */
function rawControls(text: string): string[] {
  const found: string[] = [];
  for (const c of text) {
    const code = c.charCodeAt(0);
    const control =
      (code < 0x20 && code !== 0x0a) ||
      (code >= 0x7f && code <= 0x9f) ||
      [0x61c, 0x200e, 0x200f, 0x2028, 0x2029].includes(code) ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069);
    if (control) found.push(`U+${code.toString(16).padStart(4, '0')}`);
  }
  return found;
}

/** What a hostile server puts in a message: clear the screen, set the window title, forge a line, reverse text. */
const HOSTILE = '\u001b[2J\u001b]0;pwned\u0007denied\r\nskill-resolver: sync ok \u009b31m\u202egnp.exe\u2028\u007f';

function skillPackage(name: string, text: string, extra: ZipEntryInput[] = []): Buffer {
  return buildZip([
    { path: `${name}/SKILL.md`, data: `---\nname: ${name}\ndescription: ${text}\n---\n# ${name}\n${text}\n` },
    ...extra,
  ]);
}

describe('skill-resolver, the sandbox client (docs/sandbox-client.md)', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;
  let proxy: Proxy;
  let url: string;
  let work: string;
  let home: string;
  const skills: Record<string, any> = {};
  let ghost: any;
  let task: any;
  let token: string;

  /** The DIR and cache most scenarios share, as one sandbox host would. */
  let dir: string;
  let cache: string;

  async function newSkill(name: string, text: string, extra: ZipEntryInput[] = []): Promise<any> {
    const res = await publish(t, alice, skillPackage(name, text, extra));
    expect(res.status).toBe(201);
    skills[name] = res.body;
    return res.body;
  }

  async function newVersion(name: string, text: string, extra: ZipEntryInput[] = []): Promise<any> {
    const res = await publishVersion(t, alice, skills[name].id, skillPackage(name, text, extra));
    expect(res.status).toBe(201);
    skills[name] = res.body;
    return res.body;
  }

  async function mint(taskId: number): Promise<string> {
    const res = await t.http.post(`/api/tasks/${taskId}/tokens`).set(as(alice.key)).send({});
    expect(res.status).toBe(201);
    return res.body.token;
  }

  /** A task whose one ghost lists `names`; returns it with a token for it. */
  async function taskWith(
    label: string,
    names: string[],
    preload: string[] = [],
  ): Promise<{ task: any; token: string; ghost: any }> {
    const made = await s.teamWithGhost(alice, label, names, preload);
    const created = await s.task(alice, { team_id: made.team.id });
    return { task: created, token: await mint(created.id), ghost: made.ghost };
  }

  async function manifest(name: string): Promise<Array<{ path: string; size: number; sha256: string; mode: string }>> {
    const res = await t.http.get(`/api/skills/${skills[name].id}/manifest`).set(as(alice.key));
    expect(res.status).toBe(200);
    return res.body.files;
  }

  function env(extra: Record<string, string> = {}, tok = token): Record<string, string> {
    return cliEnv(home, { SKILL_RESOLVER_URL: url, SKILL_RESOLVER_TOKEN: tok, ...extra });
  }

  function sync(target: string, cacheDir: string, args: string[] = [], taskId = task.id, tok = token) {
    return runCli(
      ['sync', '--task', String(taskId), '--dir', target, '--cache', cacheDir, '--json', ...args],
      env({}, tok),
    );
  }

  function lockOf(target: string): any {
    return JSON.parse(readFileSync(join(target, '.skill-resolver.lock.json'), 'utf8'));
  }

  /** What DIR/<name> must hold: the manifest's files, with 0755 or 0644. */
  async function expectMaterialised(target: string, name: string): Promise<void> {
    const files = await manifest(name);
    expect(tree(join(target, name))).toEqual(
      files
        .map((f) => ({ path: f.path, sha256: f.sha256, mode: f.mode === '755' ? 0o755 : 0o644 }))
        .sort((a, b) => (a.path < b.path ? -1 : 1)),
    );
  }

  function entryOf(cacheDir: string, name: string): string {
    const hex = skills[name].latest_version.content_hash.slice(7);
    const found = cacheEntries(cacheDir).entries.find((e) => e.endsWith(`${hex}.zip`));
    if (!found) throw new Error(`no cache entry for ${name}`);
    return join(cacheDir, found);
  }

  const fresh = (label: string): string => mkdtempSync(join(work, `${label}-`));

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    await new Promise<void>((done) => t.app.getHttpServer().listen(0, '127.0.0.1', done));
    proxy = new Proxy((t.app.getHttpServer().address() as AddressInfo).port);
    url = await proxy.start();
    work = mkdtempSync(join(tmpdir(), 'sr-client-'));
    home = fresh('home');
    dir = join(work, 'skills');
    cache = join(work, 'cache');
    alice = await createUser(t, 'alice');
    await newSkill('alpha', 'Runs a script.', [
      { path: 'alpha/scripts/run.sh', data: '#!/bin/sh\necho alpha\n', mode: 0o100755 },
      { path: 'alpha/references/guide.md', data: '# Guide\n'.repeat(200) },
    ]);
    await newSkill('beta', 'Writes documents.', [{ path: 'beta/template.txt', data: randomBytes(4096) }]);
    await newSkill('gamma', 'Reads logs.');
    ({ task, token, ghost } = await taskWith('sandbox', ['alpha', 'beta', 'gamma'], ['alpha']));
  });
  afterAll(async () => {
    await proxy?.close();
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });
  beforeEach(() => proxy.reset());

  it('usage errors exit 2 with the reason, before any request', async () => {
    const d = fresh('usage');
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [[], env(), /No command given/],
      [['fetch'], env(), /Unknown command "fetch"/],
      [['sync', '--dir', d], env(), /--task/],
      [['sync', '--task', 'seven', '--dir', d], env(), /--task must be a whole number/],
      [['sync', '--task', '0', '--dir', d], env(), /positive integer/],
      [['sync', '--task', String(task.id)], env(), /--dir/],
      [['sync', '--task', String(task.id), '--dir', d, '--frobnicate'], env(), /frobnicate/],
      [['sync', '--task', String(task.id), '--dir', d, '--cache-max-bytes', '12XB'], env(), /--cache-max-bytes/],
      [
        ['sync', '--task', String(task.id), '--dir', d],
        cliEnv(home, { SKILL_RESOLVER_URL: url }),
        /SKILL_RESOLVER_TOKEN/,
      ],
      [
        ['sync', '--task', String(task.id), '--dir', d],
        cliEnv(home, { SKILL_RESOLVER_TOKEN: token }),
        /SKILL_RESOLVER_URL/,
      ],
      [['sync', '--task', String(task.id), '--dir', d, '--url', 'ftp://x'], env(), /http/],
      [['verify'], env(), /--dir/],
      [['sync', '--task', String(task.id), '--dir', d, '--timeout', '0'], env(), /--timeout must be a positive number/],
      [['sync', '--task', String(task.id), '--dir', d, '--timeout', 'soon'], env(), /--timeout must be a positive/],
      [
        ['sync', '--task', String(task.id), '--dir', d],
        env({ SKILL_RESOLVER_SLOW_WINDOW: '-1' }),
        /SKILL_RESOLVER_SLOW_WINDOW must be a positive number of seconds/,
      ],
      [
        ['sync', '--task', String(task.id), '--dir', d],
        env({ SKILL_RESOLVER_SLOW_RATE: 'fast' }),
        /SKILL_RESOLVER_SLOW_RATE must be a whole number of bytes/,
      ],
    ];
    for (const [args, environment, message] of cases) {
      const run = await runCli(args, environment);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain('Usage:');
      expect(run.stderr).not.toContain(token);
    }
    expect(proxy.log).toEqual([]);
  });

  it('a wrong token exits 1 with a clear message that never holds the token; so does a task it may not read', async () => {
    const wrong = `srt_${randomBytes(32).toString('base64url')}`;
    const refused = await sync(fresh('wrong'), cache, [], task.id, wrong);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused the credentials \(401 \(UNAUTHENTICATED/);
    expect(refused.stderr + refused.stdout).not.toContain(wrong);
    const other = await s.task(alice, { team_id: task.team_id });
    const elsewhere = await sync(fresh('elsewhere'), cache, [], other.id);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toMatch(
      new RegExp(`task ${other.id} does not exist or these credentials may not read it`),
    );
    expect(elsewhere.stderr).not.toContain(token);
    const unreachable = await runCli(
      ['sync', '--task', String(task.id), '--dir', fresh('down'), '--url', 'http://127.0.0.1:9'],
      env(),
    );
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/Cannot reach the service at http:\/\/127.0.0.1:9: ECONNREFUSED/);
  });

  it('cold sync: every ref downloaded, checked and unpacked into DIR with its modes; the lock and the cache written', async () => {
    const run = await sync(dir, cache);
    expect(run.code).toBe(0);
    const resolved = await s.skills(alice, task.id);
    expect(run.json).toEqual({
      fingerprint: resolved.fingerprint,
      skills: ['alpha', 'beta', 'gamma'].map((name) => ({
        name,
        version: 1,
        content_hash: skills[name].latest_version.content_hash,
        from: 'download',
        status: 'active',
      })),
      unresolved: [],
      requests: 4,
      retries: 0,
      bytes_downloaded: proxy.downloads().reduce((sum, r) => sum + r.bytes, 0),
      failed: [],
    });
    expect(proxy.log.map((r) => `${r.path} ${r.status}`).sort()).toEqual(
      [
        `/api/tasks/${task.id}/skills 200`,
        ...['alpha', 'beta', 'gamma'].map((n) => `/api/skills/${skills[n].id}/download?version=1 200`),
      ].sort(),
    );
    expect(run.stderr).toMatch(/\[3\/3\] \w+ v1 from download/);
    // Each skill's line gives its own package's size, not the running total.
    const kib = (bytes: number): string => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`);
    for (const name of ['alpha', 'beta', 'gamma']) {
      const fetched = proxy.downloads().find((r) => r.path.startsWith(`/api/skills/${skills[name].id}/download`))!;
      expect(run.stderr).toMatch(new RegExp(`\\] ${name} v1 from download \\(${kib(fetched.bytes)}\\)\n`));
    }
    for (const name of ['alpha', 'beta', 'gamma']) await expectMaterialised(dir, name);
    expect(statSync(join(dir, 'alpha', 'scripts', 'run.sh')).mode & 0o777).toBe(0o755);

    const lock = lockOf(dir);
    expect(lock).toEqual({
      url,
      task_id: task.id,
      preload_only: false,
      fingerprint: resolved.fingerprint,
      skills: Object.fromEntries(
        await Promise.all(
          ['alpha', 'beta', 'gamma'].map(async (name) => [
            name,
            {
              skill_id: skills[name].id,
              version: 1,
              content_hash: skills[name].latest_version.content_hash,
              files: await manifest(name),
              status: 'active',
            },
          ]),
        ),
      ),
      unresolved: [],
    });

    // The cache: one entry per package, folders 0700 and files 0600, nothing but entries left.
    const { entries, others } = cacheEntries(cache);
    expect(entries).toHaveLength(3);
    expect(others).toEqual([]);
    const modes = (path: string): void => {
      const info = statSync(path);
      if (info.isDirectory()) {
        expect({ path, mode: info.mode & 0o777 }).toEqual({ path, mode: 0o700 });
        for (const name of readdirSync(path)) modes(join(path, name));
      } else {
        expect({ path, mode: info.mode & 0o777 }).toEqual({ path, mode: 0o600 });
      }
    };
    modes(cache);
    for (const entry of entries) expect(entryIsSound(join(cache, entry))).toBe(true);
  });

  it('warm sync: exactly one request, answered 304, and no download', async () => {
    const run = await sync(dir, cache);
    expect(run.code).toBe(0);
    expect(proxy.log).toEqual([{ method: 'GET', path: `/api/tasks/${task.id}/skills`, status: 304, bytes: 0 }]);
    expect(run.json).toEqual(expect.objectContaining({ requests: 1, bytes_downloaded: 0, failed: [] }));
    expect(run.json.skills.map((x: any) => x.from)).toEqual(['cache', 'cache', 'cache']);
    expect(run.stderr).toMatch(/unchanged since the last sync/);
  });

  it('the library does the same in-process', async () => {
    const result = await syncLibrary({ url, token, taskId: task.id, dir, cacheDir: cache });
    expect(result).toEqual(expect.objectContaining({ requests: 1, bytes_downloaded: 0, exitCode: 0, failed: [] }));
    expect(result.skills.map((x) => x.name)).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('one host cache for every identity: a second task with its own token downloads nothing the first one fetched', async () => {
    const second = await taskWith('second', ['alpha', 'beta', 'gamma']);
    expect(second.token).not.toBe(token);
    const target = fresh('second');
    const run = await sync(target, cache, [], second.task.id, second.token);
    expect(run.code).toBe(0);
    expect(proxy.log.map((r) => `${r.path} ${r.status}`)).toEqual([`/api/tasks/${second.task.id}/skills 200`]);
    expect(run.json).toEqual(expect.objectContaining({ requests: 1, bytes_downloaded: 0, failed: [] }));
    expect(run.json.skills.map((x: any) => x.from)).toEqual(['cache', 'cache', 'cache']);
    for (const name of ['alpha', 'beta', 'gamma']) await expectMaterialised(target, name);
    // One scope for the service, whatever the token.
    expect(new Set(cacheEntries(cache).entries.map((e) => e.split('/')[0])).size).toBe(1);
  });

  it('verify: 0 on a synced folder, 4 after an edit or an added file; a sync puts back a changed size from the cache', async () => {
    const verify = (): Promise<any> => runCli(['verify', '--dir', dir, '--json'], env());
    expect((await verify()).code).toBe(0);

    const skillMd = join(dir, 'beta', 'SKILL.md');
    const original = readFileSync(skillMd);
    const flipped = Buffer.from(original);
    flipped[0] ^= 0x20;
    writeFileSync(skillMd, flipped);
    let run = await verify();
    expect(run.code).toBe(4);
    expect(run.json.problems).toEqual([{ name: 'beta', path: 'SKILL.md', problem: 'sha256' }]);
    writeFileSync(skillMd, original);
    writeFileSync(join(dir, 'gamma', 'injected.sh'), 'echo injected\n');
    run = await verify();
    expect(run.code).toBe(4);
    expect(run.json.problems).toEqual([{ name: 'gamma', path: 'injected.sh', problem: 'extra' }]);
    rmSync(join(dir, 'gamma', 'injected.sh'));
    expect((await verify()).code).toBe(0);

    // A file whose size changed fails the warm check: the sync asks in full and rebuilds from the cache.
    appendFileSync(skillMd, 'more\n');
    expect((await verify()).stderr).toMatch(/beta\/SKILL\.md: size/);
    run = await sync(dir, cache);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/warning: beta differs from the lock \(SKILL\.md: size\); rebuilding it/);
    expect(proxy.log.map((r) => r.status)).toEqual([200]);
    expect(proxy.downloads()).toEqual([]);
    expect(run.json.skills.find((x: any) => x.name === 'beta').from).toBe('cache');
    expect((await verify()).code).toBe(0);
  });

  describe('a damaged folder is rebuilt, also when the service answers 304', () => {
    const verify = (): Promise<any> => runCli(['verify', '--dir', dir, '--json'], env());
    const damage: Array<[string, () => void, string]> = [
      [
        'a file added',
        () => writeFileSync(join(dir, 'gamma', 'injected.sh'), 'echo injected\n'),
        'gamma differs from the lock \\(injected\\.sh: extra\\)',
      ],
      [
        'an empty folder added',
        () => mkdirSync(join(dir, 'alpha', 'scripts', 'more')),
        'alpha differs from the lock \\(scripts/more: extra\\)',
      ],
      [
        'a file removed',
        () => rmSync(join(dir, 'alpha', 'references', 'guide.md')),
        'alpha differs from the lock \\(references/guide\\.md: missing\\)',
      ],
      [
        'an executable bit dropped',
        () => chmodSync(join(dir, 'alpha', 'scripts', 'run.sh'), 0o644),
        'alpha differs from the lock \\(scripts/run\\.sh: mode\\)',
      ],
      [
        'a file replaced by a symbolic link',
        () => {
          rmSync(join(dir, 'gamma', 'SKILL.md'));
          symlinkSync('/etc/hostname', join(dir, 'gamma', 'SKILL.md'));
        },
        'gamma differs from the lock \\(SKILL\\.md: not-a-file\\)',
      ],
      ['the whole folder removed', () => rmSync(join(dir, 'beta'), { recursive: true }), 'beta differs from the lock'],
    ];

    it.each(damage)('%s: the sync rebuilds it from the cache, in one request', async (_title, harm, message) => {
      const before = tree(dir);
      harm();
      expect((await verify()).code).toBe(4);
      const run = await sync(dir, cache);
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(new RegExp(`warning: ${message}.*; rebuilding it`));
      expect(proxy.log.map((r) => r.status)).toEqual([200]);
      expect(proxy.downloads()).toEqual([]);
      expect(tree(dir)).toEqual(before);
      expect((await verify()).code).toBe(0);
    });

    it('a byte changed, size kept: a plain sync trusts the sizes (304); `sync --verify` re-hashes and heals', async () => {
      const before = tree(dir);
      const skillMd = join(dir, 'beta', 'SKILL.md');
      const bytes = readFileSync(skillMd);
      bytes[3] ^= 0x20;
      writeFileSync(skillMd, bytes);
      expect((await verify()).json.problems).toEqual([{ name: 'beta', path: 'SKILL.md', problem: 'sha256' }]);
      const plain = await sync(dir, cache);
      expect(plain.code).toBe(0);
      expect(proxy.log.map((r) => r.status)).toEqual([304]);
      proxy.reset();
      const healed = await sync(dir, cache, ['--verify']);
      expect(healed.code).toBe(0);
      expect(healed.stderr).toMatch(/warning: beta differs from the lock \(SKILL\.md: sha256\); rebuilding it/);
      expect(proxy.log.map((r) => r.status)).toEqual([200]);
      expect(proxy.downloads()).toEqual([]);
      expect(tree(dir)).toEqual(before);
      // Intact, `--verify` is still one request answered 304.
      proxy.reset();
      const again = await sync(dir, cache, ['--verify']);
      expect(again.code).toBe(0);
      expect(proxy.log.map((r) => r.status)).toEqual([304]);
      expect((await verify()).code).toBe(0);
    });

    it('with the cache gone too, the damaged folder is downloaded again', async () => {
      const empty = fresh('no-cache');
      writeFileSync(join(dir, 'gamma', 'SKILL.md'), 'x'.repeat(statSync(join(dir, 'gamma', 'SKILL.md')).size));
      const run = await sync(dir, empty, ['--verify']);
      expect(run.code).toBe(0);
      expect(proxy.downloads().map((r) => r.path)).toEqual([`/api/skills/${skills.gamma.id}/download?version=1`]);
      expect(run.json.skills.find((x: any) => x.name === 'gamma').from).toBe('download');
      await expectMaterialised(dir, 'gamma');
    });
  });

  describe('without its lock', () => {
    const lockPath = (target: string): string => join(target, '.skill-resolver.lock.json');
    const inode = (path: string): number => statSync(path).ino;

    it('folders that are exactly their packages are taken back into the lock, untouched', async () => {
      const target = fresh('lockless');
      expect((await sync(target, cache)).code).toBe(0);
      const lock = readFileSync(lockPath(target), 'utf8');
      const before = tree(target);
      const inodes = ['alpha', 'beta', 'gamma'].map((n) => inode(join(target, n)));
      rmSync(lockPath(target));
      proxy.reset();
      const run = await sync(target, cache);
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(/alpha was already in place, exactly as the service stores it; now in the lock/);
      expect(proxy.downloads()).toEqual([]);
      expect(['alpha', 'beta', 'gamma'].map((n) => inode(join(target, n)))).toEqual(inodes);
      expect(tree(target)).toEqual(before);
      expect(readFileSync(lockPath(target), 'utf8')).toBe(lock);
      expect((await runCli(['verify', '--dir', target], env())).code).toBe(0);
    });

    it('a folder the client cannot tell for its own is refused and left as it is; the others go on', async () => {
      const target = fresh('lockless-damaged');
      expect((await sync(target, cache)).code).toBe(0);
      rmSync(lockPath(target));
      const skillMd = join(target, 'beta', 'SKILL.md');
      const bytes = readFileSync(skillMd);
      bytes[3] ^= 0x20;
      writeFileSync(skillMd, bytes);
      writeFileSync(join(target, 'gamma', 'mine.txt'), 'my own notes\n');
      const damaged = { beta: tree(join(target, 'beta')), gamma: tree(join(target, 'gamma')) };
      const run = await sync(target, cache);
      expect(run.code).toBe(1);
      expect(run.json.failed.map((f: any) => f.name)).toEqual(['beta', 'gamma']);
      expect(run.stderr).toMatch(
        new RegExp(
          `${target}/beta exists but the lock does not list it, and it is not beta v1 \\(SKILL\\.md: sha256\\); it is left as it is: move it away`,
        ),
      );
      expect(run.stderr).toMatch(
        /gamma exists but the lock does not list it, and it is not gamma v1 \(mine\.txt: extra\)/,
      );
      expect({ beta: tree(join(target, 'beta')), gamma: tree(join(target, 'gamma')) }).toEqual(damaged);
      expect(Object.keys(lockOf(target).skills)).toEqual(['alpha']);
      expect(lockOf(target).fingerprint).toBeNull();
      expect(leftovers(target)).toEqual([]);

      // Moved away, they are written again; the moved copies stay where they were put.
      renameSync(join(target, 'beta'), join(target, 'beta.mine'));
      renameSync(join(target, 'gamma'), join(target, 'gamma.mine'));
      const healed = await sync(target, cache, ['--verify']);
      expect(healed.code).toBe(0);
      for (const name of ['alpha', 'beta', 'gamma']) await expectMaterialised(target, name);
      expect(tree(join(target, 'gamma.mine')).map((f) => f.path)).toEqual(['SKILL.md', 'mine.txt']);
      expect((await runCli(['verify', '--dir', target], env())).code).toBe(0);
    });
  });

  it('a skill updated between syncs: only it is downloaded', async () => {
    await newVersion('beta', 'Writes better documents.', [{ path: 'beta/template.txt', data: randomBytes(2048) }]);
    const run = await sync(dir, cache);
    expect(run.code).toBe(0);
    expect(proxy.downloads().map((r) => r.path)).toEqual([`/api/skills/${skills.beta.id}/download?version=2`]);
    expect(run.json.skills).toEqual([
      expect.objectContaining({ name: 'alpha', version: 1, from: 'cache' }),
      expect.objectContaining({ name: 'beta', version: 2, from: 'download' }),
      expect.objectContaining({ name: 'gamma', version: 1, from: 'cache' }),
    ]);
    await expectMaterialised(dir, 'beta');
    expect(lockOf(dir).skills.beta.version).toBe(2);
  });

  it("a skill removed from the task: its folder goes, the user's own files in DIR stay", async () => {
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    mkdirSync(join(dir, 'my-tools'));
    writeFileSync(join(dir, 'my-tools', 'tool.sh'), 'echo mine\n');
    await s.put(alice, `/api/ghosts/${ghost.id}`, {
      name: ghost.name,
      namespace: 'default',
      skills: ['alpha', 'beta'],
      preload_skills: ['alpha'],
    });
    const run = await sync(dir, cache);
    expect(run.code).toBe(0);
    expect(proxy.downloads()).toEqual([]);
    expect(existsSync(join(dir, 'gamma'))).toBe(false);
    expect(Object.keys(lockOf(dir).skills)).toEqual(['alpha', 'beta']);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(dir, 'my-tools', 'tool.sh'), 'utf8')).toBe('echo mine\n');
  });

  it('--preload-only materialises the preload refs alone', async () => {
    const target = fresh('preload');
    const run = await sync(target, cache, ['--preload-only']);
    expect(run.code).toBe(0);
    expect(run.json.skills.map((x: any) => x.name)).toEqual(['alpha']);
    expect(lockOf(target).preload_only).toBe(true);
    expect(existsSync(join(target, 'beta'))).toBe(false);
  });

  it('a corrupt cache entry is detected, deleted and fetched again once', async () => {
    const zip = entryOf(cache, 'alpha');
    const bytes = readFileSync(zip);
    bytes[bytes.length >> 1] ^= 0x01;
    writeFileSync(zip, bytes);
    const target = fresh('refetch');
    const run = await sync(target, cache);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/The cached copy of alpha \(sha256:[0-9a-f]{64}\) failed its check; fetching it again/);
    expect(proxy.downloads().map((r) => r.path)).toEqual([`/api/skills/${skills.alpha.id}/download?version=1`]);
    expect(run.json.skills).toEqual([
      expect.objectContaining({ name: 'alpha', from: 'download' }),
      expect.objectContaining({ name: 'beta', from: 'cache' }),
    ]);
    expect(entryIsSound(entryOf(cache, 'alpha'))).toBe(true);
    await expectMaterialised(target, 'alpha');

    // An entry that is not a file (a folder planted in its place) is the same story.
    const planted = entryOf(cache, 'beta');
    rmSync(planted);
    mkdirSync(planted);
    proxy.reset();
    const again = await sync(fresh('refetch'), cache);
    expect(again.code).toBe(0);
    expect(proxy.downloads().map((r) => r.path)).toEqual([`/api/skills/${skills.beta.id}/download?version=2`]);
  });

  it('a tampered download exits 4 and leaves the previous copy in place', async () => {
    const before = tree(join(dir, 'alpha'));
    await newVersion('alpha', 'Runs a newer script.', [
      { path: 'alpha/scripts/run.sh', data: '#!/bin/sh\necho alpha 2\n', mode: 0o100755 },
    ]);
    proxy.rules.tamper = (path) => path.startsWith(`/api/skills/${skills.alpha.id}/download`);
    const run = await sync(dir, cache);
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/The package of alpha v2 does not match its content hash/);
    expect(run.json.failed).toEqual([expect.objectContaining({ name: 'alpha', exit_code: 4 })]);
    // An integrity failure is not retried: one download.
    expect(run.json.retries).toBe(0);
    expect(proxy.downloads()).toHaveLength(1);
    expect(tree(join(dir, 'alpha'))).toEqual(before);
    const lock = lockOf(dir);
    expect(lock.fingerprint).toBeNull();
    expect(lock.skills.alpha.version).toBe(1);
    expect(
      cacheEntries(cache).entries.some((e) => e.endsWith(`${skills.alpha.latest_version.content_hash.slice(7)}.zip`)),
    ).toBe(false);
    expect((await runCli(['verify', '--dir', dir], env())).code).toBe(0);

    proxy.reset();
    const healed = await sync(dir, cache);
    expect(healed.code).toBe(0);
    expect(proxy.log[0]).toEqual(expect.objectContaining({ status: 200 }));
    expect(proxy.downloads().map((r) => r.path)).toEqual([`/api/skills/${skills.alpha.id}/download?version=2`]);
    await expectMaterialised(dir, 'alpha');
    expect(lockOf(dir).fingerprint).toBe((await s.skills(alice, task.id)).fingerprint);
  });

  describe('hostile packages already in the store', () => {
    let hostile: { task: any; token: string };
    const outside = (): string => join(work, 'outside');
    const cases = (): Array<[string, Buffer]> => {
      const md: ZipEntryInput = { path: 'hostile/SKILL.md', data: '---\nname: hostile\ndescription: x\n---\n' };
      const escape = (path: string): ZipEntryInput => ({ path, data: 'escaped\n' });
      return [
        ['a ".." path', buildZip([md, escape('hostile/../../outside/dotdot.txt')])],
        ['an absolute path', buildZip([md, escape(`${outside()}/absolute.txt`)])],
        ['a backslash path', buildZip([md, escape('hostile\\..\\..\\outside\\backslash.txt')])],
        ['a symbolic link', buildZip([md, { path: 'hostile/link', data: outside(), mode: 0o120777 }])],
        ['an entry outside the skill folder', buildZip([md, escape('outside/stray.txt')])],
        ['another skill folder', buildZip([{ ...md, path: 'other/SKILL.md' }])],
        ['a file past the ratio', buildZip([md, { path: 'hostile/zeros.bin', data: Buffer.alloc(8 * 1024 * 1024) }])],
        ['two names that fold together', buildZip([md, escape('hostile/A.txt'), escape('hostile/a.txt')])],
      ];
    };

    beforeAll(async () => {
      mkdirSync(outside(), { recursive: true });
      await newSkill('hostile', 'Looks harmless.');
      hostile = await taskWith('hostile', ['hostile']);
    });

    it('each is refused with exit 4: nothing is written outside DIR, nothing enters DIR or the cache', async () => {
      const target = fresh('hostile');
      const hostileCache = fresh('hostile-cache');
      for (const [title, zip] of cases()) {
        const hash = `sha256:${sha256Hex(zip)}`;
        await replaceStoredBytes(t, hash, zip);
        await withClient(t.db.url, (c) =>
          c.query('UPDATE skill_versions SET content_hash = $1 WHERE skill_id = $2 AND version = 1', [
            hash,
            skills.hostile.id,
          ]),
        );
        t.changed();
        const run = await sync(target, hostileCache, [], hostile.task.id, hostile.token);
        expect({ title, code: run.code }).toEqual({ title, code: 4 });
        expect(run.stderr).toMatch(/The package of hostile is refused: /);
        expect(run.json.failed).toEqual([expect.objectContaining({ name: 'hostile', exit_code: 4 })]);
        expect(tree(outside())).toEqual([]);
        expect(tree(target).map((f) => f.path)).toEqual(['.skill-resolver.lock.json']);
        expect(cacheEntries(hostileCache).entries).toEqual([]);
      }
    });
  });

  it('--strict: an unresolved name exits 3; without it, 0 with the name reported', async () => {
    await newSkill('doomed', 'Will be deleted.');
    const strict = await taskWith('strict', ['beta', 'doomed']);
    expect((await t.http.delete(`/api/skills/${skills.doomed.id}?force=true`).set(as(alice.key))).status).toBe(204);
    const target = fresh('strict');
    const lenient = await sync(target, cache, [], strict.task.id, strict.token);
    expect(lenient.code).toBe(0);
    expect(lenient.json.unresolved).toEqual([{ name: 'doomed', source: 'ghost', reason: 'DELETED' }]);
    expect(lenient.stderr).toMatch(/unresolved: doomed \(DELETED from ghost\)/);
    expect(existsSync(join(target, 'beta', 'SKILL.md'))).toBe(true);
    const strictRun = await sync(target, cache, ['--strict'], strict.task.id, strict.token);
    expect(strictRun.code).toBe(3);
    expect(strictRun.json.requests).toBe(1);
    expect(lockOf(target).unresolved).toEqual([{ name: 'doomed', source: 'ghost', reason: 'DELETED' }]);
  });

  it('two syncs sharing a cache download each package once', async () => {
    const shared = fresh('shared-cache');
    proxy.rules.delayMs = (path) => (path.includes('/download') ? 300 : 0);
    const [one, two] = await Promise.all([sync(fresh('one'), shared), sync(fresh('two'), shared)]);
    expect([one.code, two.code]).toEqual([0, 0]);
    const perPackage = new Map<string, number>();
    for (const r of proxy.downloads()) perPackage.set(r.path, (perPackage.get(r.path) ?? 0) + 1);
    expect([...perPackage.values()]).toEqual([1, 1]);
    const froms = [...one.json.skills, ...two.json.skills].map((x: any) => x.from).sort();
    expect(froms).toEqual(['cache', 'cache', 'download', 'download']);
    expect(cacheEntries(shared).entries).toHaveLength(2);
  });

  it('at most 8 downloads run at once', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `many-${i + 1}`);
    for (const name of names) await newSkill(name, `One of many (${name}).`);
    const many = await taskWith('many', names);
    proxy.rules.delayMs = (path) => (path.includes('/download') ? 150 : 0);
    const run = await sync(fresh('many'), fresh('many-cache'), [], many.task.id, many.token);
    expect(run.code).toBe(0);
    expect(proxy.downloads()).toHaveLength(12);
    expect(proxy.maxDownloadsInFlight).toBe(8);

    // All 12 being fetched by another sync of the host (this process holds their download locks):
    // the sync waits for the 12 at once, fetches each when its lock goes, and says nothing but its
    // own lines (no runtime warning about the many listeners of its deadline).
    proxy.reset();
    const shared = fresh('many-shared');
    const scope = join(shared, cacheScope(url));
    mkdirSync(scope, { recursive: true });
    const ns = readlinkSync('/proc/self/ns/pid');
    const locks = names.map((name) => join(scope, `${skills[name].latest_version.content_hash.slice(7)}.lock`));
    for (const lock of locks)
      writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), ns, nonce: 'x' }));
    const waiting = sync(fresh('many'), shared, [], many.task.id, many.token);
    await new Promise((r) => setTimeout(r, 500));
    expect(proxy.downloads()).toEqual([]);
    for (const lock of locks) rmSync(lock);
    const waited = await waiting;
    expect(waited.code).toBe(0);
    expect(proxy.downloads()).toHaveLength(12);
    expect(waited.stderr).not.toMatch(/Warning|warning/);
  });

  it('a sync killed with SIGKILL at any point leaves nothing a later sync trusts', async () => {
    const killCache = fresh('kill-cache');
    const target = fresh('kill');
    const args = ['sync', '--task', String(task.id), '--dir', target, '--cache', killCache, '--json'];
    const check = (): void => {
      // Every entry a later sync could find is whole.
      for (const entry of cacheEntries(killCache).entries) {
        expect({ entry, sound: entryIsSound(join(killCache, entry)) }).toEqual({ entry, sound: true });
      }
    };
    const killWhen = async (
      rules: typeof proxy.rules,
      match: (path: string) => boolean,
      afterMs = 0,
    ): Promise<void> => {
      proxy.reset();
      const child = spawnCli(args, env());
      const done = finished(child);
      proxy.rules = {
        ...rules,
        onRequest: (path) => {
          if (match(path)) setTimeout(() => child.kill('SIGKILL'), afterMs);
        },
      };
      const result = await done;
      expect(result.signal).toBe('SIGKILL');
      check();
    };
    // While the task's skills are asked for; while a download is cut half way (the lock is held).
    await killWhen({ delayMs: () => 200 }, (p) => p.endsWith('/skills'));
    await killWhen({ stall: (p) => p.includes('/download') }, (p) => p.includes('/download'), 150);
    // And at moments spread over a whole run, from cold and from a warm cache.
    for (let ms = 10; ms <= 300; ms += 10) {
      if (ms % 20 === 0) rmSync(killCache, { recursive: true, force: true });
      proxy.reset();
      const child = spawnCli(args, env());
      const done = finished(child);
      setTimeout(() => child.kill('SIGKILL'), ms);
      await done;
      check();
    }
    proxy.reset();
    const after = await runCli(args, env());
    expect(after.code).toBe(0);
    expect((await runCli(['verify', '--dir', target], env())).code).toBe(0);
    check();
    for (const name of ['alpha', 'beta']) await expectMaterialised(target, name);
    expect(readFileSync(join(target, '.skill-resolver.lock.json'), 'utf8')).toContain(
      (await s.skills(alice, task.id)).fingerprint,
    );
  });

  describe('eviction', () => {
    let evict: { task: any; token: string; ghost: any };
    const evictCache = (): string => join(work, 'evict-cache');
    const scopeDir = (): string => join(evictCache(), cacheEntries(evictCache()).entries[0].split('/')[0]);
    const hexOf = (name: string): string => skills[name].latest_version.content_hash.slice(7);
    const held = (): string[] =>
      cacheEntries(evictCache())
        .entries.map((e) => Object.keys(skills).find((n) => e.endsWith(`${hexOf(n)}.zip`)))
        .sort() as string[];
    const use = async (names: string[], args: string[] = []): Promise<any> => {
      await s.put(alice, `/api/ghosts/${evict.ghost.id}`, {
        name: evict.ghost.name,
        namespace: 'default',
        skills: names,
      });
      const run = await sync(fresh('evict'), evictCache(), args, evict.task.id, evict.token);
      expect(run.code).toBe(0);
      return run;
    };
    const lastUsed = (name: string, secondsAgo: number): void => {
      const when = new Date(Date.now() - secondsAgo * 1000);
      utimesSync(join(scopeDir(), `${hexOf(name)}.zip`), when, when);
    };

    beforeAll(async () => {
      for (const n of ['e1', 'e2', 'e3', 'e4'])
        await newSkill(n, `Evictable ${n}.`, [{ path: `${n}/data.bin`, data: randomBytes(100_000) }]);
      evict = await taskWith('evict', ['e1']);
    });

    it('by entries: the least recently used go first, those in use stay', async () => {
      await use(['e1']);
      await use(['e2']);
      await use(['e3']);
      expect(held()).toEqual(['e1', 'e2', 'e3']);
      lastUsed('e1', 300);
      lastUsed('e3', 200);
      lastUsed('e2', 100);
      await use(['e4'], ['--cache-max-entries', '2']);
      expect(held()).toEqual(['e2', 'e4']);
      // In use by this sync: kept even when the bound is below what the set needs.
      await use(['e1', 'e2', 'e3'], ['--cache-max-entries', '1']);
      expect(held()).toEqual(['e1', 'e2', 'e3']);
    });

    it('by bytes, and never an entry another live process holds a lease on', async () => {
      lastUsed('e1', 300);
      lastUsed('e2', 200);
      // A lease held by this (live) process on e1, as a running sync takes it.
      const lease = join(scopeDir(), `.lease-${'a'.repeat(12)}`);
      const ns = readlinkSync('/proc/self/ns/pid');
      writeFileSync(
        lease,
        JSON.stringify({ hexes: [hexOf('e1')], pid: process.pid, host: hostname(), ns, nonce: 'test' }),
      );
      const oneEntry = String(100_000 + 1_000);
      await use(['e4'], ['--cache-max-bytes', oneEntry]);
      expect(held()).toEqual(['e1', 'e4']);
      rmSync(lease);
      await use(['e4'], ['--cache-max-bytes', oneEntry]);
      expect(held()).toEqual(['e4']);
    });
    it("an older client's entries (a folder per package, in its own scope) count against the bounds and go first", async () => {
      const oldScope = join(evictCache(), 'f'.repeat(32));
      const old = join(oldScope, 'a'.repeat(64));
      mkdirSync(old, { recursive: true });
      writeFileSync(join(old, 'package.zip'), randomBytes(50_000));
      const manifest = { format: 2, content_hash: `sha256:${'a'.repeat(64)}`, name: 'old', bytes: 50_000 };
      writeFileSync(join(old, 'manifest.json'), JSON.stringify(manifest));
      const oldLease = join(oldScope, `${'a'.repeat(64)}.lease-${'b'.repeat(12)}`);
      writeFileSync(
        oldLease,
        JSON.stringify({ pid: 999_999_999, host: hostname(), ns: readlinkSync('/proc/self/ns/pid'), nonce: 'x' }),
      );
      await use(['e4'], ['--cache-max-entries', '1']);
      expect(existsSync(old)).toBe(false);
      // Its stale lease went with it; nothing but folders is left of it.
      expect(readdirSync(oldScope)).toEqual([]);
      expect(held()).toEqual(['e4']);
    });
  });

  describe('never stuck, never hanging: a server that misbehaves', () => {
    let slow: { task: any; token: string };
    let target: string;
    let slowCache: string;
    let previous: ReturnType<typeof tree>;
    /** Runs that do not end by themselves are killed at this bound, and fail. */
    const BOUND_MS = 30_000;
    const downloadOf = (name: string) => (path: string) => path.startsWith(`/api/skills/${skills[name].id}/download`);
    const taskSkills = (path: string): boolean => path.startsWith(`/api/tasks/${slow.task.id}/skills`);

    const syncBounded = (args: string[], extra: Record<string, string>) =>
      runBounded(
        ['sync', '--task', String(slow.task.id), '--dir', target, '--cache', slowCache, '--json', ...args],
        env(extra, slow.token),
        BOUND_MS,
      );

    /** What a cut run must leave: the previous copies, no staging folder or lock, a cache with whole entries only. */
    const expectNothingLeft = (): void => {
      expect(tree(target).filter((f) => !f.path.startsWith('.skill-resolver'))).toEqual(
        previous.filter((f) => !f.path.startsWith('.skill-resolver')),
      );
      expect(leftovers(target)).toEqual([]);
      expect(lockOf(target).skills['slow-a'].version).toBe(1);
      const { entries, others } = cacheEntries(slowCache);
      expect(others).toEqual([]);
      for (const entry of entries) expect(entryIsSound(join(slowCache, entry))).toBe(true);
      expect(entries.some((e) => e.endsWith(`${skills['slow-a'].latest_version.content_hash.slice(7)}.zip`))).toBe(
        false,
      );
    };

    beforeAll(async () => {
      await newSkill('slow-a', 'Arrives slowly.', [{ path: 'slow-a/data.bin', data: randomBytes(8192) }]);
      await newSkill('slow-b', 'Arrives on time.');
      slow = await taskWith('slow', ['slow-a', 'slow-b']);
      target = fresh('slow');
      slowCache = fresh('slow-cache');
      proxy.reset();
      expect((await sync(target, slowCache, [], slow.task.id, slow.token)).code).toBe(0);
      previous = tree(target);
      // A new version to fetch: each case below cuts its download.
      await newVersion('slow-a', 'Arrives slowly, again.', [{ path: 'slow-a/data.bin', data: randomBytes(8192) }]);
    });

    it.each<[string, () => void, Record<string, string>, string[], RegExp]>([
      [
        'a download trickled, one byte every 50 ms (20 B/s): cut by the slow-download rule',
        () => (proxy.rules.trickle = (p) => (downloadOf('slow-a')(p) ? { everyMs: 50 } : null)),
        { SKILL_RESOLVER_SLOW_WINDOW: '2' },
        [],
        /The package of slow-a v2 came slower than 1 KiB\/s over 2 s \(\d+ bytes in the last window\) from http:\/\/127\.0\.0\.1:\d+; cut off/,
      ],
      [
        'a download stalled halfway: cut by the slow-download rule',
        () => (proxy.rules.stall = downloadOf('slow-a')),
        { SKILL_RESOLVER_SLOW_WINDOW: '2' },
        [],
        /The package of slow-a v2 came slower than 1 KiB\/s over 2 s \(0 bytes in the last window\)/,
      ],
      [
        'a download never answered, not even its head: cut by the slow-download rule',
        () => (proxy.rules.silent = downloadOf('slow-a')),
        { SKILL_RESOLVER_SLOW_WINDOW: '2' },
        [],
        /The package of slow-a v2 came slower than 1 KiB\/s over 2 s \(0 bytes in the last window\)/,
      ],
      [
        'a download reset halfway',
        () => (proxy.rules.reset = downloadOf('slow-a')),
        {},
        [],
        /slow-a failed: (The service at http:\/\/127\.0\.0\.1:\d+ cut the answer short|Cannot reach the service at .*: ECONNRESET)/,
      ],
      [
        'a download trickled fast enough for the rule: ended by the deadline',
        () => (proxy.rules.trickle = (p) => (downloadOf('slow-a')(p) ? { everyMs: 20 } : null)),
        { SKILL_RESOLVER_SLOW_WINDOW: '2', SKILL_RESOLVER_SLOW_RATE: '1' },
        ['--timeout', '4'],
        /slow-a failed: The sync did not finish within 4 s \(--timeout\); what it had not done is left as it was/,
      ],
    ])('%s: exit 1, the previous copy kept, nothing left behind', async (_title, misbehave, extra, args, message) => {
      proxy.reset();
      misbehave();
      const run = await syncBounded(args, extra);
      expect({ code: run.code, signal: run.signal }).toEqual({ code: 1, signal: null });
      expect(run.stderr).toMatch(message);
      expect(run.json.failed).toEqual([expect.objectContaining({ name: 'slow-a', exit_code: 1 })]);
      expect(run.json.skills.map((x: any) => x.name)).toEqual(['slow-b']);
      expect(lockOf(target).fingerprint).toBeNull();
      expectNothingLeft();
    });

    it.each<[string, () => void, Record<string, string>, string[], RegExp]>([
      [
        "the task's skills trickled: ended by the deadline",
        () => (proxy.rules.trickle = (p) => (taskSkills(p) ? { everyMs: 20 } : null)),
        { SKILL_RESOLVER_SLOW_RATE: '1' },
        ['--timeout', '1.5'],
        /error: The sync did not finish within 1\.5 s \(--timeout\)/,
      ],
      [
        "the task's skills never answered: cut by the slow-download rule",
        () => (proxy.rules.silent = taskSkills),
        { SKILL_RESOLVER_SLOW_WINDOW: '2' },
        [],
        /error: The skills of task \d+ came slower than 1 KiB\/s over 2 s \(0 bytes in the last window\)/,
      ],
    ])('%s: exit 1, DIR and its lock exactly as they were', async (_title, misbehave, extra, args, message) => {
      const lockBefore = readFileSync(join(target, '.skill-resolver.lock.json'), 'utf8');
      const dirBefore = tree(target);
      proxy.reset();
      misbehave();
      const run = await syncBounded(args, extra);
      expect({ code: run.code, signal: run.signal }).toEqual({ code: 1, signal: null });
      expect(run.stderr).toMatch(message);
      expect(readFileSync(join(target, '.skill-resolver.lock.json'), 'utf8')).toBe(lockBefore);
      expect(tree(target)).toEqual(dirBefore);
      expect(leftovers(target)).toEqual([]);
    });

    it('the library: a caller that aborts ends the run the same way', async () => {
      proxy.reset();
      proxy.rules.silent = downloadOf('slow-a');
      const stop = new AbortController();
      proxy.rules.onRequest = (path) => {
        if (downloadOf('slow-a')(path)) setTimeout(() => stop.abort(), 200);
      };
      const result = await syncLibrary({
        url,
        token: slow.token,
        taskId: slow.task.id,
        dir: target,
        cacheDir: slowCache,
        signal: stop.signal,
      });
      expect(result.exitCode).toBe(1);
      expect(result.failed).toEqual([
        expect.objectContaining({ name: 'slow-a', message: expect.stringMatching(/stopped by its caller/) }),
      ]);
      expectNothingLeft();
      // And its deadline in milliseconds: the run ends with it, in the download (a failed skill) or,
      // on a slow machine, before the refs arrived (thrown).
      proxy.reset();
      proxy.rules.silent = downloadOf('slow-a');
      const timed = await syncLibrary({
        url,
        token: slow.token,
        taskId: slow.task.id,
        dir: target,
        cacheDir: slowCache,
        timeoutMs: 1500,
      }).then(
        (result) => ({ exitCode: result.exitCode, message: result.failed.map((f) => f.message).join('; ') }),
        (err: ClientError) => ({ exitCode: err.exitCode, message: err.message }),
      );
      expect(timed).toEqual({ exitCode: 1, message: expect.stringMatching(/did not finish within 1\.5 s/) });
      expectNothingLeft();
    });

    it('SIGTERM (the sandbox being stopped) ends the run the same way', async () => {
      proxy.reset();
      proxy.rules.silent = downloadOf('slow-a');
      const child = spawnCli(
        ['sync', '--task', String(slow.task.id), '--dir', target, '--cache', slowCache, '--json'],
        env({}, slow.token),
      );
      proxy.rules.onRequest = (path) => {
        if (downloadOf('slow-a')(path)) setTimeout(() => child.kill('SIGTERM'), 200);
      };
      const killer = setTimeout(() => child.kill('SIGKILL'), BOUND_MS);
      const run = await finished(child);
      clearTimeout(killer);
      expect({ code: run.code, signal: run.signal }).toEqual({ code: 1, signal: null });
      expect(run.stderr).toMatch(
        /slow-a failed: The sync was stopped by SIGTERM; what it had not done is left as it was/,
      );
      expectNothingLeft();
    });

    it('once the server behaves, the next sync completes', async () => {
      proxy.reset();
      const run = await syncBounded([], {});
      expect(run.code).toBe(0);
      expect(proxy.downloads().map((r) => r.path)).toEqual([`/api/skills/${skills['slow-a'].id}/download?version=2`]);
      await expectMaterialised(target, 'slow-a');
      expect(leftovers(target)).toEqual([]);
      expect(lockOf(target).fingerprint).toBe((await s.skills(alice, slow.task.id)).fingerprint);
    });
  });

  describe('what the service says is data, not terminal control', () => {
    let hostile: StubServer;
    const HASH = `sha256:${'ab'.repeat(32)}`;
    const json = (status: number, body: unknown, headers: Record<string, string> = {}): StubAnswer => ({
      status,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const run = (args: string[] = []): Promise<any> =>
      runCli(
        ['sync', '--task', '1', '--dir', fresh('hostile-out'), '--cache', fresh('hostile-cache'), '--json', ...args],
        cliEnv(home, { SKILL_RESOLVER_URL: hostile.url, SKILL_RESOLVER_TOKEN: token }),
      );
    /** Nothing on stderr or stdout a terminal acts on, and the forged line is not a line of its own. */
    const expectInert = (out: { stderr: string; stdout: string }): void => {
      expect(rawControls(out.stderr)).toEqual([]);
      expect(rawControls(out.stdout)).toEqual([]);
      expect(out.stderr.split('\n').filter((line) => line.startsWith('skill-resolver: sync ok'))).toEqual([]);
      expect(out.stderr).toContain('\\u001b[2J\\u001b]0;pwned\\u0007denied\\r\\nskill-resolver: sync ok \\u009b31m');
      expect(out.stderr).toContain('\\u202egnp.exe\\u2028\\u007f');
    };

    beforeAll(async () => {
      hostile = new StubServer(() => ({ status: 500 }));
      await hostile.start();
    });
    afterAll(() => hostile.close());

    it('a 401 whose code and message carry escape sequences: written as escapes, exit 1', async () => {
      hostile.answer = () => json(401, { statusCode: 401, code: HOSTILE, message: HOSTILE });
      const out = await run();
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(/refused the credentials \(401 \(\\u001b\[2J/);
      expectInert(out);
    });

    it('unresolved names, reasons and sources, a download refused with a hostile message, a retry notice', async () => {
      let downloads = 0;
      hostile.answer = (path) => {
        if (path.includes('/download')) {
          // First "try again", then a refusal: both messages reach stderr.
          return ++downloads === 1
            ? json(503, { code: 'DATABASE_UNAVAILABLE', message: HOSTILE })
            : json(404, { code: 'NOT_FOUND', message: HOSTILE });
        }
        return json(200, {
          fingerprint: HASH,
          skill_refs: { alpha: { skill_id: 1, version: 1, content_hash: HASH } },
          unresolved: [{ name: HOSTILE, source: HOSTILE, reason: HOSTILE }],
        });
      };
      const out = await run(['--strict']);
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(/skill-resolver: unresolved: \\u001b\[2J/);
      expect(out.stderr).toMatch(/the service answered 503 \(DATABASE_UNAVAILABLE: \\u001b\[2J.*trying again in/);
      expect(out.stderr).toMatch(
        /alpha failed: The package of alpha \(skill 1 v1\) was not found \(404 \(NOT_FOUND: \\u001b/,
      );
      expectInert(out);
      // --json stays JSON, and gives the strings back as the server sent them.
      expect(out.json.unresolved).toEqual([{ name: HOSTILE, source: HOSTILE, reason: HOSTILE }]);
      expect(out.json.failed[0].message).toContain(HOSTILE);
      expect(out.json.retries).toBe(1);
    });
  });

  describe('a download redirected to a store', () => {
    let store: StubServer;
    let redirected: { task: any; token: string };
    /** The package bytes by content hash (hex), as the service stores them. */
    const packages = new Map<string, Buffer>();
    const names = ['alpha', 'beta', 'gamma'];
    const idOf = (path: string): number => Number(/\/skills\/(\d+)\/download/.exec(path)?.[1]);
    const nameOf = (path: string): string => names.find((n) => skills[n].id === idOf(path))!;
    const hexOf = (name: string): string => skills[name].latest_version.content_hash.slice(7);
    const run = (target = fresh('redirect')) =>
      sync(target, fresh('redirect-cache'), [], redirected.task.id, redirected.token);
    /** The service answers each download with `status` and a Location into the store. */
    const redirectDownloads = (status: (name: string) => number, location?: (name: string) => string): void => {
      proxy.rules.answer = (path) =>
        path.includes('/download')
          ? {
              status: status(nameOf(path)),
              headers: {
                location:
                  location?.(nameOf(path)) ??
                  `${store.url}/packages/sha256/${hexOf(nameOf(path))}.zip?X-Amz-Signature=f00`,
              },
            }
          : null;
    };

    beforeAll(async () => {
      redirected = await taskWith('redirected', names);
      for (const name of names) {
        const res = await fetch(
          `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}/api/skills/${skills[name].id}/download`,
          { headers: as(alice.key) },
        );
        expect(res.status).toBe(200);
        packages.set(hexOf(name), Buffer.from(await res.arrayBuffer()));
      }
      store = new StubServer((path) => {
        const bytes = packages.get(/sha256\/([0-9a-f]{64})\.zip/.exec(path)?.[1] ?? '');
        return bytes ? { status: 200, headers: { 'content-type': 'application/zip' }, body: bytes } : { status: 404 };
      });
      await store.start();
    });
    afterAll(() => store.close());
    beforeEach(() => {
      store.log = [];
    });

    it('302, 303 and 307 are followed once, and the store is sent nothing that carried the token', async () => {
      const status: Record<string, number> = { alpha: 302, beta: 303, gamma: 307 };
      redirectDownloads((name) => status[name]);
      const target = fresh('redirect');
      const out = await run(target);
      expect(out.code).toBe(0);
      for (const name of names) await expectMaterialised(target, name);
      expect(out.json.skills.map((x: any) => x.from)).toEqual(['download', 'download', 'download']);
      expect(out.json).toEqual(expect.objectContaining({ requests: 7, retries: 0 }));
      expect(out.json.bytes_downloaded).toBe([...packages.values()].reduce((sum, b) => sum + b.length, 0));
      expect(store.log.map((r) => r.path).sort()).toEqual(
        names.map((n) => `/packages/sha256/${hexOf(n)}.zip?X-Amz-Signature=f00`).sort(),
      );
      for (const { headers } of store.log) {
        expect(headers.authorization).toBeUndefined();
        expect(headers['x-api-key']).toBeUndefined();
        expect(headers.cookie).toBeUndefined();
        expect(JSON.stringify(headers)).not.toContain(redirected.token);
      }
      // Each download asked the service (with the token) once, then the store.
      expect(
        proxy
          .downloads()
          .map((r) => r.status)
          .sort(),
      ).toEqual([302, 303, 307]);
    });

    it('the bytes from the store are still checked against the content hash (exit 4)', async () => {
      redirectDownloads(() => 302);
      const original = packages.get(hexOf('beta'))!;
      const tampered = Buffer.from(original);
      tampered[tampered.length >> 1] ^= 0x01;
      packages.set(hexOf('beta'), tampered);
      try {
        const target = fresh('redirect');
        const out = await run(target);
        expect(out.code).toBe(4);
        expect(out.stderr).toMatch(/The package of beta v\d+ does not match its content hash/);
        expect(out.json.failed).toEqual([expect.objectContaining({ name: 'beta', exit_code: 4 })]);
        expect(existsSync(join(target, 'beta'))).toBe(false);
        // An integrity failure is never retried.
        expect(out.json.retries).toBe(0);
        expect(store.log.filter((r) => r.path.includes(hexOf('beta')))).toHaveLength(1);
      } finally {
        packages.set(hexOf('beta'), original);
      }
    });

    it('a store that says "try again" is retried from the service', async () => {
      redirectDownloads(() => 302);
      let busy = 1;
      const answer = store.answer;
      store.answer = (path) =>
        path.includes(hexOf('gamma')) && busy-- > 0
          ? { status: 503, headers: { 'retry-after': '0' }, body: '<Error><Code>SlowDown</Code></Error>' }
          : answer(path);
      try {
        const out = await run();
        expect(out.code).toBe(0);
        expect(out.json.retries).toBe(1);
        expect(out.stderr).toMatch(
          /The package of gamma v\d+: the store at http:\/\/127\.0\.0\.1:\d+ answered 503; trying again in 0\.\d s \(retry 1\)/,
        );
        expect(proxy.downloads().filter((r) => idOf(r.path) === skills.gamma.id)).toHaveLength(2);
      } finally {
        store.answer = answer;
      }
    });

    it.each<[string, () => void, RegExp]>([
      [
        'a second redirect',
        () => {
          redirectDownloads(
            (name) => (name === 'alpha' ? 302 : 200),
            (name) => (name === 'alpha' ? `${store.url}/again` : ''),
          );
          proxy.rules.answer = ((answer) => (path: string) => (nameOf(path) === 'alpha' ? answer!(path) : null))(
            proxy.rules.answer,
          );
          const answer = store.answer;
          store.answer = (path) =>
            path === '/again' ? { status: 302, headers: { location: `${store.url}/elsewhere` } } : answer(path);
        },
        /alpha failed: The package of alpha v\d+: the store at http:\/\/127\.0\.0\.1:\d+ answered 302, a second redirect, which is not followed/,
      ],
      [
        'another scheme (ftp)',
        () => {
          redirectDownloads(
            () => 302,
            () => 'ftp://127.0.0.1/alpha.zip',
          );
          proxy.rules.answer = ((answer) => (path: string) => (nameOf(path) === 'alpha' ? answer!(path) : null))(
            proxy.rules.answer,
          );
        },
        /alpha failed: The package of alpha v\d+: the service's redirect \(302\) is refused: it leads to a ftp URL/,
      ],
      [
        'a file URL',
        () => {
          redirectDownloads(
            () => 307,
            () => 'file:///etc/passwd',
          );
          proxy.rules.answer = ((answer) => (path: string) => (nameOf(path) === 'alpha' ? answer!(path) : null))(
            proxy.rules.answer,
          );
        },
        /alpha failed: The package of alpha v\d+: the service's redirect \(307\) is refused: it leads to a file URL/,
      ],
    ])('refused: %s (exit 1, that skill not materialised, the others are)', async (_title, misbehave, message) => {
      const answer = store.answer;
      try {
        misbehave();
        const target = fresh('redirect');
        const out = await run(target);
        expect(out.code).toBe(1);
        expect(out.stderr).toMatch(message);
        expect(out.json.failed).toEqual([expect.objectContaining({ name: 'alpha', exit_code: 1 })]);
        expect(existsSync(join(target, 'alpha'))).toBe(false);
        await expectMaterialised(target, 'beta');
      } finally {
        store.answer = answer;
      }
    });

    it("a redirect of the task's skills is not followed (exit 1, the store never asked)", async () => {
      proxy.rules.answer = (path) =>
        path.includes('/skills') && !path.includes('/download')
          ? { status: 302, headers: { location: `${store.url}/skills.json` } }
          : null;
      const target = fresh('redirect');
      const out = await run(target);
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(
        /error: The skills of task \d+: the service answered 302, a redirect, which the client follows only for a package download/,
      );
      expect(store.log).toEqual([]);
      expect(readdirSync(target).filter((n) => !n.startsWith('.'))).toEqual([]);
    });
  });

  describe('a service that says "try again"', () => {
    let busy: { task: any; token: string };
    let target: string;
    const isDownload = (path: string): boolean => path.includes('/download');
    const taskSkills = (path: string): boolean => path.startsWith(`/api/tasks/${busy.task.id}/skills`);
    const unavailable: StubAnswer = {
      status: 503,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        statusCode: 503,
        code: 'DATABASE_UNAVAILABLE',
        message: 'The database did not answer in time',
      }),
    };
    const run = (args: string[] = []) =>
      runBounded(
        ['sync', '--task', String(busy.task.id), '--dir', target, '--cache', fresh('busy-cache'), '--json', ...args],
        env({}, busy.token),
        60_000,
      );

    beforeAll(async () => {
      busy = await taskWith('busy', ['beta', 'gamma']);
    });
    beforeEach(() => {
      target = fresh('busy');
    });

    it('503 on each download and 429 with Retry-After on the skills, a few times each, then 200: done, the retries counted', async () => {
      const seen = new Map<string, number>();
      const arrivals: number[] = [];
      proxy.rules.answer = (path) => {
        const n = (seen.get(path) ?? 0) + 1;
        seen.set(path, n);
        if (taskSkills(path)) {
          arrivals.push(Date.now());
          if (n <= 2) {
            return {
              status: 429,
              headers: { 'content-type': 'application/json', 'retry-after': '1' },
              body: JSON.stringify({ statusCode: 429, code: 'RATE_LIMITED', message: 'Too many requests' }),
            };
          }
        }
        return isDownload(path) && n <= 3 ? unavailable : null;
      };
      const out = await run();
      expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
      for (const name of ['beta', 'gamma']) await expectMaterialised(target, name);
      expect(out.json).toEqual(expect.objectContaining({ requests: 3 + 2 * 4, retries: 2 + 2 * 3, failed: [] }));
      expect(proxy.log.map((r) => r.status).filter((st) => st === 200)).toHaveLength(3);
      // Retry-After: 1 was waited for.
      expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(990);
      expect(arrivals[2] - arrivals[1]).toBeGreaterThanOrEqual(990);
      expect(out.stderr).toMatch(
        /The skills of task \d+: the service answered 429 \(RATE_LIMITED: Too many requests\); trying again in 1\.\d s \(retry 2\)/,
      );
      expect(out.stderr).toMatch(
        /The package of beta v\d+: the service answered 503 \(DATABASE_UNAVAILABLE: The database did not answer in time\); trying again in \d+\.\d s \(retry 3\)/,
      );
      expect(out.stderr).toMatch(/11 requests \(8 retried\)/);
    });

    it('a connection dropped before any answer, on the skills request and on each download: retried, done', async () => {
      const seen = new Map<string, number>();
      proxy.rules.drop = (path) => {
        const n = (seen.get(path) ?? 0) + 1;
        seen.set(path, n);
        return (taskSkills(path) || isDownload(path)) && n <= 2;
      };
      const out = await run();
      expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
      for (const name of ['beta', 'gamma']) await expectMaterialised(target, name);
      expect(out.json).toEqual(expect.objectContaining({ retries: 3 * 2, failed: [] }));
      expect(out.stderr).toMatch(
        /The package of beta v\d+: the service dropped the connection \(ECONNRESET\); trying again in \d+\.\d s \(retry 2\)/,
      );
    });

    it.each<[string, StubAnswer, string[], RegExp]>([
      ['500', { status: 500, body: '{"code":"INTERNAL"}' }, [], /answered 500 \(INTERNAL\)$/m],
      ['502', { status: 502 }, [], /answered 502$/m],
      [
        'a Retry-After longer than 60 s',
        { ...unavailable, headers: { 'retry-after': '61' } },
        [],
        /; it asked to wait longer than 60 s$/m,
      ],
    ])('not retried: %s (one request per download, exit 1)', async (_title, answer, args, message) => {
      proxy.rules.answer = (path) => (isDownload(path) ? answer : null);
      const out = await run(args);
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(message);
      expect(out.json.retries).toBe(0);
      expect(proxy.downloads()).toHaveLength(2);
    });

    it('always 503: retried until the deadline, then exit 1 with the previous copies in place', async () => {
      proxy.rules.answer = (path) => (isDownload(path) ? unavailable : null);
      const out = await run(['--timeout', '2']);
      expect({ code: out.code, signal: out.signal }).toEqual({ code: 1, signal: null });
      expect(out.json?.retries ?? 0).toBeGreaterThan(0);
      expect(out.stderr).toMatch(
        /beta failed: (The package of beta \(skill \d+ v\d+\): the service answered 503 \(DATABASE_UNAVAILABLE: .*\); after \d+ retries, no time left before the deadline|.*did not finish within 2 s)/,
      );
      expect(leftovers(target)).toEqual([]);
    });
  });

  it("the client's import graph holds no Nest, TypeORM or pg, only the client and the package reader", async () => {
    const script = [
      `require(${JSON.stringify(join(REPO, 'dist/src/client/index.js'))});`,
      `require(${JSON.stringify(join(REPO, 'dist/src/client/cli.js'))});`,
      'process.stdout.write(JSON.stringify(Object.keys(require.cache)));',
    ].join('');
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const run = await finished(child);
    expect(run.code).toBe(0);
    const loaded: string[] = run.json;
    expect(loaded.length).toBeGreaterThan(5);
    const outsideClient = loaded
      .map((p) => p.slice(REPO.length + 1))
      .filter((p) => !/^dist\/src\/(client|package)\/[a-z-]+\.js$/.test(p));
    expect(outsideClient).toEqual([]);
    expect(loaded.filter((p) => /node_modules|@nestjs|typeorm|[/\\]pg[/\\]/.test(p))).toEqual([]);
  });

  describe('the example sandbox entrypoint', () => {
    const entrypoint = join(REPO, 'examples', 'sandbox-entrypoint.sh');
    let skillsDir: string;
    const start = (): Promise<any> =>
      finished(
        spawn('sh', [entrypoint, 'ls', skillsDir], {
          cwd: REPO,
          env: env({ TASK_ID: String(task.id), SKILLS_DIR: skillsDir, SKILL_RESOLVER_CACHE_DIR: cache }),
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );

    it('syncs, verifies and starts the agent', async () => {
      skillsDir = join(fresh('entrypoint'), 'skills');
      const run = await start();
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('alpha\nbeta\n');
      expect(run.stderr).toMatch(/2 skills in .*, 0 failed, 0 unresolved/);
      expect((await runCli(['verify', '--dir', skillsDir], env())).code).toBe(0);
    });

    it('heals a damaged folder when the sandbox starts again', async () => {
      const before = tree(skillsDir);
      const skillMd = join(skillsDir, 'alpha', 'SKILL.md');
      const bytes = readFileSync(skillMd);
      bytes[3] ^= 0x20;
      writeFileSync(skillMd, bytes);
      writeFileSync(join(skillsDir, 'beta', 'injected.sh'), 'echo injected\n');
      expect((await runCli(['verify', '--dir', skillsDir], env())).code).toBe(4);
      const run = await start();
      expect(run.code).toBe(0);
      expect(run.stdout).toBe('alpha\nbeta\n');
      expect(run.stderr).toMatch(/alpha differs from the lock \(SKILL\.md: sha256\); rebuilding it/);
      expect(run.stderr).toMatch(/beta differs from the lock \(injected\.sh: extra\); rebuilding it/);
      expect(tree(skillsDir)).toEqual(before);
      expect((await runCli(['verify', '--dir', skillsDir], env())).code).toBe(0);
    });
  });

  it('warns on stderr for each deprecated or yanked skill it materialises; --json carries the status', async () => {
    await newSkill('delta', 'Deprecated later.');
    await newVersion('delta', 'Deprecated later, v2.');
    await newSkill('epsilon', 'Pinned, then yanked.');
    const made = await s.teamWithGhost(alice, 'lifecycle', ['delta', 'epsilon', 'alpha'], [], 'default', {
      epsilon: { skill_id: skills.epsilon.id, version: 1 },
    });
    const created = await s.task(alice, { team_id: made.team.id });
    const tok = await mint(created.id);
    const patch = (name: string, version: number, status: string) =>
      s.t.http.patch(`/api/skills/${skills[name].id}/versions/${version}`).set(as(alice.key)).send({ status });
    expect((await patch('delta', 2, 'deprecated')).status).toBe(200);
    expect((await patch('epsilon', 1, 'yanked')).status).toBe(200);
    const target = fresh('lifecycle');
    const run = await sync(target, cache, [], created.id, tok);
    expect(run.code).toBe(0);
    expect(run.json.skills.map((x: any) => [x.name, x.version, x.status])).toEqual([
      ['alpha', skills.alpha.latest_version.version, 'active'],
      ['delta', 2, 'deprecated'],
      ['epsilon', 1, 'yanked'],
    ]);
    const warnings = (stderr: string) => stderr.split('\n').filter((line) => / is (deprecated|yanked)$/.test(line));
    expect(warnings(run.stderr)).toEqual([
      'skill-resolver: warning: delta v2 is deprecated',
      'skill-resolver: warning: epsilon v1 is yanked',
    ]);
    // Answered 304, the warnings and statuses come from the lock.
    const again = await sync(target, cache, [], created.id, tok);
    expect(again.json.requests).toBe(1);
    expect(again.json.skills.map((x: any) => x.status)).toEqual(['active', 'deprecated', 'yanked']);
    expect(warnings(again.stderr)).toEqual(warnings(run.stderr));
  });

  it('runs as `npx skill-resolver` from the repository, with nothing fetched', async () => {
    // A fresh npm cache, as on a clean machine: npx links the repository itself (its `bin`), offline.
    const child = spawn('npx', ['--offline', 'skill-resolver', '--help'], {
      cwd: REPO,
      env: { ...process.env, npm_config_cache: fresh('npm-cache'), npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run = await finished(child);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Usage:\n {2}skill-resolver sync --task ID --dir DIR/);
  });
});
