// The `skills` installer itself (`npx skills add <url>`, the npm package pinned as a dev
// dependency) against the real app on a real port (docs/well-known.md#installing): it installs
// every public skill for Claude Code byte for byte, refuses an archive whose bytes changed on the
// way, and writes nothing outside the scratch project and HOME it is given.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Proxy, tree } from '../support/client-harness';
import { listen } from '../support/raw-http';
import { publishSkill } from '../support/skills';
import { ADMIN_KEY, as, createUser, startTestApp, TestApp } from '../support/test-app';
import { buildZip } from '../support/zip-builder';

const INSTALLER = join(__dirname, '..', '..', 'node_modules', 'skills', 'bin', 'cli.mjs');
const INSTALLER_VERSION = '1.7.4';
/** The installer's own `engines`: it uses what older releases of Node.js lack. */
const MIN_NODE = [22, 20];

const [major, minor] = process.versions.node.split('.').map(Number);
const skipReason =
  major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])
    ? null
    : `the skills installer needs Node.js ${MIN_NODE.join('.')} or later, and this is ${process.version}`;
if (skipReason) process.stderr.write(`test/process/well-known-installer.spec.ts does not run: ${skipReason}\n`);
const suite = skipReason ? describe.skip : describe;

interface Run {
  code: number | null;
  /** stdout and stderr, as a person would read them. */
  transcript: string;
}

/** `skills add <url> --yes -a claude-code` in `project`, with `home` as HOME and no telemetry. */
function install(url: string, project: string, home: string, extra: string[] = []): Promise<Run> {
  const child = spawn(process.execPath, [INSTALLER, 'add', url, '--yes', '-a', 'claude-code', ...extra], {
    cwd: project,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, DISABLE_TELEMETRY: '1', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => output.push(c));
  child.stderr.on('data', (c: Buffer) => output.push(c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, transcript: Buffer.concat(output).toString('utf8') });
    }),
  );
}

