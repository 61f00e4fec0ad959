// The version lifecycle through the real app (docs/resolution.md#version-lifecycle): status changes,
// tags, what resolution follows, and the bytes of revoked versions. Every refused request is shown
// to store nothing.
import request from 'supertest';
import { withClient } from '../support/database';
import { Scenario } from '../support/scenario';
import { binary } from '../support/skills';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';

describe('version lifecycle: deprecate, yank, revoke, tags', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser; // Developer in team-a: may change its skills
  let bob: TestUser; // Reporter in team-a: may read, not change
  let carol: TestUser; // no role: may not read

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    [alice, bob, carol] = await Promise.all(['alice', 'bob', 'carol'].map((n) => createUser(t, n)));
    await s.group(alice, 'team-a', [[bob, 'Reporter']]);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Every lifecycle row and the audit log: a refused request changes none of them. */
  const stored = () =>
    withClient(t.db.url, async (c) => ({
      versions: (await c.query('SELECT skill_id, version, status, status_message FROM skill_versions ORDER BY 1, 2'))
        .rows,
      tags: (await c.query('SELECT skill_id, tag, version FROM skill_tags ORDER BY 1, 2')).rows,
      audit: Number((await c.query('SELECT count(*) FROM audit_events')).rows[0].count),
    }));
  const audits = (action: string) =>
    withClient(t.db.url, async (c) =>
      (await c.query('SELECT details FROM audit_events WHERE action = $1 ORDER BY id', [action])).rows.map(
        (r) => r.details,
      ),
    );

  const patch = (key: string, id: number, version: number, body: object) =>
    t.http.patch(`/api/skills/${id}/versions/${version}`).set(as(key)).send(body);
  const putTag = (key: string, id: number, tag: string, body: object) =>
    t.http.put(`/api/skills/${id}/tags/${tag}`).set(as(key)).send(body);
  const delTag = (key: string, id: number, tag: string) => t.http.delete(`/api/skills/${id}/tags/${tag}`).set(as(key));

  /** A group skill with `count` versions. */
  async function skillWithVersions(name: string, count: number): Promise<any> {
    let skill = await s.skill(alice, name, 'team-a', `${name} v1`);
    for (let v = 2; v <= count; v++) skill = await s.newVersion(alice, skill.id, name, `${name} v${v}`);
    return skill;
  }

  describe('PATCH /skills/{id}/versions/{version}', () => {
    let skill: any;
    beforeAll(async () => {
      skill = await skillWithVersions('status-demo', 2);
    });

    it('deprecates a version: 200 Version, audited with the old and new status', async () => {
      const res = await patch(alice.key, skill.id, 1, { status: 'deprecated', message: 'use v2' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(
        expect.objectContaining({
          version: 1,
          status: 'deprecated',
          status_message: 'use v2',
          status_changed_at: expect.any(String),
        }),
      );
      expect((await audits('skill_version.update')).at(-1)).toEqual({
        name: 'status-demo',
        version: 1,
        old_status: 'active',
        new_status: 'deprecated',
        message: 'use v2',
      });
      const versions = await s.get(bob, `/api/skills/${skill.id}/versions`);
      expect(versions.items.map((v: any) => [v.version, v.status])).toEqual([
        [2, 'active'],
        [1, 'deprecated'],
      ]);
    });

    it('yanking the latest makes the previous one the latest; yanked may come back', async () => {
      expect((await patch(alice.key, skill.id, 2, { status: 'yanked' })).status).toBe(200);
      expect((await s.get(bob, `/api/skills/${skill.id}`)).latest_version).toEqual(
        expect.objectContaining({ version: 1, status: 'deprecated' }),
      );
      const back = await patch(alice.key, skill.id, 2, { status: 'active' });
      expect(back.body).toEqual(expect.objectContaining({ status: 'active', status_message: null }));
      expect((await s.get(bob, `/api/skills/${skill.id}`)).latest_version.version).toBe(2);
    });

    it.each<[string, () => Promise<request.Response>, number, string]>([
      ['an unknown status', () => patch(alice.key, skill.id, 1, { status: 'gone' }), 400, 'VALIDATION_FAILED'],
      ['no status', () => patch(alice.key, skill.id, 1, {}), 400, 'VALIDATION_FAILED'],
      [
        'a message over 500 characters',
        () => patch(alice.key, skill.id, 1, { status: 'yanked', message: 'x'.repeat(501) }),
        400,
        'VALIDATION_FAILED',
      ],
      ['an unknown field', () => patch(alice.key, skill.id, 1, { status: 'yanked', why: 1 }), 400, 'VALIDATION_FAILED'],
      ['a version that does not exist', () => patch(alice.key, skill.id, 9, { status: 'yanked' }), 404, 'NOT_FOUND'],
      ['a version that is not a number', () => patch(alice.key, skill.id, 0, { status: 'yanked' }), 404, 'NOT_FOUND'],
      ['a reader who may not change it', () => patch(bob.key, skill.id, 1, { status: 'yanked' }), 403, 'FORBIDDEN'],
      ['a caller who may not read it', () => patch(carol.key, skill.id, 1, { status: 'yanked' }), 404, 'NOT_FOUND'],
    ])('%s: %i %s, nothing stored', async (_, send, status, code) => {
      const before = await stored();
      expectError(await send(), status, code);
      expect(await stored()).toEqual(before);
    });
  });

  describe('tags', () => {
    let skill: any;
    beforeAll(async () => {
      skill = await skillWithVersions('tag-demo', 3);
    });

    it('PUT points a tag at a version, GET lists them, the Skill shows them; moves are audited', async () => {
      const put = await putTag(alice.key, skill.id, 'stable', { version: 1 });
      expect(put.status).toBe(200);
      const v1 = (await s.get(bob, `/api/skills/${skill.id}/versions`)).items.find((v: any) => v.version === 1);
      expect(put.body).toEqual({ tag: 'stable', version: 1, content_hash: v1.content_hash });
      expect((await putTag(alice.key, skill.id, 'next', { version: 3 })).status).toBe(200);
      expect((await putTag(alice.key, skill.id, 'stable', { version: 2 })).status).toBe(200);
      expect((await s.get(bob, `/api/skills/${skill.id}/tags`)).items).toEqual([
        { tag: 'next', version: 3, content_hash: expect.any(String) },
        { tag: 'stable', version: 2, content_hash: expect.any(String) },
      ]);
      expect((await s.get(bob, `/api/skills/${skill.id}`)).tags).toEqual({ next: 3, stable: 2 });
      expect((await audits('skill_tag.update')).slice(-3)).toEqual([
        { name: 'tag-demo', tag: 'stable', version: 1, previous_version: null },
        { name: 'tag-demo', tag: 'next', version: 3, previous_version: null },
        { name: 'tag-demo', tag: 'stable', version: 2, previous_version: 1 },
      ]);
    });

    it('yanking a tagged version is 409 VERSION_TAGGED naming its tags, nothing stored', async () => {
      const before = await stored();
      const res = await patch(alice.key, skill.id, 2, { status: 'yanked' });
      expect(expectError(res, 409, 'VERSION_TAGGED').details).toEqual({ tags: ['stable'] });
      expect(await stored()).toEqual(before);
    });

    it.each<[string, () => Promise<request.Response>, number, string]>([
      [
        'the reserved name latest',
        () => putTag(alice.key, skill.id, 'latest', { version: 1 }),
        400,
        'VALIDATION_FAILED',
      ],
      ['an upper-case name', () => putTag(alice.key, skill.id, 'Stable', { version: 1 }), 400, 'VALIDATION_FAILED'],
      [
        'a name of 33 characters',
        () => putTag(alice.key, skill.id, 'a'.repeat(33), { version: 1 }),
        400,
        'VALIDATION_FAILED',
      ],
      ['no version', () => putTag(alice.key, skill.id, 'beta', {}), 400, 'VALIDATION_FAILED'],
      [
        'a version that is not a number',
        () => putTag(alice.key, skill.id, 'beta', { version: 'two' }),
        400,
        'VALIDATION_FAILED',
      ],
      ['a version that does not exist', () => putTag(alice.key, skill.id, 'beta', { version: 9 }), 404, 'NOT_FOUND'],
      ['a reader who may not change it', () => putTag(bob.key, skill.id, 'beta', { version: 1 }), 403, 'FORBIDDEN'],
      ['a caller who may not read it', () => putTag(carol.key, skill.id, 'beta', { version: 1 }), 404, 'NOT_FOUND'],
      ['DELETE of a tag that does not exist', () => delTag(alice.key, skill.id, 'beta'), 404, 'NOT_FOUND'],
      ['DELETE of the reserved name', () => delTag(alice.key, skill.id, 'latest'), 400, 'VALIDATION_FAILED'],
      ['DELETE by a reader', () => delTag(bob.key, skill.id, 'stable'), 403, 'FORBIDDEN'],
      ['DELETE by a stranger', () => delTag(carol.key, skill.id, 'stable'), 404, 'NOT_FOUND'],
      ['GET by a stranger', () => t.http.get(`/api/skills/${skill.id}/tags`).set(as(carol.key)), 404, 'NOT_FOUND'],
    ])('%s: %i %s, nothing stored', async (_, send, status, code) => {
      const before = await stored();
      expectError(await send(), status, code);
      expect(await stored()).toEqual(before);
    });

    it('a tag cannot point at a yanked or revoked version: 409 VERSION_YANKED, nothing stored', async () => {
      const other = await skillWithVersions('tag-target', 3);
      expect((await patch(alice.key, other.id, 2, { status: 'yanked' })).status).toBe(200);
      expect((await patch(alice.key, other.id, 1, { status: 'revoked' })).status).toBe(200);
      for (const version of [1, 2]) {
        const before = await stored();
        expectError(await putTag(alice.key, other.id, 'x', { version }), 409, 'VERSION_YANKED');
        expect(await stored()).toEqual(before);
      }
      // A deprecated version may be tagged.
      expect((await patch(alice.key, other.id, 3, { status: 'deprecated' })).status).toBe(200);
      expect((await putTag(alice.key, other.id, 'x', { version: 3 })).status).toBe(200);
    });

    it('DELETE removes a tag (204), audited', async () => {
      expect((await delTag(alice.key, skill.id, 'next')).status).toBe(204);
      expect((await s.get(bob, `/api/skills/${skill.id}`)).tags).toEqual({ stable: 2 });
      expect((await audits('skill_tag.delete')).at(-1)).toEqual({
        name: 'tag-demo',
        tag: 'next',
        version: null,
        previous_version: 3,
      });
    });
  });

  describe('revoking: the kill switch', () => {
    let skill: any;
    let v1Hash: string;
    beforeAll(async () => {
      skill = await skillWithVersions('revoke-demo', 2);
      v1Hash = (await s.get(alice, `/api/skills/${skill.id}/versions`)).items[1].content_hash;
      await s.put(alice, `/api/skills/${skill.id}/tags/stable`, { version: 1 });
      await s.put(alice, `/api/skills/${skill.id}/tags/pin`, { version: 1 });
    });

    it('is never refused by tags: they are deleted with it, each audited', async () => {
      const res = await patch(alice.key, skill.id, 1, { status: 'revoked', message: 'malicious' });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('revoked');
      expect((await s.get(bob, `/api/skills/${skill.id}/tags`)).items).toEqual([]);
      expect((await audits('skill_tag.delete')).slice(-2)).toEqual([
        { name: 'revoke-demo', tag: 'pin', version: null, previous_version: 1 },
        { name: 'revoke-demo', tag: 'stable', version: null, previous_version: 1 },
      ]);
    });

    it('is final: any later PATCH is 409 VERSION_REVOKED, nothing stored', async () => {
      for (const status of ['active', 'deprecated', 'yanked', 'revoked']) {
        const before = await stored();
        expectError(await patch(alice.key, skill.id, 1, { status }), 409, 'VERSION_REVOKED');
        expect(await stored()).toEqual(before);
      }
    });

    it('its download, manifest and files answer 410 VERSION_REVOKED but to admins', async () => {
      const paths = [
        `/api/skills/${skill.id}/download?version=1`,
        `/api/skills/${skill.id}/manifest?version=1`,
        `/api/skills/${skill.id}/files/SKILL.md?version=1`,
        `/api/v1/kinds/skills/${skill.id}/download?version=1`,
      ];
      for (const path of paths) {
        expectError(await t.http.get(path).set(as(alice.key)), 410, 'VERSION_REVOKED');
        expect((await t.http.get(path).set(as(ADMIN_KEY)).buffer(true).parse(binary)).status).toBe(200);
      }
      const admin = await t.http.get(paths[0]).set(as(ADMIN_KEY)).buffer(true).parse(binary);
      expect(admin.headers.etag).toBe(`"${v1Hash}"`);
      // The latest version is untouched.
      expect((await t.http.get(`/api/skills/${skill.id}/download`).set(as(alice.key))).status).toBe(200);
    });

    it('a yanked version stays downloadable', async () => {
      const other = await skillWithVersions('yank-demo', 2);
      expect((await patch(alice.key, other.id, 1, { status: 'yanked' })).status).toBe(200);
      const res = await t.http
        .get(`/api/skills/${other.id}/download?version=1`)
        .set(as(bob.key))
        .buffer(true)
        .parse(binary);
      expect(res.status).toBe(200);
      expect((await t.http.get(`/api/skills/${other.id}/files/SKILL.md?version=1`).set(as(bob.key))).status).toBe(200);
    });
  });

  describe('resolution follows the lifecycle', () => {
    it('moving a tag changes the resolution of a ghost that follows it: 304 before, 200 after', async () => {
      const skill = await skillWithVersions('tagged-tool', 2);
      await s.put(alice, `/api/skills/${skill.id}/tags/stable`, { version: 1 });
      const { ghost, team } = await s.teamWithGhost(alice, 'tag-team', ['tagged-tool'], [], 'team-a', {
        'tagged-tool': { skill_id: skill.id, tag: 'stable' },
      });
      // The ghost answer shows the tag and the status of the version it reaches.
      expect(ghost.skill_refs['tagged-tool']).toEqual(
        expect.objectContaining({ version: 1, pinned: false, tag: 'stable', status: 'active' }),
      );
      const task = await s.task(alice, { team_id: team.id });
      const first = await t.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key));
      expect(first.body.skill_refs['tagged-tool']).toEqual(
        expect.objectContaining({ version: 1, pinned: false, tag: 'stable', status: 'active' }),
      );
      const etag = first.headers.etag;
      const execution = await s.post(alice, `/api/tasks/${task.id}/execution-requests`, {}, 200);
      expect(
        (await t.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key)).set('If-None-Match', etag)).status,
      ).toBe(304);

      await s.put(alice, `/api/skills/${skill.id}/tags/stable`, { version: 2 });
      await t.heard();
      const moved = await t.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key)).set('If-None-Match', etag);
      expect(moved.status).toBe(200);
      expect(moved.body.skill_refs['tagged-tool']).toEqual(expect.objectContaining({ version: 2, tag: 'stable' }));
      expect(moved.body.fingerprint).not.toBe(first.body.fingerprint);
      // An ExecutionRequest already built keeps the refs it was built with.
      expect(execution.skill_refs['tagged-tool'].version).toBe(1);

      // A ghost read and written back keeps following its tag.
      const read = await s.get(alice, `/api/ghosts/${ghost.id}`);
      const { id: _id, owner_user_id: _o, created_at: _c, updated_at: _u, ...writable } = read;
      const saved = await s.put(alice, `/api/ghosts/${ghost.id}`, writable);
      expect(saved.skill_refs['tagged-tool']).toEqual(expect.objectContaining({ tag: 'stable', version: 2 }));
      const stored = await withClient(
        t.db.url,
        async (c) => (await c.query('SELECT skill_refs FROM ghosts WHERE id = $1', [ghost.id])).rows[0],
      );
      expect(stored.skill_refs['tagged-tool']).toEqual({ skill_id: skill.id, tag: 'stable' });

      // Deleting the tag leaves what followed it TAG_NOT_FOUND.
      expect((await delTag(alice.key, skill.id, 'stable')).status).toBe(204);
      await t.heard();
      const gone = await s.skills(alice, task.id);
      expect(gone.unresolved).toEqual([{ name: 'tagged-tool', source: 'ghost', reason: 'TAG_NOT_FOUND' }]);
    });

    it('a ghost ref that both follows a tag and pins a version is 400, nothing stored', async () => {
      const skill = await skillWithVersions('both-ways', 1);
      await s.put(alice, `/api/skills/${skill.id}/tags/stable`, { version: 1 });
      const count = () =>
        withClient(t.db.url, async (c) => Number((await c.query('SELECT count(*) FROM ghosts')).rows[0].count));
      const before = await count();
      const res = await t.http
        .post('/api/ghosts')
        .set(as(alice.key))
        .send({
          name: 'both-ways-ghost',
          namespace: 'team-a',
          skills: ['both-ways'],
          skill_refs: { 'both-ways': { skill_id: skill.id, version: 1, tag: 'stable' } },
        });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(await count()).toBe(before);
      // With pinned: false the version is not a pin: the ref follows the tag.
      const ok = await s.ghost(alice, {
        name: 'both-ways-ghost',
        namespace: 'team-a',
        skills: ['both-ways'],
        skill_refs: { 'both-ways': { skill_id: skill.id, version: 1, pinned: false, tag: 'stable' } },
      });
      expect(ok.skill_refs['both-ways']).toEqual(expect.objectContaining({ tag: 'stable', pinned: false }));
    });

    it('subscriptions follow a tag instead of a version; both is 400, nothing stored', async () => {
      const skill = await skillWithVersions('sub-tagged', 2);
      await s.put(alice, `/api/skills/${skill.id}/tags/stable`, { version: 1 });
      const { team } = await s.teamWithGhost(alice, 'sub-team', [], [], 'team-a');
      const count = () =>
        withClient(t.db.url, async (c) => Number((await c.query('SELECT count(*) FROM subscriptions')).rows[0].count));
      const before = await count();
      const both = await t.http
        .post('/api/subscriptions')
        .set(as(alice.key))
        .send({
          name: 'both',
          namespace: 'team-a',
          team_id: team.id,
          skill_refs: [{ name: 'sub-tagged', namespace: 'team-a', is_public: false, version: 1, tag: 'stable' }],
        });
      expectError(both, 400, 'VALIDATION_FAILED');
      expect(await count()).toBe(before);
      const subscription = await s.post(alice, '/api/subscriptions', {
        name: 'tagged',
        namespace: 'team-a',
        team_id: team.id,
        skill_refs: [{ name: 'sub-tagged', namespace: 'team-a', is_public: false, tag: 'stable' }],
      });
      expect(subscription.skill_refs).toEqual([
        { name: 'sub-tagged', namespace: 'team-a', is_public: false, tag: 'stable' },
      ]);
      const run = await s.post(alice, `/api/subscriptions/${subscription.id}/executions`, {});
      expect((await s.skills(alice, run.task_id)).skill_refs['sub-tagged']).toEqual(
        expect.objectContaining({ version: 1, tag: 'stable', pinned: false }),
      );
    });

    it('NO_ACTIVE_VERSION when every version is yanked or revoked; REVOKED for a pin to a revoked version; a pin to a yanked one resolves', async () => {
      const dead = await skillWithVersions('all-yanked', 1);
      const pinned = await skillWithVersions('pinned-tool', 3);
      const deprecated = await skillWithVersions('deprecated-tool', 1);
      const { team } = await s.teamWithGhost(
        alice,
        'status-team',
        ['all-yanked', 'pinned-tool', 'deprecated-tool'],
        [],
        'team-a',
        {
          'pinned-tool': { skill_id: pinned.id, version: 1 },
        },
      );
      const subscription = await s.post(alice, '/api/subscriptions', {
        name: 'pins',
        namespace: 'team-a',
        team_id: team.id,
        skill_refs: [{ name: 'pinned-tool', namespace: 'team-a', is_public: false, version: 2 }],
      });
      const task = await s.task(alice, { team_id: team.id });
      const plain = await s.skills(alice, task.id);
      expect(plain.unresolved).toEqual([]);

      expect((await patch(alice.key, dead.id, 1, { status: 'yanked' })).status).toBe(200);
      expect((await patch(alice.key, pinned.id, 1, { status: 'revoked' })).status).toBe(200);
      expect((await patch(alice.key, deprecated.id, 1, { status: 'deprecated' })).status).toBe(200);
      await t.heard();
      const after = await s.skills(alice, task.id);
      expect(after.unresolved).toEqual([
        { name: 'all-yanked', source: 'ghost', reason: 'NO_ACTIVE_VERSION' },
        { name: 'pinned-tool', source: 'ghost', reason: 'REVOKED' },
      ]);
      expect(after.skill_refs['deprecated-tool']).toEqual(
        expect.objectContaining({ status: 'deprecated', version: 1 }),
      );
      expect(after.fingerprint).not.toBe(plain.fingerprint);

      // The subscription pins version 2: yanked, it still resolves and says so.
      expect((await patch(alice.key, pinned.id, 2, { status: 'yanked' })).status).toBe(200);
      const run = await s.post(alice, `/api/subscriptions/${subscription.id}/executions`, {});
      expect((await s.skills(alice, run.task_id)).skill_refs['pinned-tool']).toEqual(
        expect.objectContaining({ version: 2, pinned: true, status: 'yanked', tag: null }),
      );
      // Unpinned lookups follow the newest active-or-deprecated version: 3.
      const byName = await s.task(alice, { team_id: team.id, labels: { additionalSkills: '["pinned-tool"]' } });
      expect((await s.skills(alice, byName.id)).skill_refs['pinned-tool']).toEqual(
        expect.objectContaining({ version: 3, pinned: false, status: 'active' }),
      );
    });

    it('search and the Skill answer use the latest followable version', async () => {
      const skill = await skillWithVersions('searchable-lifecycle', 2);
      expect((await patch(alice.key, skill.id, 2, { status: 'yanked' })).status).toBe(200);
      const found = await s.get(alice, '/api/skills/search?q=searchable-lifecycle');
      expect(found.items.find((i: any) => i.skill_id === skill.id)?.version).toBe(1);
      expect((await patch(alice.key, skill.id, 1, { status: 'yanked' })).status).toBe(200);
      const none = await s.get(alice, '/api/skills/search?q=searchable-lifecycle');
      expect(none.items.find((i: any) => i.skill_id === skill.id)).toBeUndefined();
    });
  });
});
