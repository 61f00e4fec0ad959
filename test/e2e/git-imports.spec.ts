// Importing skills from git (docs/publishing.md#importing-from-git) through the real app, against a
// real git server on loopback (git http-backend) serving repositories built here: a monorepo at a
// branch that moves, tags, a commit id, provenance, drift checks and updates, the package rules on
// what is imported, the allowlist, the concurrency limits, and for every refusal: nothing stored.
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { withClient } from '../support/database';
import { GitTestRepo, GitTestRequest, GitTestServer, lfsPointer } from '../support/git-server';
import { skillRowCounts } from '../support/skills';
import { skillZip } from '../support/zip-builder';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';

function skillMd(name: string, body = '# Skill\n'): string {
  return `---\nname: ${name}\ndescription: The ${name} skill.\n---\n${body}`;
}

/** Row counts of everything an import writes, and the stored packages. */
async function counts(t: TestApp): Promise<Record<string, number>> {
  const rows = await withClient(t.db.url, async (c) => ({
    skill_sources: Number((await c.query('SELECT count(*) FROM skill_sources')).rows[0].count),
    audit_events: Number((await c.query('SELECT count(*) FROM audit_events')).rows[0].count),
  }));
  return { ...(await skillRowCounts(t)), ...rows };
}

const PRIVATE_TOKEN = 'glpat-private-token-0123456789';

