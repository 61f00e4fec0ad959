// `skill-resolver publish DIR` (docs/sandbox-client.md#publish) as a publisher runs it: the built
// command in a child process with an API key, against the real app on a real port, through the
// proxy that counts requests and can answer in the service's place.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cliEnv, Proxy, runCli, sha256Hex } from '../support/client-harness';
import { withClient } from '../support/database';
import { Scenario } from '../support/scenario';
import { ADMIN_KEY, as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';
import { buildZip } from '../support/zip-builder';

describe('skill-resolver publish', () => {
  let t: TestApp;
  let proxy: Proxy;
  let url: string;
  let work: string;
  let alice: TestUser;
  let n = 0;

  beforeAll(async () => {
    t = await startTestApp();
    await new Promise<void>((done) => t.app.getHttpServer().listen(0, '127.0.0.1', done));
    proxy = new Proxy((t.app.getHttpServer().address() as AddressInfo).port);
    url = await proxy.start();
    work = mkdtempSync(join(tmpdir(), 'sr-publish-'));
    alice = await createUser(t, 'pub-alice');
  });
  afterAll(async () => {
    await proxy?.close();
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });
  beforeEach(() => proxy.reset());

  /** A folder of files (a string or a Buffer each; `mode` 0o755 makes one executable). */
  function folder(files: Record<string, string | Buffer | { data: string; mode: number }>): string {
    const dir = join(work, `f${++n}`);
    for (const [path, content] of Object.entries(files)) {
      const full = join(dir, path);
      mkdirSync(dirname(full), { recursive: true });
      const data = typeof content === 'object' && 'mode' in content ? content.data : content;
      writeFileSync(full, data);
      if (typeof content === 'object' && 'mode' in content) chmodSync(full, content.mode);
    }
    return dir;
  }

  const skillMd = (name: string, description = `${name} does one thing well.`) =>
    `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;

  function publish(args: string[], key: string = alice.key, env: Record<string, string> = {}) {
    return runCli(
      ['publish', ...args],
      cliEnv(join(work, 'home'), { SKILL_RESOLVER_URL: url, SKILL_RESOLVER_TOKEN: key, ...env }),
    );
  }

  const skillRows = async (): Promise<number> =>
    withClient(t.db.url, async (c) => (await c.query('SELECT count(*)::int AS n FROM skill_versions')).rows[0].n);

  it('a dry run lists the files it would send and their hash, and sends nothing', async () => {
    const dir = folder({
      'SKILL.md': skillMd('greeter'),
      'scripts/run.sh': { data: '#!/bin/sh\necho hi\n', mode: 0o755 },
      'references/guide.md': '# Guide\n',
      '.DS_Store': 'mac',
      '.git/HEAD': 'ref: refs/heads/main\n',
      '__MACOSX/._SKILL.md': 'fork',
      'references/.DS_Store': 'mac',
    });
    const before = await skillRows();
    const run = await publish([dir, '--dry-run']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      ['644        74 SKILL.md', '644         8 references/guide.md', '755        18 scripts/run.sh', ''].join('\n'),
    );
    expect(run.stderr).toMatch(
      /^skill-resolver: greeter: 3 files, \d+ B packed, sha256:[0-9a-f]{64}: valid; nothing sent \(--dry-run\)\n$/,
    );
    expect(proxy.log).toEqual([]);
    expect(await skillRows()).toBe(before);

    const asJson = await publish([dir, '--dry-run', '--json']);
    expect(asJson.json).toMatchObject({
      dry_run: true,
      name: 'greeter',
      namespace: 'default',
      is_public: false,
      files: [
        { path: 'SKILL.md', size: 74, mode: '644', sha256: sha256Hex(skillMd('greeter')) },
        { path: 'references/guide.md', size: 8, mode: '644' },
        { path: 'scripts/run.sh', size: 18, mode: '755' },
      ],
      warnings: [],
    });
  });

  it('publishes a new skill, then nothing new for the same files, then a version; the hash is what the service stores', async () => {
    const dir = folder({ 'SKILL.md': skillMd('notes'), 'a.txt': 'one\n' });
    const dry = await publish([dir, '--dry-run', '--json']);
    const first = await publish([dir]);
    expect(first.code).toBe(0);
    const [, id, version, hash] = /^skill (\d+) version (\d+) (sha256:[0-9a-f]{64})\n$/.exec(first.stdout) ?? [];
    expect(version).toBe('1');
    expect(hash).toBe(dry.json.content_hash);
    expect(first.stderr).toBe(`skill-resolver: notes: skill ${id} version 1 (a new skill); 2 requests\n`);
    // The package the service stores is the one checked here, byte for byte.
    const download = await fetch(`${url}/api/skills/${id}/download`, { headers: as(alice.key) });
    expect(`sha256:${sha256Hex(Buffer.from(await download.arrayBuffer()))}`).toBe(hash);

    const again = await publish([dir, '--json']);
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({
      skill_id: Number(id),
      name: 'notes',
      outcome: 'unchanged',
      version: 1,
      content_hash: hash,
    });

    writeFileSync(join(dir, 'a.txt'), 'two\n');
    const third = await publish([dir, '--json']);
    expect(third.json).toMatchObject({ skill_id: Number(id), outcome: 'versioned', version: 2, file_count: 2 });
    expect(proxy.log.map((r) => `${r.method} ${r.path.split('?')[0]} ${r.status}`)).toEqual([
      'GET /api/skills 200',
      'POST /api/skills 201',
      `GET /api/skills/${id}/download 200`,
      'GET /api/skills 200',
      `POST /api/skills/${id}/versions 200`,
      'GET /api/skills 200',
      `POST /api/skills/${id}/versions 201`,
    ]);
  });

  it("lists every problem with the service's codes and exits 4, sending nothing", async () => {
    const dir = folder({
      'SKILL.md': '---\nname: Bad_Name\n---\nno description\n',
      'big.bin': Buffer.alloc(2048),
    });
    symlinkSync('/etc/passwd', join(dir, 'passwd'));
    const before = await skillRows();
    const run = await publish([dir], alice.key, { MAX_FILE_BYTES: '1024' });
    expect(run.code).toBe(4);
    expect(run.stderr.split('\n')).toEqual([
      'skill-resolver: ZIP_ENTRY_TOO_LARGE: "big.bin" is 2048 bytes, more than the 1024 a file may be. [big.bin]',
      'skill-resolver: ZIP_SYMLINK: "passwd" is a symbolic link; a package holds regular files only. [passwd]',
      'skill-resolver: NAME_INVALID: The name must be 1-64 characters of a-z, 0-9 and "-", with no hyphen at either end and no "--". [name]',
      'skill-resolver: DESCRIPTION_MISSING: The frontmatter has no "description". [description]',
      `skill-resolver: ${dir} is not a valid skill package: 4 problems; nothing was sent`,
      '',
    ]);
    expect(proxy.log).toEqual([]);
    expect(await skillRows()).toBe(before);

    // The rules are the service's own: what a zip can carry, the service reports the same way.
    const zip = buildZip([{ path: 'SKILL.md', data: '---\nname: Bad_Name\n---\nno description\n' }]);
    const served = await t.http.post('/api/skills/validate').set(as(alice.key)).attach('file', zip, 'x.zip');
    expect(served.body.errors.map((p: { code: string }) => p.code)).toEqual(['NAME_INVALID', 'DESCRIPTION_MISSING']);
    const json = await publish([dir, '--json'], alice.key, { MAX_FILE_BYTES: '1024' });
    expect(json.json.errors.slice(2)).toEqual(served.body.errors);
  });

  it('into a group as a Developer, a version only of what the caller may change; public only for admins', async () => {
    const s = new Scenario(t);
    const bob: TestUser = await createUser(t, 'pub-bob');
    await s.group(alice, 'pub-team', [[bob, 'Developer']]);
    const dir = folder({ 'SKILL.md': skillMd('team-tool') });
    const made = await publish([dir, '--namespace', 'pub-team', '--json']);
    expect(made.json).toMatchObject({ namespace: 'pub-team', is_public: false, outcome: 'created', version: 1 });
    writeFileSync(join(dir, 'extra.md'), 'more\n');
    const refused = await publish([dir, '--namespace', 'pub-team'], bob.key);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/the service answered 403 \(FORBIDDEN: /);

    const pub = folder({ 'SKILL.md': skillMd('shared-tool') });
    expect((await publish([pub, '--public'])).code).toBe(1);
    const byAdmin = await publish([pub, '--public', '--json'], ADMIN_KEY);
    expect(byAdmin.json).toMatchObject({ namespace: 'default', is_public: true, outcome: 'created' });
  });

  it('retries a 503 and a 429 as the sync does, and says so', async () => {
    const dir = folder({ 'SKILL.md': skillMd('patient') });
    let refusals = 0;
    proxy.rules.answer = (path) =>
      path.startsWith('/api/skills') && refusals++ < 2
        ? {
            status: refusals === 1 ? 503 : 429,
            headers: { 'retry-after': '0', 'content-type': 'application/json' },
            body: JSON.stringify({
              code: refusals === 1 ? 'DATABASE_UNAVAILABLE' : 'RATE_LIMITED',
              message: 'try again',
            }),
          }
        : null;
    const run = await publish([dir, '--json']);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ outcome: 'created', version: 1 });
    expect(run.stderr).toMatch(/answered 503 \(DATABASE_UNAVAILABLE: try again\); trying again in/);
    expect(run.stderr).toMatch(/answered 429 \(RATE_LIMITED: try again\); trying again in/);
    expect(run.stderr).toMatch(/4 requests \(2 retried\)/);
  });

  it.each<[string, string[], RegExp]>([
    ['no folder', [], /publish needs one folder/],
    ['two folders', ['a', 'b'], /publish needs one folder/],
    ['a folder that is not there', ['/nonexistent/skill'], /is not a folder/],
    ['--public in a group', ['.', '--public', '--namespace', 'g'], /--public skills live in the default namespace/],
  ])('usage: %s is exit 2', async (_, args, message) => {
    const run = await publish(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('a task token may not publish: exit 2, nothing sent', async () => {
    const run = await publish([folder({ 'SKILL.md': skillMd('sneaky') })], 'srt_not_a_key_0123456789');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/publish needs an API key; the token given is a task token/);
    expect(proxy.log).toEqual([]);
  });
});
