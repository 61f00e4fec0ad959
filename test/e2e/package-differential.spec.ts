// Differential test (docs/testing.md#differential-tests): every hostile archive is either rejected with nothing stored, or
// its download, unpacked by Python's zipfile, Info-ZIP unzip and libarchive's bsdtar (reading the
// file, and streaming it from stdin as a streaming reader does), yields
// exactly the manifest's paths, bytes and modes. With DIFFERENTIAL_REPORT=<file> it also writes
// what each extractor makes of the raw upload, as a table.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binary, publish, skillRowCounts } from '../support/skills';
import { hostileZips } from '../support/hostile-zips';
import { as, createUser, startTestApp, TestApp, TestUser } from '../support/test-app';

type View = string[] | { error: string };

const PYTHON_VIEW = `
import hashlib, json, sys, zipfile
out = []
with zipfile.ZipFile(sys.argv[1]) as z:
    for info in z.infolist():
        if info.is_dir():
            continue
        mode = '755' if (info.external_attr >> 16) & 0o111 else '644'
        out.append(info.filename + ' ' + mode + ' ' + hashlib.sha256(z.read(info)).hexdigest())
print(json.dumps(out))
`;

function which(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Every file (and link) under `dir` as "path mode sha256" (links as "path -> target"). */
function walk(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    const rel = prefix + name;
    const stat = lstatSync(full);
    if (stat.isSymbolicLink()) out.push(`${rel} -> link`);
    else if (stat.isDirectory()) out.push(...walk(full, `${rel}/`));
    else {
      const mode = (stat.mode & 0o111) !== 0 ? '755' : '644';
      out.push(`${rel} ${mode} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`);
    }
  }
  return out;
}

type Tool = 'python' | 'unzip' | 'bsdtar' | 'bsdtar-stream';

function extractWith(tool: Tool, zip: Buffer): View {
  const dir = mkdtempSync(join(tmpdir(), `sr-diff-${tool}-`));
  const file = join(dir, 'package.zip');
  const out = join(dir, 'out');
  writeFileSync(file, zip);
  try {
    if (tool === 'python') {
      return (
        JSON.parse(execFileSync('python3', ['-c', PYTHON_VIEW, file], { encoding: 'utf8', stdio: 'pipe' })) as string[]
      ).sort();
    }
    execFileSync('mkdir', ['-p', out]);
    if (tool === 'unzip') execFileSync('unzip', ['-qq', '-o', file, '-d', out], { stdio: 'pipe' });
    else if (tool === 'bsdtar') execFileSync('bsdtar', ['-x', '-p', '-f', file, '-C', out], { stdio: 'pipe' });
    else execFileSync('bsdtar', ['-x', '-p', '-f', '-', '-C', out], { input: zip, stdio: 'pipe' });
    return walk(out).sort();
  } catch (err) {
    // Python's last line names the exception; unzip may print its complaint on stdout.
    const { stderr, stdout } = err as { stderr?: Buffer | string; stdout?: Buffer | string };
    const lines = `${String(stderr ?? err)}\n${String(stdout ?? '')}`
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    return { error: ((tool === 'python' ? lines.at(-1) : lines[0]) ?? 'failed').slice(0, 80) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const TOOLS = (['python', 'unzip', 'bsdtar', 'bsdtar-stream'] as const).filter((tool) =>
  which(tool === 'python' ? 'python3' : tool.split('-')[0]),
);

describe('stored packages unpack to exactly their manifest, with every extractor', () => {
  let t: TestApp;
  let user: TestUser;
  const report: string[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    user = await createUser(t, 'differ');
  });
  afterAll(async () => {
    const file = process.env.DIFFERENTIAL_REPORT;
    if (file) {
      // What each extractor makes of the upload; an accepted upload's download matched the manifest.
      if (!existsSync(file)) {
        appendFileSync(
          file,
          `| archive | stored manifest or verdict | ${TOOLS.join(' | ')} |\n|${' --- |'.repeat(TOOLS.length + 2)}\n`,
        );
      }
      appendFileSync(file, report.join('\n') + '\n');
    }
    await t.close();
  });

  it('has the extractors it compares (python3 always; unzip and bsdtar where installed)', () => {
    expect(TOOLS).toContain('python');
  });

  const cases = hostileZips('case').map((hostile, index) => ({ index, title: hostile.title }));
  it.each(cases.map((c) => [c.title, c.index] as const))('%s', async (_title, index) => {
    const name = `case-${index}`;
    const hostile = hostileZips(name)[index];
    const before = await skillRowCounts(t);
    const res = await publish(t, user, hostile.zip);
    const raw = Object.fromEntries(TOOLS.map((tool) => [tool, extractWith(tool, hostile.zip)]));

    if (hostile.codes.length > 0) {
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('SKILL_INVALID');
      expect(res.body.details.errors.map((p: { code: string }) => p.code)).toEqual(hostile.codes);
      expect(await skillRowCounts(t)).toEqual(before);
      report.push(
        `| ${hostile.title} | rejected: ${hostile.codes.join(', ')} | ${TOOLS.map((tool) => brief(raw[tool])).join(' | ')} |`,
      );
      return;
    }

    expect(res.status).toBe(201);
    const manifest = await t.http.get(`/api/skills/${res.body.id}/manifest`).set(as(user.key));
    const expected = (manifest.body.files as Array<{ path: string; mode: string; sha256: string }>)
      .map((file) => `${name}/${file.path} ${file.mode} ${file.sha256}`)
      .sort();
    const download = await t.http.get(`/api/skills/${res.body.id}/download`).set(as(user.key)).buffer().parse(binary);
    for (const tool of TOOLS) {
      // A streaming reader sees only local headers, which carry no mode: it is compared on paths and bytes.
      const comparable = (view: View): View =>
        tool === 'bsdtar-stream' && Array.isArray(view) ? view.map((line) => line.replace(/ (644|755) /, ' ')) : view;
      expect({ tool, view: comparable(extractWith(tool, download.body)) }).toEqual({
        tool,
        view: comparable(expected),
      });
    }
    report.push(
      `| ${hostile.title} | ${expected.length} files: ${expected.map((line) => line.split(' ').slice(0, 2).join(' ')).join(', ')} | ${TOOLS.map((tool) => brief(raw[tool])).join(' | ')} |`,
    );
  });
});

function brief(view: View): string {
  if (!Array.isArray(view)) return `error: ${view.error.replaceAll('|', '\\|')}`;
  return view.map((line) => line.split(' ').slice(0, 2).join(' ')).join(', ') || '(nothing)';
}