describe('git imports', () => {
  let t: TestApp;
  let git: GitTestServer;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let mono: GitTestRepo;
  /** The monorepo's tree at its first commit. */
  let tree: Record<string, string | { content: string; executable: boolean }>;
  let c1: string;

  const importAs = (caller: TestUser | string, body: object): request.Test =>
    t.http
      .post('/api/skills/imports')
      .set(as(typeof caller === 'string' ? caller : caller.key))
      .send(body);

  /** A request that must be refused with `status`/`code` and store nothing. */
  async function refused(
    caller: TestUser | string,
    body: object,
    status: number,
    code: string,
  ): Promise<Record<string, unknown>> {
    const before = await counts(t);
    const res = await importAs(caller, body);
    const error = expectError(res, status, code);
    expect(await counts(t)).toEqual(before);
    return error;
  }

  beforeAll(async () => {
    git = await GitTestServer.start();
    t = await startTestApp({
      GIT_ALLOWED_HOSTS: `http://${git.host}`,
      GIT_CREDENTIALS: `${git.host}=${PRIVATE_TOKEN}`,
      GIT_IMPORT_TIMEOUT_MS: '5000',
    });
    alice = await createUser(t, 'alice');
    bob = await createUser(t, 'bob');
    carol = await createUser(t, 'carol');
    const group = await t.http.post('/api/groups').set(as(alice.key)).send({ name: 'team-a' });
    expect(group.status).toBe(201);
    await t.http.put(`/api/groups/${group.body.id}/members/${bob.id}`).set(as(alice.key)).send({ role: 'Reporter' });
    mono = await git.createRepo('mono');
    tree = {
      'README.md': '# Skills\n',
      'skills/alpha/SKILL.md': skillMd('alpha'),
      'skills/alpha/run.sh': { content: '#!/bin/sh\necho alpha\n', executable: true },
      'skills/beta/SKILL.md': skillMd('beta'),
      'skills/beta/.DS_Store': 'finder',
      'skills/notes/todo.txt': 'not a skill',
    };
    c1 = await mono.commit(tree);
  });

  afterAll(async () => {
    await t?.close();
    await git?.stop();
  });

  describe('a monorepo at a branch that moves', () => {
    let alphaId: number;
    let betaId: number;
    let c2: string;
    let c3: string;

    it('imports every child folder with SKILL.md, pinned to the commit, with its provenance', async () => {
      const res = await importAs(alice, { url: mono.url, ref: 'main', path: 'skills' });
      expect(res.status).toBe(201);
      expect(res.body.items).toEqual([
        {
          name: 'alpha',
          path: 'skills/alpha',
          skill_id: expect.any(Number),
          version: 1,
          status: 'created',
          warnings: [],
        },
        {
          name: 'beta',
          path: 'skills/beta',
          skill_id: expect.any(Number),
          version: 1,
          status: 'created',
          warnings: [],
        },
      ]);
      [alphaId, betaId] = res.body.items.map((i: { skill_id: number }) => i.skill_id);

      const versions = await t.http.get(`/api/skills/${alphaId}/versions`).set(as(alice.key));
      const provenance = { type: 'git', url: mono.url, ref: 'main', commit: c1, path: 'skills/alpha' };
      expect(versions.body.items[0].source).toEqual(provenance);
      const manifest = await t.http.get(`/api/skills/${alphaId}/manifest`).set(as(alice.key));
      expect(manifest.body.source).toEqual(provenance);
      // The files as an upload of the folder would hold them: run.sh executable, .DS_Store left out.
      expect(manifest.body.files.map((f: { path: string; mode: string }) => [f.path, f.mode])).toEqual([
        ['SKILL.md', '644'],
        ['run.sh', '755'],
      ]);
      const beta = await t.http.get(`/api/skills/${betaId}/manifest`).set(as(alice.key));
      expect(beta.body.files.map((f: { path: string }) => f.path)).toEqual(['SKILL.md']);

      const source = await t.http.get(`/api/skills/${alphaId}/source`).set(as(alice.key));
      expect(source.status).toBe(200);
      expect(source.body).toEqual({
        source: provenance,
        latest_commit: c1,
        behind: false,
        checked_at: expect.any(String),
      });
    });

    it('is idempotent: the same import again changes nothing (200, unchanged)', async () => {
      const before = await skillRowCounts(t);
      const res = await importAs(alice, { url: mono.url, ref: 'main', path: 'skills' });
      expect(res.status).toBe(200);
      expect(res.body.items.map((i: { status: string; version: number }) => [i.status, i.version])).toEqual([
        ['unchanged', 1],
        ['unchanged', 1],
      ]);
      expect(await skillRowCounts(t)).toEqual(before);
    });

    it('a change elsewhere in the repository: not behind, and an update publishes nothing', async () => {
      c2 = await mono.commit({ ...tree, 'README.md': '# Skills, revised\n' });
      const check = await t.http.post(`/api/skills/${alphaId}/source/check`).set(as(alice.key));
      expect(check.status).toBe(200);
      expect(check.body).toEqual(
        expect.objectContaining({ latest_commit: c2, behind: false, checked_at: expect.any(String) }),
      );
      expect(check.body.source.commit).toBe(c1);

      const before = await skillRowCounts(t);
      const update = await t.http.post(`/api/skills/${alphaId}/source/update`).set(as(alice.key));
      expect(update.status).toBe(200);
      expect(update.body).toEqual(expect.objectContaining({ version: 1 }));
      expect(update.body.source.commit).toBe(c1);
      expect(await skillRowCounts(t)).toEqual(before);
    });

    it("a change in one skill's folder: that one is behind, and an update publishes it at the new commit", async () => {
      c3 = await mono.commit({
        ...tree,
        'README.md': '# Skills, revised\n',
        'skills/alpha/SKILL.md': skillMd('alpha', '# Alpha, better\n'),
      });
      const alpha = await t.http.post(`/api/skills/${alphaId}/source/check`).set(as(alice.key));
      expect(alpha.body).toEqual(expect.objectContaining({ latest_commit: c3, behind: true }));
      const beta = await t.http.post(`/api/skills/${betaId}/source/check`).set(as(alice.key));
      expect(beta.body).toEqual(expect.objectContaining({ latest_commit: c3, behind: false }));
      expect((await t.http.get(`/api/skills/${alphaId}/source`).set(as(alice.key))).body.behind).toBe(true);

      const update = await t.http.post(`/api/skills/${alphaId}/source/update`).set(as(alice.key));
      expect(update.status).toBe(201);
      expect(update.body).toEqual(
        expect.objectContaining({
          version: 2,
          source: { type: 'git', url: mono.url, ref: 'main', commit: c3, path: 'skills/alpha' },
        }),
      );
      const versions = await t.http.get(`/api/skills/${alphaId}/versions`).set(as(alice.key));
      expect(
        versions.body.items.map((v: { version: number; source: { commit: string } }) => [v.version, v.source.commit]),
      ).toEqual([
        [2, c3],
        [1, c1],
      ]);
      const source = await t.http.get(`/api/skills/${alphaId}/source`).set(as(alice.key));
      expect(source.body).toEqual(expect.objectContaining({ latest_commit: c3, behind: false }));
      expect(source.body.source.commit).toBe(c3);

      // Updated already: a second update has nothing to publish.
      expect((await t.http.post(`/api/skills/${alphaId}/source/update`).set(as(alice.key))).status).toBe(200);
    });

    it('a change and its revert: no change', async () => {
      const now = {
        ...tree,
        'README.md': '# Skills, revised\n',
        'skills/alpha/SKILL.md': skillMd('alpha', '# Alpha, better\n'),
      };
      const changed = await mono.commit({ ...now, 'skills/beta/SKILL.md': skillMd('beta', '# Beta, for a moment\n') });
      const check = await t.http.post(`/api/skills/${betaId}/source/check`).set(as(alice.key));
      expect(check.body).toEqual(expect.objectContaining({ latest_commit: changed, behind: true }));
      const reverted = await mono.commit(now);
      const again = await t.http.post(`/api/skills/${betaId}/source/check`).set(as(alice.key));
      expect(again.body).toEqual(expect.objectContaining({ latest_commit: reverted, behind: false }));
    });

    it('a commit id pins the import: the old files become a new version, recorded at that commit', async () => {
      const res = await importAs(alice, { url: mono.url, ref: c1, path: 'skills/alpha' });
      expect(res.status).toBe(201);
      expect(res.body.items).toEqual([expect.objectContaining({ name: 'alpha', status: 'versioned', version: 3 })]);
      const version = (await t.http.get(`/api/skills/${alphaId}/versions`).set(as(alice.key))).body.items[0];
      expect(version.source).toEqual({ type: 'git', url: mono.url, ref: c1, commit: c1, path: 'skills/alpha' });
    });

    it('audits the import, the checks and the updates', async () => {
      const actions = async (action: string) =>
        (await t.http.get(`/api/audit-events?action=${action}&limit=100`).set(as(ADMIN_KEY))).body.items;
      const imports = await actions('skill.import');
      expect(imports.length).toBeGreaterThanOrEqual(3);
      expect(imports).toContainEqual(
        expect.objectContaining({
          target_type: 'skill',
          target_id: alphaId,
          details: expect.objectContaining({ url: mono.url, ref: 'main', commit: c1, path: 'skills/alpha' }),
        }),
      );
      expect((await actions('skill_source.check')).length).toBe(5);
      const updates = await actions('skill_source.update');
      expect(updates.map((e: { details: { status: string } }) => e.details.status).sort()).toEqual([
        'unchanged',
        'unchanged',
        'versioned',
      ]);
      expect(updates).toContainEqual(
        expect.objectContaining({
          target_type: 'skill_source',
          target_id: alphaId,
          details: expect.objectContaining({ commit: c3, status: 'versioned' }),
        }),
      );
    });

    it('counts imports by outcome', async () => {
      const metrics = await t.http.get('/api/metrics').set(as(ADMIN_KEY));
      expect(metrics.text).toMatch(/skill_resolver_git_imports_total\{outcome="created"\} [1-9]/);
      expect(metrics.text).toMatch(/skill_resolver_git_imports_total\{outcome="unchanged"\} [1-9]/);
    });
  });

  describe('refs', () => {
    it('a light tag and an annotated tag: the commit they name', async () => {
      await mono.tag('v1', c1);
      await mono.tag('v1-notes', c1, 'release one');
      const light = await importAs(alice, { url: mono.url, ref: 'v1', path: 'skills/beta', namespace: 'team-a' });
      expect(light.status).toBe(201);
      const [item] = light.body.items;
      expect(item).toEqual(expect.objectContaining({ name: 'beta', status: 'created', version: 1 }));
      const versions = await t.http.get(`/api/skills/${item.skill_id}/versions`).set(as(alice.key));
      expect(versions.body.items[0].source).toEqual({
        type: 'git',
        url: mono.url,
        ref: 'v1',
        commit: c1,
        path: 'skills/beta',
      });
      const annotated = await importAs(ADMIN_KEY, {
        url: mono.url,
        ref: 'v1-notes',
        path: 'skills/beta',
        public: true,
      });
      expect(annotated.status).toBe(201);
      const pub = await t.http.get(`/api/skills/${annotated.body.items[0].skill_id}/versions`).set(as(ADMIN_KEY));
      expect(pub.body.items[0].source).toEqual(expect.objectContaining({ ref: 'v1-notes', commit: c1 }));
    });

    it("no ref: the remote's HEAD, recorded as HEAD", async () => {
      const res = await importAs(carol, { url: mono.url, path: 'skills/beta' });
      expect(res.status).toBe(201);
      const versions = await t.http.get(`/api/skills/${res.body.items[0].skill_id}/versions`).set(as(carol.key));
      expect(versions.body.items[0].source).toEqual(
        expect.objectContaining({ ref: 'HEAD', commit: await mono.revParse('main') }),
      );
    });

    it('a ref or a path the repository does not have', async () => {
      await refused(alice, { url: mono.url, ref: 'no-such-branch' }, 400, 'GIT_REF_NOT_FOUND');
      await refused(alice, { url: mono.url, ref: 'main', path: 'skills/gamma' }, 400, 'GIT_PATH_NOT_FOUND');
    });
  });

  describe('what a folder holds', () => {
    it('a single skill at the repository root: path ""', async () => {
      const repo = await git.createRepo('solo');
      const commit = await repo.commit({ 'SKILL.md': skillMd('solo'), 'scripts/x.py': 'print(1)\n' });
      const res = await importAs(alice, { url: repo.url });
      expect(res.status).toBe(201);
      expect(res.body.items).toEqual([
        { name: 'solo', path: '', skill_id: expect.any(Number), version: 1, status: 'created', warnings: [] },
      ]);
      const source = await t.http.get(`/api/skills/${res.body.items[0].skill_id}/source`).set(as(alice.key));
      expect(source.body.source).toEqual({ type: 'git', url: repo.url, ref: 'HEAD', commit, path: '' });
    });

    it('an update the folder no longer allows: another name, a broken package, no SKILL.md; nothing stored', async () => {
      const repo = await git.createRepo('drifting');
      await repo.commit({ 'SKILL.md': skillMd('drifting') });
      const imported = await importAs(alice, { url: repo.url });
      expect(imported.status).toBe(201);
      const id = imported.body.items[0].skill_id as number;
      const update = () => t.http.post(`/api/skills/${id}/source/update`).set(as(alice.key));
      const problems = (error: Record<string, unknown>) =>
        (error.details as { errors: Array<{ code: string }> }).errors.map((e) => e.code);

      await repo.commit({ 'SKILL.md': skillMd('renamed') });
      let before = await counts(t);
      expectError(await update(), 400, 'NAME_MISMATCH');
      expect(await counts(t)).toEqual(before);

      await repo.commit({ 'SKILL.md': 'no frontmatter\n' });
      before = await counts(t);
      expect(problems(expectError(await update(), 400, 'SKILL_INVALID'))).toContain('FRONTMATTER_MISSING');
      expect(await counts(t)).toEqual(before);

      // A skill in a child folder is not this skill: its folder has no SKILL.md any more.
      await repo.commit({ 'drifting/SKILL.md': skillMd('drifting') });
      before = await counts(t);
      expect(problems(expectError(await update(), 400, 'SKILL_INVALID'))).toEqual(['SKILL_MD_MISSING']);
      expect(await counts(t)).toEqual(before);
    });

    it('a symbolic link: SKILL_INVALID with ZIP_SYMLINK, as in a zip', async () => {
      const repo = await git.createRepo('links');
      await repo.commit({ 'SKILL.md': skillMd('links'), 'docs/link': { symlink: '../SKILL.md' } });
      const error = await refused(alice, { url: repo.url }, 400, 'SKILL_INVALID');
      expect((error.details as { errors: unknown[] }).errors).toContainEqual(
        expect.objectContaining({ code: 'ZIP_SYMLINK', field: 'docs/link' }),
      );
    });

    it('a Git LFS pointer: GIT_LFS_UNSUPPORTED', async () => {
      const repo = await git.createRepo('lfs');
      await repo.commit({ 'SKILL.md': skillMd('lfs'), 'assets/form.pdf': lfsPointer() });
      const error = await refused(alice, { url: repo.url }, 400, 'GIT_LFS_UNSUPPORTED');
      expect(error.message).toContain('assets/form.pdf');
    });

    it('a submodule: skipped, with a warning naming it', async () => {
      const repo = await git.createRepo('subs');
      await repo.commit({ 'SKILL.md': skillMd('subs'), 'vendor/lib': { submodule: c1 } });
      const res = await importAs(alice, { url: repo.url });
      expect(res.status).toBe(201);
      expect(res.body.items[0].warnings).toEqual([
        expect.objectContaining({ code: 'SUBMODULE_SKIPPED', field: 'vendor/lib' }),
      ]);
      const manifest = await t.http.get(`/api/skills/${res.body.items[0].skill_id}/manifest`).set(as(alice.key));
      expect(manifest.body.files.map((f: { path: string }) => f.path)).toEqual(['SKILL.md']);
    });

    it('an invalid skill among valid ones: reported as invalid, the others imported', async () => {
      const repo = await git.createRepo('mixed');
      await repo.commit({ 'good/SKILL.md': skillMd('good'), 'bad/SKILL.md': 'no frontmatter\n' });
      const res = await importAs(alice, { url: repo.url });
      expect(res.status).toBe(201);
      expect(res.body.items).toEqual([
        expect.objectContaining({
          name: 'bad',
          path: 'bad',
          status: 'invalid',
          skill_id: null,
          errors: expect.arrayContaining([expect.objectContaining({ code: 'FRONTMATTER_MISSING' })]),
        }),
        expect.objectContaining({ name: 'good', path: 'good', status: 'created' }),
      ]);
    });

    it('a folder with no skill at all: SKILL_INVALID (SKILL_MD_MISSING)', async () => {
      const error = await refused(alice, { url: mono.url, path: 'skills/notes' }, 400, 'SKILL_INVALID');
      expect((error.details as { errors: Array<{ code: string }> }).errors[0].code).toBe('SKILL_MD_MISSING');
    });

    it('more than 50 skills: GIT_TOO_MANY_SKILLS, and none is imported', async () => {
      const repo = await git.createRepo('many');
      const many: Record<string, string> = {};
      for (let i = 0; i < 51; i++) many[`s${i}/SKILL.md`] = skillMd(`s${i}`);
      await repo.commit(many);
      await refused(alice, { url: repo.url }, 400, 'GIT_TOO_MANY_SKILLS');
    });
  });

  describe('who may import, and from where', () => {
    it('as POST /skills: a Reporter of the group may not (403), a stranger to it gets 404', async () => {
      await refused(bob, { url: mono.url, path: 'skills/beta', namespace: 'team-a' }, 403, 'FORBIDDEN');
      await refused(carol, { url: mono.url, path: 'skills/beta', namespace: 'team-a' }, 404, 'NOT_FOUND');
      await refused(alice, { url: mono.url, path: 'skills/beta', public: true }, 403, 'FORBIDDEN');
      await refused(alice, { url: mono.url, namespace: 'team-a', public: true }, 400, 'VALIDATION_FAILED');
    });

    it('a skill of the same name the caller may not change: 403, nothing imported', async () => {
      // beta in team-a was created by alice: bob as a Developer may read it but not change it.
      const group = (await t.http.get('/api/groups').set(as(alice.key))).body.items.find(
        (g: { name: string }) => g.name === 'team-a',
      );
      await t.http.put(`/api/groups/${group.id}/members/${bob.id}`).set(as(alice.key)).send({ role: 'Developer' });
      const repo = await git.createRepo('beta-again');
      await repo.commit({ 'SKILL.md': skillMd('beta', '# Another beta\n') });
      await refused(bob, { url: repo.url, namespace: 'team-a' }, 403, 'FORBIDDEN');
      await t.http.put(`/api/groups/${group.id}/members/${bob.id}`).set(as(alice.key)).send({ role: 'Reporter' });
    });

    it('the source of a skill: readers may read and check it, only those who may change it update it', async () => {
      const team = await t.http.get('/api/skills?namespace=team-a&name=beta').set(as(bob.key));
      const id = team.body.items[0].id;
      expect((await t.http.get(`/api/skills/${id}/source`).set(as(bob.key))).status).toBe(200);
      expect((await t.http.post(`/api/skills/${id}/source/check`).set(as(bob.key))).status).toBe(200);
      expectError(await t.http.post(`/api/skills/${id}/source/update`).set(as(bob.key)), 403, 'FORBIDDEN');
      expectError(await t.http.get(`/api/skills/${id}/source`).set(as(carol.key)), 404, 'NOT_FOUND');
      expectError(await t.http.post(`/api/skills/${id}/source/check`).set(as(carol.key)), 404, 'NOT_FOUND');
      // An uploaded skill has no source.
      const uploaded = await t.http
        .post('/api/skills')
        .set(as(carol.key))
        .attach('file', skillZip('uploaded'), { filename: 's.zip', contentType: 'application/zip' });
      expect(uploaded.status).toBe(201);
      expect(uploaded.body.latest_version.source).toBeNull();
      expectError(await t.http.get(`/api/skills/${uploaded.body.id}/source`).set(as(carol.key)), 404, 'NOT_FOUND');
    });

    it('a private repository: the configured token is sent to its host, and never shown', async () => {
      const repo = await git.createRepo('private-skill');
      git.requireAuth('private-skill', PRIVATE_TOKEN);
      await repo.commit({ 'SKILL.md': skillMd('private-skill') });
      const res = await importAs(carol, { url: repo.url });
      expect(res.status).toBe(201);
      expect(git.requests.some((r) => r.path.startsWith('/private-skill.git/') && r.authorization)).toBe(true);
      expect(JSON.stringify(res.body)).not.toContain(PRIVATE_TOKEN);
      expect(t.logs.join('\n')).not.toContain(PRIVATE_TOKEN);
    });

    it('hosts not allowed, redirects to them, and URLs that are no repository address', async () => {
      const other = git.url.replace('127.0.0.1', 'localhost');
      await refused(alice, { url: `${other}/mono.git` }, 400, 'GIT_HOST_NOT_ALLOWED');
      await refused(alice, { url: 'https://example.com/acme/skills.git' }, 400, 'GIT_HOST_NOT_ALLOWED');
      await refused(alice, { url: git.redirectUrl(other, 'mono') }, 400, 'GIT_HOST_NOT_ALLOWED');
      for (const url of [
        'file:///tmp/mono.git',
        'ssh://git@127.0.0.1/mono.git',
        'git://127.0.0.1/mono.git',
        'git@127.0.0.1:mono.git',
        '/tmp/mono.git',
        'ext::sh -c touch% /tmp/pwned',
        '--upload-pack=touch /tmp/pwned',
        `http://user:secret@${git.host}/mono.git`,
      ]) {
        await refused(alice, { url }, 400, 'GIT_URL_INVALID');
      }
      for (const ref of ['--upload-pack=x', 'main..dev', 'main:x']) {
        await refused(alice, { url: mono.url, ref }, 400, 'GIT_URL_INVALID');
      }
      for (const path of ['../mono', 'skills/../..', '-x', 'a\\b']) {
        await refused(alice, { url: mono.url, path }, 400, 'GIT_URL_INVALID');
      }
      await refused(alice, {}, 400, 'VALIDATION_FAILED');
      await refused(alice, { url: mono.url, surprise: 1 }, 400, 'VALIDATION_FAILED');
    });
  });

  describe('limits', () => {
    it('one import per user at a time, and two per replica: 429 with Retry-After', async () => {
      const seen = git.requests.length;
      const hung = importAs(alice, { url: git.hangUrl('first') }).then((r) => r);
      while (!git.requests.slice(seen).some((r) => r.path.startsWith('/hang/'))) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const before = await counts(t);
      const busy = await importAs(alice, { url: mono.url, path: 'skills/beta' });
      expectError(busy, 429, 'RATE_LIMITED');
      expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);

      const second = importAs(bob, { url: git.hangUrl('second') }).then((r) => r);
      while (git.requests.slice(seen).filter((r) => r.path.startsWith('/hang/')).length < 2) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expectError(await importAs(carol, { url: mono.url, path: 'skills/beta' }), 429, 'RATE_LIMITED');
      expect(await counts(t)).toEqual(before);

      // The remote never answers: each import ends at its time limit, and the slots are free again.
      expectError(await hung, 504, 'GIT_TIMEOUT');
      expectError(await second, 504, 'GIT_TIMEOUT');
      expect(await counts(t)).toEqual(before);
      expect((await importAs(alice, { url: mono.url, path: 'skills/beta' })).status).toBe(200);
    });

    it('a client that goes away stops its import: the remote is let go, the slot freed, nothing stored', async () => {
      const outcomes = async (): Promise<Record<string, number>> => {
        const text = (await t.http.get('/api/metrics').set(as(ADMIN_KEY))).text;
        const count = (outcome: string) =>
          Number(new RegExp(`skill_resolver_git_imports_total\\{outcome="${outcome}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
        return { cancelled: count('cancelled'), GIT_TIMEOUT: count('GIT_TIMEOUT') };
      };
      const pause = () => new Promise((resolve) => setTimeout(resolve, 20));
      const before = await counts(t);
      const counted = await outcomes();
      const seen = git.requests.length;

      const going = importAs(alice, { url: git.hangUrl('gone') });
      going.end(() => undefined);
      let hung: GitTestRequest | undefined;
      while (!(hung = git.requests.slice(seen).find((r) => r.path.startsWith('/hang/gone')))) await pause();
      going.abort();

      // Counted once it ended: cancelled, not at its deadline (GIT_TIMEOUT, 5 s later).
      let now = await outcomes();
      while (now.cancelled === counted.cancelled && now.GIT_TIMEOUT === counted.GIT_TIMEOUT) {
        await pause();
        now = await outcomes();
      }
      expect(now).toEqual({ cancelled: counted.cancelled + 1, GIT_TIMEOUT: counted.GIT_TIMEOUT });
      while (!hung.closed) await pause();
      expect(await counts(t)).toEqual(before);
      expect((await importAs(alice, { url: mono.url, path: 'skills/beta' })).status).toBe(200);
    });
  });
});

describe('git imports past the fetch limit', () => {
  let t: TestApp;
  let git: GitTestServer;

  beforeAll(async () => {
    git = await GitTestServer.start();
    t = await startTestApp({ GIT_ALLOWED_HOSTS: `http://${git.host}`, GIT_MAX_FETCH_BYTES: '65536' });
  });

  afterAll(async () => {
    await t?.close();
    await git?.stop();
  });

  it('a fetch past GIT_MAX_FETCH_BYTES: 413 GIT_FETCH_TOO_LARGE, nothing stored', async () => {
    const repo = await git.createRepo('large');
    await repo.commit({ 'SKILL.md': skillMd('large'), 'data.bin': randomBytes(1024 * 1024) });
    const user = await createUser(t, 'erin');
    const before = await counts(t);
    expectError(
      await t.http.post('/api/skills/imports').set(as(user.key)).send({ url: repo.url }),
      413,
      'GIT_FETCH_TOO_LARGE',
    );
    expect(await counts(t)).toEqual(before);
  });
});

describe('git imports with no host allowed', () => {
  let t: TestApp;
  let git: GitTestServer;

  beforeAll(async () => {
    git = await GitTestServer.start();
    t = await startTestApp();
  });

  afterAll(async () => {
    await t?.close();
    await git?.stop();
  });

  it('refuses every import (GIT_HOST_NOT_ALLOWED) and stores nothing', async () => {
    const repo = await git.createRepo('any');
    await repo.commit({ 'SKILL.md': skillMd('any') });
    const user = await createUser(t, 'dora');
    const before = await skillRowCounts(t);
    expectError(
      await t.http.post('/api/skills/imports').set(as(user.key)).send({ url: repo.url }),
      400,
      'GIT_HOST_NOT_ALLOWED',
    );
    expect(await skillRowCounts(t)).toEqual(before);
    expect(git.requests).toEqual([]);
  });
});
