import { withClient } from '../support/database';
import { Scenario } from '../support/scenario';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';

type Ref = {
  skill_id: number;
  namespace: string;
  is_public: boolean;
  version: number;
  content_hash: string;
  pinned: boolean;
  tag: string | null;
  status: string;
  allowed_tools: string[] | null;
  requires: { bins: string[]; env: string[] };
};

/** The ref to a skill's latest version, as its Skill answer describes that version. */
function refOf(skill: {
  id: number;
  namespace: string;
  is_public: boolean;
  latest_version: Pick<Ref, 'version' | 'content_hash' | 'allowed_tools' | 'requires'>;
}): Ref {
  return {
    skill_id: skill.id,
    namespace: skill.namespace,
    is_public: skill.is_public,
    version: skill.latest_version.version,
    content_hash: skill.latest_version.content_hash,
    pinned: false,
    tag: null,
    status: 'active',
    allowed_tools: skill.latest_version.allowed_tools,
    requires: skill.latest_version.requires,
  };
}

describe('resolution through the HTTP API (docs/resolution.md)', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    [alice, bob, carol] = await Promise.all(['alice', 'bob', 'carol'].map((n) => createUser(t, n)));
    await s.group(alice, 'team-a', [[bob, 'Developer']]);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('a shared team', () => {
    let personal: any;
    let group: any;
    let team: any;
    beforeAll(async () => {
      personal = await s.skill(alice, 'tool', 'default');
      group = await s.skill(alice, 'tool', 'team-a');
      await s.skill(ADMIN_KEY, 'tool', 'public');
      ({ team } = await s.teamWithGhost(alice, 'shared', ['tool'], [], 'team-a'));
    });

    it("serves the owner's personal skill through the owner's ghost to another member's task", async () => {
      const task = await s.task(bob, { team_id: team.id });
      const res = await t.http.get(`/api/tasks/${task.id}/skills`).set(as(bob.key));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        task_id: task.id,
        team_id: team.id,
        team_namespace: 'team-a',
        skills: ['tool'],
        preload_skills: [],
        skill_refs: { tool: refOf(personal) },
        preload_skill_refs: {},
        unresolved: [],
        fingerprint: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      });
      expect(res.headers.etag).toBe(`"${res.body.fingerprint}"`);
    });

    it("a member's own selection of the owner's personal skill does not resolve, and is not replaced by the ghost's", async () => {
      const invalid = await t.http
        .post('/api/tasks')
        .set(as(bob.key))
        .send({ team_id: team.id, skill_selection: [{ name: 'tool', namespace: 'default', is_public: false }] });
      expect(expectError(invalid, 400, 'SKILL_SELECTION_INVALID').details).toEqual({
        invalid: [{ name: 'tool', reason: 'NOT_FOUND' }],
      });
      const labels = { requestedSkillRefs: JSON.stringify([{ name: 'tool', namespace: 'default', is_public: false }]) };
      const task = await s.task(bob, { team_id: team.id, labels });
      const body = await s.skills(bob, task.id);
      expect(body).toEqual(
        expect.objectContaining({
          skills: ['tool'],
          preload_skills: ['tool'],
          skill_refs: {},
          preload_skill_refs: {},
          unresolved: [{ name: 'tool', source: 'task', reason: 'NOT_FOUND' }],
        }),
      );
    });

    it('legacy additionalSkills names are looked up as the task creator: personal, then the team namespace, then public', async () => {
      const byBob = await s.task(bob, { team_id: team.id, labels: { additionalSkills: '["tool"]' } });
      expect((await s.skills(bob, byBob.id)).skill_refs.tool).toEqual(refOf(group));
      const byAlice = await s.task(alice, {
        team_id: team.id,
        labels: { additionalSkills: '["tool"]', requestedSkillRefs: '[]' },
      });
      expect((await s.skills(alice, byAlice.id)).skill_refs.tool).toEqual(refOf(personal));
    });

    it('a foreign group in requestedSkillRefs is FORBIDDEN, not a fallback to another scope', async () => {
      await s.group(carol, 'carols-group');
      await s.skill(carol, 'tool', 'carols-group');
      const labels = {
        requestedSkillRefs: JSON.stringify([{ name: 'tool', namespace: 'carols-group', is_public: false }]),
      };
      const task = await s.task(bob, { team_id: team.id, labels });
      const body = await s.skills(bob, task.id);
      expect(body.unresolved).toEqual([{ name: 'tool', source: 'task', reason: 'FORBIDDEN' }]);
      expect(body.skill_refs).toEqual({});
    });

    it('nobody else may read the task: 404 Task not found, like a missing one', async () => {
      const task = await s.task(bob, { team_id: team.id });
      const missing = await t.http.get('/api/tasks/999999/skills').set(as(carol.key));
      for (const path of [`/api/tasks/${task.id}`, `/api/tasks/${task.id}/skills`]) {
        const res = await t.http.get(path).set(as(carol.key));
        expect(expectError(res, 404, 'NOT_FOUND').message).toBe('Task not found');
        expect({ ...res.body, requestId: '' }).toEqual({ ...missing.body, requestId: '' });
      }
      expectError(
        await t.http.post(`/api/tasks/${task.id}/execution-requests`).set(as(carol.key)).send({}),
        404,
        'NOT_FOUND',
      );
      expectError(await t.http.post(`/api/tasks/${task.id}/tokens`).set(as(carol.key)).send({}), 404, 'NOT_FOUND');
      expectError(await t.http.get('/api/tasks/abc/skills').set(as(carol.key)), 404, 'NOT_FOUND');
      expect((await t.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key))).status).toBe(200);
      expect((await t.http.get(`/api/tasks/${task.id}/skills`).set(as(ADMIN_KEY))).status).toBe(200);
      expectError(await t.http.post('/api/tasks').set(as(carol.key)).send({ team_id: team.id }), 404, 'NOT_FOUND');
    });
  });

  describe('precedence across sources', () => {
    let skills: Record<string, any>;
    let team: any;
    let subscription: any;
    beforeAll(async () => {
      skills = {
        personal: await s.skill(alice, 'multi', 'default'),
        group: await s.skill(alice, 'multi', 'team-a'),
        public: await s.skill(ADMIN_KEY, 'multi', 'public'),
        subOnly: await s.skill(bob, 'sub-only', 'team-a'),
      };
      ({ team } = await s.teamWithGhost(alice, 'precedence', ['multi'], ['multi'], 'team-a'));
      subscription = await s.post(alice, '/api/subscriptions', {
        name: 'nightly',
        namespace: 'team-a',
        team_id: team.id,
        skill_refs: [
          { name: 'multi', namespace: 'default', is_public: true },
          { name: 'sub-only', namespace: 'team-a', is_public: false },
        ],
      });
    });

    it('subscription beats the ghost preload; then the task beats both, in both maps', async () => {
      const run = await s.post(bob, `/api/subscriptions/${subscription.id}/executions`, {});
      expect(run).toEqual({ task_id: expect.any(Number), execution_id: expect.any(Number) });
      const before = await s.skills(bob, run.task_id);
      expect(before).toEqual(
        expect.objectContaining({
          skills: ['multi', 'sub-only'],
          preload_skills: ['multi', 'sub-only'],
          skill_refs: { multi: refOf(skills.public), 'sub-only': refOf(skills.subOnly) },
          preload_skill_refs: { multi: refOf(skills.public), 'sub-only': refOf(skills.subOnly) },
          unresolved: [],
        }),
      );

      const persisted = await s.post(
        bob,
        `/api/tasks/${run.task_id}/execution-requests`,
        { additional_skills: [{ name: 'multi', namespace: 'team-a', is_public: false }], persist: true },
        200,
      );
      expect(persisted.user_selected_skills).toEqual(['multi']);
      const after = await s.skills(bob, run.task_id);
      expect(after.skill_refs.multi).toEqual(refOf(skills.group));
      expect(after.preload_skill_refs.multi).toEqual(refOf(skills.group));
      expect(after.fingerprint).toBe(persisted.fingerprint);
      const task = await s.get(bob, `/api/tasks/${run.task_id}`);
      expect(JSON.parse(task.labels.requestedSkillRefs)).toEqual([
        { name: 'multi', namespace: 'team-a', is_public: false },
      ]);
      expect(JSON.parse(task.labels.additionalSkills)).toEqual(['multi']);
    });

    it('only the latest background execution counts, and a deleted subscription none', async () => {
      const run = await s.post(alice, `/api/subscriptions/${subscription.id}/executions`, {});
      expect((await s.skills(alice, run.task_id)).skill_refs.multi).toEqual(refOf(skills.public));
      expect((await t.http.delete(`/api/subscriptions/${subscription.id}`).set(as(alice.key))).status).toBe(204);
      const body = await s.skills(alice, run.task_id);
      // The ghost decides again: alice's name lookup in team-a finds her personal skill.
      expect(body.skill_refs).toEqual({ multi: refOf(skills.personal) });
      expect(body.preload_skills).toEqual(['multi']);
    });
  });

  describe('stored refs, deletion and versions', () => {
    it('a ghost ref to a deleted skill is DELETED even when the name exists elsewhere; deletion needed force', async () => {
      const doomed = await s.skill(alice, 'doomed', 'default');
      await s.skill(ADMIN_KEY, 'doomed', 'public');
      const { ghost, team } = await s.teamWithGhost(alice, 'doomed-team', ['doomed']);
      const task = await s.task(alice, { team_id: team.id });
      const refused = await t.http.delete(`/api/skills/${doomed.id}`).set(as(alice.key));
      expect(expectError(refused, 409, 'SKILL_REFERENCED').details).toEqual({
        ghosts: [ghost.id],
        subscriptions: [],
        tasks: [],
        count: 1,
      });
      expect((await t.http.delete(`/api/skills/${doomed.id}?force=true`).set(as(alice.key))).status).toBe(204);
      const body = await s.skills(alice, task.id);
      expect(body).toEqual(
        expect.objectContaining({
          skills: ['doomed'],
          skill_refs: {},
          unresolved: [{ name: 'doomed', source: 'ghost', reason: 'DELETED' }],
        }),
      );
    });

    it('SKILL_REFERENCED names only the referrers the caller may read; task selections and subscriptions count', async () => {
      const skill = await s.skill(bob, 'grp-ref', 'team-a');
      const { ghost, team } = await s.teamWithGhost(alice, 'alices-private', ['grp-ref'], [], 'default', {
        'grp-ref': { skill_id: skill.id },
      });
      const task = await s.task(alice, {
        team_id: team.id,
        skill_selection: [{ name: 'grp-ref', namespace: 'team-a', is_public: false }],
      });
      const refused = await t.http.delete(`/api/skills/${skill.id}`).set(as(bob.key));
      expect(expectError(refused, 409, 'SKILL_REFERENCED').details).toEqual({
        ghosts: [],
        subscriptions: [],
        tasks: [],
        count: 0,
      });
      const byAdmin = await t.http.delete(`/api/skills/${skill.id}`).set(as(ADMIN_KEY));
      expect(byAdmin.body.details).toEqual({ ghosts: [ghost.id], subscriptions: [], tasks: [task.id], count: 2 });
      // A legacy name never blocks a delete.
      const legacy = await s.skill(alice, 'legacy-only', 'default');
      await s.task(alice, { team_id: team.id, labels: { additionalSkills: '["legacy-only"]' } });
      expect((await t.http.delete(`/api/skills/${legacy.id}`).set(as(alice.key))).status).toBe(204);
    });

    it('a new version changes version, content_hash and the fingerprint; If-None-Match answers 304 until then', async () => {
      const skill = await s.skill(alice, 'evolving', 'default', 'first');
      const { team } = await s.teamWithGhost(alice, 'evolving-team', ['evolving']);
      const task = await s.task(alice, { team_id: team.id });
      const first = await t.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key));
      const etag = first.headers.etag;
      const cached = await t.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key)).set('If-None-Match', etag);
      expect(cached.status).toBe(304);
      expect(cached.headers.etag).toBe(etag);
      const v2 = await s.newVersion(alice, skill.id, 'evolving', 'second');
      const second = await t.http.get(`/api/tasks/${task.id}/skills`).set(as(alice.key)).set('If-None-Match', etag);
      expect(second.status).toBe(200);
      expect(second.body.skill_refs.evolving).toEqual({
        ...refOf(skill),
        version: 2,
        content_hash: v2.latest_version.content_hash,
      });
      expect(second.body.skill_refs.evolving.content_hash).not.toBe(first.body.skill_refs.evolving.content_hash);
      expect(second.body.fingerprint).not.toBe(first.body.fingerprint);
    });

    it('a pinned ghost ref keeps its version; a missing pinned version is VERSION_NOT_FOUND', async () => {
      const skill = await s.skill(alice, 'pinned', 'default', 'v1');
      await s.newVersion(alice, skill.id, 'pinned', 'v2');
      const { team } = await s.teamWithGhost(alice, 'pinned-team', ['pinned'], [], 'default', {
        pinned: { skill_id: skill.id, version: 1 },
      });
      const task = await s.task(alice, { team_id: team.id });
      const ref = (await s.skills(alice, task.id)).skill_refs.pinned;
      expect(ref).toEqual({ ...refOf(skill), version: 1, pinned: true });
    });
  });

  describe('a team that is gone', () => {
    it('keeps team_id, uses the default namespace, and has no ghosts', async () => {
      await s.skill(ADMIN_KEY, 'everywhere', 'public');
      const grp = await s.skill(alice, 'everywhere', 'team-a');
      const { team } = await s.teamWithGhost(alice, 'ephemeral', ['everywhere'], [], 'team-a');
      const task = await s.task(bob, { team_id: team.id, labels: { additionalSkills: '["everywhere"]' } });
      expect((await s.skills(bob, task.id)).skill_refs.everywhere).toEqual(refOf(grp));
      expect((await t.http.delete(`/api/teams/${team.id}`).set(as(alice.key))).status).toBe(204);
      const body = await s.skills(bob, task.id);
      expect(body).toEqual(
        expect.objectContaining({ team_id: team.id, team_namespace: 'default', skills: ['everywhere'] }),
      );
      expect(body.skill_refs.everywhere.is_public).toBe(true);
    });
  });

  describe('ExecutionRequest', () => {
    let team: any;
    let task: any;
    beforeAll(async () => {
      await s.skill(alice, 'msg-a', 'default');
      await s.skill(ADMIN_KEY, 'msg-b', 'public');
      await s.skill(alice, 'legacy-x', 'team-a');
      ({ team } = await s.teamWithGhost(alice, 'er-team', ['msg-a'], ['msg-a'], 'team-a'));
      task = await s.task(alice, { team_id: team.id, labels: { additionalSkills: '["legacy-x","gone-name"]' } });
    });

    it('with no message its fingerprint equals the GET; the message is the top source', async () => {
      const get = await s.skills(alice, task.id);
      const plain = await s.post(alice, `/api/tasks/${task.id}/execution-requests`, {}, 200);
      expect(plain.fingerprint).toBe(get.fingerprint);
      expect(plain.skill_names).toEqual(get.skills);
      expect(plain.user_selected_skills).toEqual(['legacy-x', 'gone-name']);
      const withMessage = await s.post(
        alice,
        `/api/tasks/${task.id}/execution-requests`,
        {
          additional_skills: [
            { name: 'msg-b', namespace: 'default', is_public: true },
            { name: 'legacy-x', namespace: 'default', is_public: true },
            { name: 'msg-b', namespace: 'default', is_public: true },
          ],
        },
        200,
      );
      expect(withMessage.user_selected_skills).toEqual(['legacy-x', 'gone-name', 'msg-b']);
      expect(withMessage.skill_refs['msg-b'].is_public).toBe(true);
      expect(withMessage.unresolved).toEqual([
        { name: 'gone-name', source: 'task', reason: 'NOT_FOUND' },
        { name: 'legacy-x', source: 'message', reason: 'NOT_FOUND' },
      ]);
      expect(withMessage.fingerprint).not.toBe(get.fingerprint);
      // Nothing was stored.
      expect((await s.get(alice, `/api/tasks/${task.id}`)).labels).toEqual({
        additionalSkills: '["legacy-x","gone-name"]',
      });
    });

    it('persist is for the creator and admins; invalid selections change nothing', async () => {
      const body = { additional_skills: [{ name: 'msg-b', namespace: 'default', is_public: true }], persist: true };
      expectError(
        await t.http.post(`/api/tasks/${task.id}/execution-requests`).set(as(bob.key)).send(body),
        403,
        'FORBIDDEN',
      );
      const bad = await t.http
        .post(`/api/tasks/${task.id}/execution-requests`)
        .set(as(alice.key))
        .send({ additional_skills: [{ name: 'no-such', namespace: 'team-a', is_public: false }], persist: true });
      expect(expectError(bad, 400, 'SKILL_SELECTION_INVALID').details).toEqual({
        invalid: [{ name: 'no-such', reason: 'NOT_FOUND' }],
      });
      expect((await s.get(alice, `/api/tasks/${task.id}`)).labels).toEqual({
        additionalSkills: '["legacy-x","gone-name"]',
      });
    });

    it('persist converts legacy names to the scopes they resolve to, drops the unresolvable, appends the message', async () => {
      await s.post(
        alice,
        `/api/tasks/${task.id}/execution-requests`,
        {
          additional_skills: [{ name: 'msg-b', namespace: 'default', is_public: true }],
          persist: true,
        },
        200,
      );
      const labels = (await s.get(alice, `/api/tasks/${task.id}`)).labels;
      expect(JSON.parse(labels.requestedSkillRefs)).toEqual([
        { name: 'legacy-x', namespace: 'team-a', is_public: false },
        { name: 'msg-b', namespace: 'default', is_public: true },
      ]);
      expect(JSON.parse(labels.additionalSkills)).toEqual(['legacy-x', 'msg-b']);
      const after = await s.skills(bob, task.id);
      expect(after.unresolved).toEqual([]);
      expect(after.skills).toEqual(['legacy-x', 'msg-a', 'msg-b']);
    });

    it('a task token may not make execution requests, and limits are enforced', async () => {
      const token = (await s.post(alice, `/api/tasks/${task.id}/tokens`, {})).token;
      expectError(
        await t.http.post(`/api/tasks/${task.id}/execution-requests`).set(as(token)).send({}),
        404,
        'NOT_FOUND',
      );
      const many = Array.from({ length: 51 }, (_, i) => ({ name: `s${i}`, namespace: 'default', is_public: false }));
      expectError(
        await t.http
          .post(`/api/tasks/${task.id}/execution-requests`)
          .set(as(alice.key))
          .send({ additional_skills: many }),
        400,
        'VALIDATION_FAILED',
      );
    });
  });

  describe('tasks', () => {
    it('labels must be well formed and carry no ids; nothing is stored otherwise', async () => {
      const { team } = await s.teamWithGhost(alice, 'labels-team', []);
      const count = () =>
        withClient(t.db.url, async (c) => Number((await c.query('SELECT count(*) FROM tasks')).rows[0].count));
      const before = await count();
      for (const labels of [
        { requestedSkillRefs: '[{"skill_id": 4, "name": "x", "namespace": "default", "is_public": false}]' },
        { requestedSkillRefs: 'not json' },
        { additionalSkills: '[1, 2]' },
        { additionalSkills: '{"a": 1}' },
        { big: 'x'.repeat(16 * 1024 + 1) },
        Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])),
      ]) {
        expectError(
          await t.http.post('/api/tasks').set(as(alice.key)).send({ team_id: team.id, labels }),
          400,
          'VALIDATION_FAILED',
        );
      }
      expectError(
        await t.http
          .post('/api/tasks')
          .set(as(alice.key))
          .send({ team_id: team.id, title: 'x'.repeat(257) }),
        400,
        'VALIDATION_FAILED',
      );
      expectError(await t.http.post('/api/tasks').set(as(alice.key)).send({ team_id: 999999 }), 404, 'NOT_FOUND');
      expect(await count()).toBe(before);
    });

    it('skill_selection is written as both labels and wins over them', async () => {
      await s.skill(alice, 'picked', 'default');
      const { team } = await s.teamWithGhost(alice, 'picks-team', []);
      const task = await s.task(alice, {
        team_id: team.id,
        title: 'Picks',
        labels: { additionalSkills: '["other"]', env: 'prod' },
        skill_selection: [{ name: 'picked', namespace: 'default', is_public: false }],
      });
      expect(task).toEqual(
        expect.objectContaining({
          team_id: team.id,
          owner_user_id: alice.id,
          namespace: 'default',
          title: 'Picks',
          labels: {
            env: 'prod',
            additionalSkills: '["picked"]',
            requestedSkillRefs: '[{"name":"picked","namespace":"default","is_public":false}]',
          },
        }),
      );
      const list = await s.get(alice, '/api/tasks?limit=100');
      expect(list.items.map((x: { id: number }) => x.id)).toContain(task.id);
      expect((await s.get(carol, '/api/tasks')).items).toEqual([]);
    });
  });
});