suite(`skills add (the skills installer ${INSTALLER_VERSION}) against the well-known index`, () => {
  let t: TestApp;
  let base: string;
  let work: string;
  /** Each public skill's files as publish recorded them. */
  const published = new Map<string, Array<{ path: string; sha256: string; mode: string }>>();

  beforeAll(async () => {
    t = await startTestApp({ WELL_KNOWN_INDEX: 'public' });
    base = `http://127.0.0.1:${await listen(t)}`;
    work = mkdtempSync(join(tmpdir(), 'sr-installer-'));
    const installed = JSON.parse(readFileSync(join(INSTALLER, '..', '..', 'package.json'), 'utf8'));
    expect(installed.version).toBe(INSTALLER_VERSION);
    for (const [i, name] of ['pdf-tools', 'git-helper', 'sql-review'].entries()) {
      const skill = await publishSkill(
        t,
        ADMIN_KEY,
        name,
        { public: 'true' },
        {
          description: `Helps with ${name} work. Use when the user asks for ${name}.`,
          body: `# ${name}\n\nRun scripts/run.sh, then read references/guide.md.\n`,
          files: {
            'scripts/run.sh': `#!/bin/sh\necho ${name}\n`,
            'references/guide.md': `## Step ${i}\n`.repeat(500),
            'references/résumé.md': 'Non-ASCII names survive.\n',
            'assets/table.bin': Buffer.from(Array.from({ length: 4096 }, (_, k) => (k * 31 + i) & 0xff)),
          },
        },
      );
      const manifest = await t.http.get(`/api/skills/${skill.id}/manifest`).set(as(ADMIN_KEY));
      published.set(name, manifest.body.files);
    }
    // Not public: never offered.
    await publishSkill(t, await createUser(t, 'alice'), 'private-notes');
  });
  afterAll(async () => {
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** An empty project folder to run in, and an empty HOME. */
  function scratch(label: string): { project: string; home: string } {
    const project = join(work, label, 'project');
    const home = join(work, label, 'home');
    for (const dir of [project, home]) mkdirSync(dir, { recursive: true });
    return { project, home };
  }

  /** What an install of `names` must leave in the project: each file under .claude/skills/<name>/, and the lock. */
  function expectedTree(names: string[]): Array<{ path: string; sha256: string }> {
    return names
      .flatMap((name) =>
        published.get(name)!.map((f) => ({ path: `.claude/skills/${name}/${f.path}`, sha256: f.sha256 })),
      )
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  const installedFiles = (project: string) =>
    tree(project)
      .filter((f) => f.path !== 'skills-lock.json')
      .map(({ path, sha256 }) => ({ path, sha256 }));

  it('installs every public skill for Claude Code byte for byte, and writes nothing outside the project', async () => {
    const { project, home } = scratch('root');
    const index = (await t.http.get('/.well-known/agent-skills/index.json')).body;
    const run = await install(base, project, home);
    expect({ code: run.code, transcript: run.transcript }).toEqual({
      code: 0,
      transcript: expect.stringContaining('Found 3 skills'),
    });
    expect(run.transcript).toContain('Installed 3 skills');
    expect(run.transcript).not.toContain('private-notes');

    expect(installedFiles(project)).toEqual(expectedTree(['git-helper', 'pdf-tools', 'sql-review']));
    expect(tree(home)).toEqual([]);
    // The installer writes files with default modes: the executable bit of scripts/run.sh is not kept.
    const script = tree(project).find((f) => f.path === '.claude/skills/pdf-tools/scripts/run.sh')!;
    expect(script.mode & 0o111).toBe(0);

    // Its lock records the digests the index listed.
    const lock = JSON.parse(readFileSync(join(project, 'skills-lock.json'), 'utf8'));
    expect(Object.keys(lock.skills).sort()).toEqual(['git-helper', 'pdf-tools', 'sql-review']);
    for (const entry of index.skills) {
      expect(lock.skills[entry.name]).toEqual(
        expect.objectContaining({ sourceType: 'well-known', sourceUrl: base, wellKnownDigest: entry.digest }),
      );
    }
  });

  it('installs the same from the index under /api', async () => {
    const { project, home } = scratch('api');
    const run = await install(`${base}/api`, project, home);
    expect(run.code).toBe(0);
    expect(installedFiles(project)).toEqual(expectedTree(['git-helper', 'pdf-tools', 'sql-review']));
    expect(tree(home)).toEqual([]);
  });

  it('refuses an archive whose bytes changed after the index was read, and installs the others', async () => {
    const proxy = new Proxy(Number(new URL(base).port));
    const url = await proxy.start();
    try {
      proxy.rules.tamper = (path) => path.includes('/archives/git-helper-');
      const { project, home } = scratch('tampered');
      const run = await install(url, project, home);
      expect(run.code).toBe(0);
      expect(run.transcript).toContain('Found 2 skills');
      expect(installedFiles(project)).toEqual(expectedTree(['pdf-tools', 'sql-review']));
      expect(existsSync(join(project, '.claude', 'skills', 'git-helper'))).toBe(false);
      // It did fetch the archive, and the digest check is what refused it.
      expect(proxy.log.filter((r) => r.path.includes('/archives/git-helper-')).map((r) => r.status)).toEqual([200]);
    } finally {
      await proxy.close();
    }
  });

  it('writes SKILL.md without its byte order mark, the one difference from the stored bytes', async () => {
    const skillMd = '\ufeff---\r\nname: bom-notes\r\ndescription: Written on Windows.\r\n---\r\n# Notes\r\n';
    const res = await t.http
      .post('/api/skills')
      .set(as(ADMIN_KEY))
      .field('public', 'true')
      .attach('file', buildZip([{ path: 'bom-notes/SKILL.md', data: skillMd }]), 'bom-notes.zip');
    expect(res.status).toBe(201);
    const { project, home } = scratch('bom');
    const run = await install(base, project, home, ['--skill', 'bom-notes']);
    expect(run.code).toBe(0);
    const installed = readFileSync(join(project, '.claude', 'skills', 'bom-notes', 'SKILL.md'));
    const stored = Buffer.from(skillMd, 'utf8');
    expect(stored.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(installed.equals(stored.subarray(3))).toBe(true);
  });
});
