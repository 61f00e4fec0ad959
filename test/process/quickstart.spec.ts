// The README's quickstart, run verbatim: the fenced block between its markers (which runs
// examples/quickstart.sh) goes to bash against the built service on a real port, on a fresh
// install (an empty data folder, or an empty database on a server), with only the variables the
// script names; then once more, as a newcomer would. And the entrypoint docs/sandbox-client.md
// shows is the file examples/sandbox-entrypoint.sh.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyServerDatabase, isServerMode, TestDatabase } from '../support/database';
import { getJson, ServiceProcess, startService } from '../support/service-process';

const REPO = join(__dirname, '..', '..');

/** The body of the fenced `sh` block between `<!-- name -->` and `<!-- /name -->` in a repository file. */
function markedBlock(file: string, name: string): string {
  const text = readFileSync(join(REPO, file), 'utf8');
  const match = new RegExp(`<!-- ${name} -->\\n+\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\n+<!-- /${name} -->`).exec(text);
  if (!match) throw new Error(`${file} has no sh block between <!-- ${name} --> and <!-- /${name} -->`);
  return match[1];
}

function runBash(
  script: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the README quickstart', () => {
  let scratch: string;
  let db: TestDatabase | undefined;
  let service: ServiceProcess;
  let port: number;
  let adminKey: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'sr-quickstart-'));
    const dataDir = join(scratch, 'data');
    // A fresh install: on a server an empty database, else an empty data folder (embedded).
    db = isServerMode() ? await emptyServerDatabase() : undefined;
    service = startService({ DATA_DIR: dataDir, ...(db ? { DATABASE_URL: db.url } : {}) });
    port = await service.ready;
    adminKey = readFileSync(join(dataDir, 'admin-api-key'), 'utf8').trim();
  });

  afterAll(async () => {
    await service?.stop();
    await db?.drop();
    rmSync(scratch, { recursive: true, force: true });
  });

  const run = (work: string) =>
    runBash(markedBlock('README.md', 'quickstart'), {
      PATH: process.env.PATH ?? '',
      HOME: join(scratch, 'home'),
      SR_URL: `http://127.0.0.1:${port}`,
      ADMIN_KEY: adminKey,
      WORK: work,
    });

  it('publishes, resolves, downloads with a task token and syncs a sandbox folder, as written', async () => {
    expect(markedBlock('README.md', 'quickstart')).toBe('sh examples/quickstart.sh\n');
    const work = join(scratch, 'work');
    const first = await run(work);
    expect({ code: first.code, stderr: first.code === 0 ? '' : first.stderr }).toEqual({ code: 0, stderr: '' });
    expect(first.stdout).toMatch(
      /^1\. user alice-\d+-\d+\n2\. skill hello-world: id 1\n3\. ghost 1, bot 1, team 1, task 1\n/,
    );

    // Step 4 printed the resolution: the skill as an exact ref in both maps.
    const start = first.stdout.indexOf('{');
    const end = first.stdout.indexOf('\n}\n') + 2;
    const skills = JSON.parse(first.stdout.slice(start, end));
    const ref = {
      skill_id: 1,
      namespace: 'default',
      is_public: false,
      version: 1,
      content_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      pinned: false,
      tag: null,
      status: 'active',
      allowed_tools: ['Read', 'Bash(echo *)'],
      requires: { bins: [], env: [] },
    };
    expect(skills).toEqual({
      task_id: 1,
      team_id: 1,
      team_namespace: 'default',
      skills: ['hello-world'],
      preload_skills: ['hello-world'],
      skill_refs: { 'hello-world': ref },
      preload_skill_refs: { 'hello-world': ref },
      unresolved: [],
      fingerprint: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    const hash = skills.skill_refs['hello-world'].content_hash;

    // Step 5: the token's download is the package the ref names.
    expect(first.stdout).toContain(`5. download matches ${hash}\n`);

    // Step 6: the first sync downloaded it; the second made one request and fetched nothing.
    expect(first.stderr).toMatch(/\[1\/1\] hello-world v1 from download/);
    expect(first.stderr).toMatch(/1 skill in .*, 0 failed, 0 unresolved; 2 requests/);
    const second = JSON.parse(first.stdout.split('\n').find((line) => line.startsWith('{"fingerprint"')) ?? 'null');
    expect(second).toEqual({
      fingerprint: skills.fingerprint,
      skills: [{ name: 'hello-world', version: 1, content_hash: hash, status: 'active', from: 'cache' }],
      unresolved: [],
      requests: 1,
      retries: 0,
      bytes_downloaded: 0,
      failed: [],
    });
    expect(first.stderr).toMatch(/1 skill, 1 file checked: all match the lock/);
    expect(first.stdout).toMatch(/---\nname: hello-world\n[\s\S]*Say hello, then ask how to help\.\n6\. synced into /);
    expect(readFileSync(join(work, 'sandbox', 'skills', 'hello-world', 'SKILL.md'), 'utf8')).toContain(
      'name: hello-world',
    );

    // What the script made is in the service, owned by the user it created.
    const task = await getJson(port, '/api/tasks/1', { 'x-api-key': adminKey });
    expect(task).toMatchObject({
      status: 200,
      body: { id: 1, team_id: 1, owner_user_id: 2, title: 'Welcome a visitor' },
    });

    // Run again on the same service: a user of its own, everything new, nothing refused.
    const again = await run(join(scratch, 'work-again'));
    expect({ code: again.code, stderr: again.code === 0 ? '' : again.stderr }).toEqual({ code: 0, stderr: '' });
    expect(again.stdout).toMatch(
      /^1\. user alice-\d+-\d+\n2\. skill hello-world: id 2\n3\. ghost 2, bot 2, team 2, task 2\n/,
    );
    expect(again.stdout).toContain('6. synced into ');
  });

  it("stops with the service's own answer when a request is refused", async () => {
    const refused = await runBash(markedBlock('README.md', 'quickstart'), {
      PATH: process.env.PATH ?? '',
      HOME: join(scratch, 'home'),
      SR_URL: `http://127.0.0.1:${port}`,
      ADMIN_KEY: 'not-a-key',
      WORK: join(scratch, 'work-refused'),
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'quickstart: POST /api/users answered 401 UNAUTHENTICATED: Invalid, revoked or expired credentials\n',
    );
  });

  it('shows the sandbox entrypoint in docs/sandbox-client.md exactly as examples/sandbox-entrypoint.sh', () => {
    expect(markedBlock('docs/sandbox-client.md', 'entrypoint')).toBe(
      readFileSync(join(REPO, 'examples', 'sandbox-entrypoint.sh'), 'utf8'),
    );
  });
});
