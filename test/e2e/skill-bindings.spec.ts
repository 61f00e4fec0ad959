// Skill bindings through the real app: every route and error code, nothing stored by a refused
// write, audit events, and the bindings' effect on a task's skills in every consumer.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { withClient } from '../support/database';
import { listen } from '../support/raw-http';
import { Scenario } from '../support/scenario';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';

describe('skill bindings', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser; // Owner of `sb` (and so of `sb/web`)
  let bob: TestUser; // Developer in `sb`
  let carol: TestUser; // Reporter in `sb`
  let dave: TestUser; // no role anywhere
  let sb: number;
  let web: number;
  let pub: any; // public `sb-pub`
  let lint: any; // `sb-lint` in `sb`
  let mine: any; // Alice's personal `sb-mine`
  let webFmt: any; // `sb-fmt` in `sb/web`

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    alice = await createUser(t, 'sb-alice');
    bob = await createUser(t, 'sb-bob');
    carol = await createUser(t, 'sb-carol');
    dave = await createUser(t, 'sb-dave');
    sb = await s.group(alice, 'sb', [
      [bob, 'Developer'],
      [carol, 'Reporter'],
    ]);
    web = await s.group(alice, 'sb/web');
    pub = await s.skill(ADMIN_KEY, 'sb-pub', 'public');
    lint = await s.skill(alice, 'sb-lint', 'sb');
    mine = await s.skill(alice, 'sb-mine');
    webFmt = await s.skill(alice, 'sb-fmt', 'sb/web');
  });
  afterAll(() => t.close());

  const sql = <T = any>(text: string, params: unknown[] = []): Promise<T[]> =>
    withClient(t.db.url, async (c) => (await c.query(text, params)).rows as T[]);
  const bindingRows = async (): Promise<number> => (await sql(`SELECT count(*)::int AS n FROM skill_bindings`))[0].n;
  const events = (action: string) =>
    sql(`SELECT target_id, namespace, details FROM audit_events WHERE action = $1 ORDER BY id`, [action]);
  const mePath = (skillId: number | string = '') =>
    `/api/users/me/skill-bindings${skillId === '' ? '' : `/${skillId}`}`;
  const groupPath = (groupId: number, skillId: number | string = '') =>
    `/api/groups/${groupId}/skill-bindings${skillId === '' ? '' : `/${skillId}`}`;
  const put = (who: TestUser | string, path: string, body: object = {}) =>
    t.http
      .put(path)
      .set(as(typeof who === 'string' ? who : who.key))
      .send(body);
  const get = (who: TestUser | string, path: string) =>
    t.http.get(path).set(as(typeof who === 'string' ? who : who.key));
  const del = (who: TestUser | string, path: string) =>
    t.http.delete(path).set(as(typeof who === 'string' ? who : who.key));

  describe("a user's own bindings", () => {
    afterEach(() => sql(`DELETE FROM skill_bindings`));

    it('PUT creates (201), PUT again replaces the whole binding (200), GET lists by name, DELETE removes', async () => {
      const created = await put(alice, mePath(pub.id), {
        preload: true,
        exceptions: [{ type: 'mode', value: 'chat' }],
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        skill_id: pub.id,
        name: 'sb-pub',
        namespace: 'default',
        is_public: true,
        target: { type: 'user', user_id: alice.id },
        preload: true,
        exceptions: [{ type: 'mode', value: 'chat' }],
        created_by_user_id: alice.id,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      // Left out: the defaults (no preload, no exceptions).
      const replaced = await put(alice, mePath(pub.id), {});
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ id: created.body.id, preload: false, exceptions: [] });
      expect((await put(alice, mePath(mine.id), { preload: true })).status).toBe(201);
      expect((await put(alice, mePath(lint.id))).status).toBe(201);
      const list = await get(alice, mePath());
      expect(list.status).toBe(200);
      expect(list.body.items.map((b: any) => b.name)).toEqual(['sb-lint', 'sb-mine', 'sb-pub']);
      // Another user sees only their own.
      expect((await get(bob, mePath())).body).toEqual({ items: [] });

      expect((await del(alice, mePath(pub.id))).status).toBe(204);
      expectError(await del(alice, mePath(pub.id)), 404, 'NOT_FOUND');
      expectError(await del(bob, mePath(mine.id)), 404, 'NOT_FOUND');
      expect((await get(alice, mePath())).body.items.map((b: any) => b.name)).toEqual(['sb-lint', 'sb-mine']);

      const [create] = (await events('skill_binding.create')).filter((e) => e.target_id === created.body.id);
      expect(create).toEqual({
        target_id: created.body.id,
        namespace: null,
        details: expect.objectContaining({ skill_id: pub.id, name: 'sb-pub', target_type: 'user', preload: true }),
      });
      expect((await events('skill_binding.update')).map((e) => e.target_id)).toContain(created.body.id);
      expect((await events('skill_binding.delete')).map((e) => e.target_id)).toContain(created.body.id);
    });

    it('a skill the caller may not read, or none, is 404, and nothing is stored', async () => {
      expectError(await put(dave, mePath(lint.id)), 404, 'NOT_FOUND');
      expectError(await put(dave, mePath(mine.id)), 404, 'NOT_FOUND');
      expectError(await put(dave, mePath(2_000_000)), 404, 'NOT_FOUND');
      expectError(await put(dave, mePath('abc')), 404, 'NOT_FOUND');
      expect(await bindingRows()).toBe(0);
    });

    it.each<[string, object]>([
      ['21 exceptions', { exceptions: Array.from({ length: 21 }, (_, i) => ({ type: 'team', value: String(i) })) }],
      ['an empty value', { exceptions: [{ type: 'mode', value: '' }] }],
      ['a 129-character value', { exceptions: [{ type: 'mode', value: 'x'.repeat(129) }] }],
      ['an unknown exception type', { exceptions: [{ type: 'user', value: '1' }] }],
      ['a value that is not a string', { exceptions: [{ type: 'team', value: 7 }] }],
      ['an exception with an unknown field', { exceptions: [{ type: 'team', value: '7', extra: 1 }] }],
      ['exceptions that are not a list', { exceptions: { type: 'team', value: '7' } }],
      ['a NUL in a value', { exceptions: [{ type: 'mode', value: 'a\u0000b' }] }],
      ['a preload that is not a boolean', { preload: 'yes' }],
      ['an unknown field', { preload: true, user_id: 3 }],
      // Under the body limit: refused by the count, before any item is looked at.
      ['100,000 exceptions', { exceptions: new Array(100_000).fill(0) }],
    ])('%s: 400 VALIDATION_FAILED, nothing stored', async (_, body) => {
      const res = await put(alice, mePath(pub.id), body);
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(await bindingRows()).toBe(0);
    });

    // The JSON body limit may answer first (413 BODY_TOO_LARGE): either way nothing is stored.
    it.each<[string, object]>([
      ['a 1 MB value', { exceptions: [{ type: 'mode', value: 'x'.repeat(1_000_000) }] }],
      [
        '100,000 full exceptions',
        { exceptions: Array.from({ length: 100_000 }, () => ({ type: 'mode', value: 'x' })) },
      ],
    ])('%s is refused before anything is stored (413 by the body limit, or 400)', async (_, body) => {
      const res = await put(alice, mePath(pub.id), body);
      expect([400, 413]).toContain(res.status);
      expect(res.body.code).toBe(res.status === 413 ? 'BODY_TOO_LARGE' : 'VALIDATION_FAILED');
      expect(await bindingRows()).toBe(0);
    });

    it('at most 100 per user: the 101st is 400 VALIDATION_FAILED, a replacement still passes', async () => {
      const ids = await sql<{ id: number }>(
        `INSERT INTO skills (name, namespace, is_public, owner_user_id, created_by_user_id, description, latest_version)
         SELECT 'sb-many-' || i, 'default', false, $1, $1, '', 1 FROM generate_series(1, 100) i RETURNING id`,
        [carol.id],
      );
      await sql(`INSERT INTO skill_bindings (skill_id, user_id, created_by_user_id) SELECT unnest($1::int[]), $2, $2`, [
        ids.map((r) => r.id),
        carol.id,
      ]);
      expectError(await put(carol, mePath(pub.id)), 400, 'VALIDATION_FAILED');
      expect(await bindingRows()).toBe(100);
      expect((await put(carol, mePath(ids[0].id), { preload: true })).status).toBe(200);
      await sql(`DELETE FROM skill_bindings`);
      await sql(`DELETE FROM skills WHERE id = ANY($1::int[])`, [ids.map((r) => r.id)]);
    });
  });

  describe("a group's bindings", () => {
    afterEach(() => sql(`DELETE FROM skill_bindings`));

    it('Reporter+ list, Developer+ put, Maintainer+ or the creator while Developer+ delete', async () => {
      const created = await put(bob, groupPath(sb, lint.id), { preload: true });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        skill_id: lint.id,
        name: 'sb-lint',
        namespace: 'sb',
        is_public: false,
        target: { type: 'group', group_id: sb },
        preload: true,
        created_by_user_id: bob.id,
      });
      expect(created.body.target).not.toHaveProperty('user_id');
      expect((await put(alice, groupPath(sb, pub.id))).status).toBe(201);
      expect((await get(carol, groupPath(sb))).body.items.map((b: any) => b.name)).toEqual(['sb-lint', 'sb-pub']);
      expect((await get(ADMIN_KEY, groupPath(sb))).status).toBe(200);
      // The parent's Owner holds in the child.
      expect((await get(alice, groupPath(web))).body).toEqual({ items: [] });

      expectError(await put(carol, groupPath(sb, pub.id)), 403, 'FORBIDDEN');
      expectError(await del(carol, groupPath(sb, lint.id)), 403, 'FORBIDDEN');
      // Bob created the lint binding, not the public one.
      expectError(await del(bob, groupPath(sb, pub.id)), 403, 'FORBIDDEN');
      expect((await del(bob, groupPath(sb, lint.id))).status).toBe(204);
      expect((await del(alice, groupPath(sb, pub.id))).status).toBe(204);
      expectError(await del(alice, groupPath(sb, pub.id)), 404, 'NOT_FOUND');
      const [event] = (await events('skill_binding.delete')).filter((e) => e.target_id === created.body.id);
      expect(event).toMatchObject({ namespace: 'sb', details: { target_type: 'group', target_id: sb } });
    });

    it('a caller without a role, or a missing group, is 404 on every route; nothing is stored', async () => {
      for (const path of [groupPath(sb), groupPath(2_000_000), groupPath('x' as unknown as number)]) {
        expectError(await get(dave, path), 404, 'NOT_FOUND');
      }
      expectError(await put(dave, groupPath(sb, pub.id)), 404, 'NOT_FOUND');
      expectError(await put(alice, groupPath(2_000_000, pub.id)), 404, 'NOT_FOUND');
      expectError(await put(alice, groupPath(sb, 2_000_000)), 404, 'NOT_FOUND');
      // Carol may not read Alice's personal skill: 404, not a scope problem.
      expectError(await put(ADMIN_KEY, groupPath(sb, 2_000_000)), 404, 'NOT_FOUND');
      expectError(await del(dave, groupPath(sb, pub.id)), 404, 'NOT_FOUND');
      expectError(await del(alice, groupPath(sb, pub.id)), 404, 'NOT_FOUND');
      expect(await bindingRows()).toBe(0);
    });

    it.each<[string, () => number, () => any]>([
      ['a personal skill', () => sb, () => mine],
      ["the parent group's skill, on the child", () => web, () => lint],
      ["a child group's skill, on the parent", () => sb, () => webFmt],
    ])('%s: 400 SKILL_SELECTION_INVALID SCOPE_MISMATCH, nothing stored', async (_, group, skill) => {
      const res = await put(alice, groupPath(group(), skill().id));
      expect(expectError(res, 400, 'SKILL_SELECTION_INVALID').details).toEqual({
        invalid: [{ name: skill().name, reason: 'SCOPE_MISMATCH' }],
      });
      expect(await bindingRows()).toBe(0);
    });

    it('bad bodies are 400 VALIDATION_FAILED for a group too, nothing stored', async () => {
      expectError(
        await put(alice, groupPath(sb, pub.id), { exceptions: [{ type: 'x', value: '' }] }),
        400,
        'VALIDATION_FAILED',
      );
      expect(await bindingRows()).toBe(0);
    });

    it('at most 100 per group', async () => {
      const ids = await sql<{ id: number }>(
        `INSERT INTO skills (name, namespace, is_public, owner_user_id, created_by_user_id, description, latest_version)
         SELECT 'sb-gmany-' || i, 'sb', false, $1, $1, '', 1 FROM generate_series(1, 100) i RETURNING id`,
        [alice.id],
      );
      await sql(
        `INSERT INTO skill_bindings (skill_id, group_id, created_by_user_id) SELECT unnest($1::int[]), $2, $3`,
        [ids.map((r) => r.id), sb, alice.id],
      );
      expectError(await put(alice, groupPath(sb, pub.id)), 400, 'VALIDATION_FAILED');
      expect(await bindingRows()).toBe(100);
      // Another group's count is its own.
      expect((await put(alice, groupPath(web, pub.id))).status).toBe(201);
      await sql(`DELETE FROM skill_bindings`);
      await sql(`DELETE FROM skills WHERE id = ANY($1::int[])`, [ids.map((r) => r.id)]);
    });
  });

  describe('in resolutions', () => {
    afterEach(() => sql(`DELETE FROM skill_bindings`));

    /** GET /tasks/{id}/skills with the last ETag: 304 while nothing changed, else the new answer. */
    async function skillsOf(who: TestUser | string, taskId: number, etag?: string) {
      const req = get(who, `/api/tasks/${taskId}/skills`);
      if (etag) void req.set('If-None-Match', etag);
      return req;
    }

    it("a user binding changes the creator's task: 304 before, 200 with a new fingerprint after", async () => {
      const { team } = await s.teamWithGhost(bob, 'sb-team-u', ['sb-lint'], [], 'sb');
      const task = await s.task(bob, { team_id: team.id });
      const before = await skillsOf(bob, task.id);
      expect(before.body.skills).toEqual(['sb-lint']);
      expect((await skillsOf(bob, task.id, before.headers.etag)).status).toBe(304);

      expect((await put(bob, mePath(pub.id), { preload: true })).status).toBe(201);
      const after = await skillsOf(bob, task.id, before.headers.etag);
      expect(after.status).toBe(200);
      expect(after.body.fingerprint).not.toBe(before.body.fingerprint);
      expect(after.body).toMatchObject({
        skills: ['sb-lint', 'sb-pub'],
        preload_skills: ['sb-pub'],
        skill_refs: { 'sb-pub': { skill_id: pub.id, version: 1, pinned: false } },
        preload_skill_refs: { 'sb-pub': { skill_id: pub.id } },
        unresolved: [],
      });
      // Only the creator's bindings count: Carol, who reads the task, sees the same answer.
      expect((await skillsOf(carol, task.id)).body.fingerprint).toBe(after.body.fingerprint);

      // A binding of a name the ghost names decides nothing.
      expect((await put(bob, mePath(lint.id), { preload: true })).status).toBe(201);
      const same = await skillsOf(bob, task.id);
      expect(same.body.preload_skills).toEqual(['sb-pub']);

      // ExecutionRequests: the bound name resolves, but is never a user selection.
      const exec = await t.http
        .post(`/api/tasks/${task.id}/execution-requests`)
        .set(as(bob.key))
        .send({ additional_skills: [{ name: 'sb-mine', namespace: 'default', is_public: false }] });
      expect(exec.status).toBe(200);
      expect(exec.body.skill_names).toEqual(['sb-lint', 'sb-mine', 'sb-pub']);
      expect(exec.body.user_selected_skills).toEqual(['sb-mine']);
      const plain = await t.http.post(`/api/tasks/${task.id}/execution-requests`).set(as(bob.key)).send({});
      expect(plain.body.fingerprint).toBe(same.body.fingerprint);
      expect(plain.body.user_selected_skills).toEqual([]);

      // Removing it changes the answer back.
      expect((await del(bob, mePath(pub.id))).status).toBe(204);
      expect((await skillsOf(bob, task.id, after.headers.etag)).body.fingerprint).toBe(before.body.fingerprint);
    });

    it("a group binding changes the tasks of the group's teams and of its children's, for members only", async () => {
      const parentTeam = (await s.teamWithGhost(alice, 'sb-team-p', [], [], 'sb')).team;
      const childTeam = (await s.teamWithGhost(alice, 'sb-team-c', [], [], 'sb/web')).team;
      const personal = (await s.teamWithGhost(alice, 'sb-team-d', [], [], 'default')).team;
      const onParent = await s.task(alice, { team_id: parentTeam.id });
      const onChild = await s.task(alice, { team_id: childTeam.id });
      const onPersonal = await s.task(alice, { team_id: personal.id });
      const chat = await s.task(alice, { team_id: childTeam.id, labels: { taskType: 'chat' } });
      const before = await Promise.all([onParent, onChild, onPersonal, chat].map((task) => skillsOf(alice, task.id)));
      for (const [i, task] of [onParent, onChild, onPersonal, chat].entries()) {
        expect((await skillsOf(alice, task.id, before[i].headers.etag)).status).toBe(304);
      }

      expect((await put(bob, groupPath(sb, pub.id), { exceptions: [{ type: 'mode', value: 'chat' }] })).status).toBe(
        201,
      );
      const after = await Promise.all([onParent, onChild, onPersonal, chat].map((task) => skillsOf(alice, task.id)));
      expect(after.map((r) => r.body.skills)).toEqual([['sb-pub'], ['sb-pub'], [], []]);
      expect(after[0].body.fingerprint).not.toBe(before[0].body.fingerprint);
      expect((await skillsOf(alice, onChild.id, before[1].headers.etag)).status).toBe(200);

      // The child's own binding of the same name decides first (nearest), preload and all.
      expect((await put(alice, groupPath(web, pub.id), { preload: true })).status).toBe(201);
      expect((await skillsOf(alice, onChild.id)).body.preload_skills).toEqual(['sb-pub']);
      expect((await skillsOf(alice, onParent.id)).body.preload_skills).toEqual([]);
      // A team exception on the child's binding leaves the name to the parent's.
      expect(
        (
          await put(alice, groupPath(web, pub.id), {
            preload: true,
            exceptions: [{ type: 'team', value: String(childTeam.id) }],
          })
        ).status,
      ).toBe(200);
      expect((await skillsOf(alice, onChild.id)).body).toMatchObject({ skills: ['sb-pub'], preload_skills: [] });
    });

    it('a member of the child alone gets nothing of the parent; a creator who lost the role gets FORBIDDEN', async () => {
      const erin = await createUser(t, 'sb-erin');
      const frank = await createUser(t, 'sb-frank');
      await s.put(alice, `/api/groups/${web}/members/${erin.id}`, { role: 'Developer' });
      await s.put(alice, `/api/groups/${sb}/members/${frank.id}`, { role: 'Developer' });
      const childTeam = (await s.teamWithGhost(alice, 'sb-team-c2', [], [], 'sb/web')).team;
      await put(alice, groupPath(sb, pub.id));
      await put(alice, groupPath(web, webFmt.id));
      const erinTask = await s.task(erin, { team_id: childTeam.id });
      expect((await skillsOf(erin, erinTask.id)).body.skills).toEqual(['sb-fmt']);

      // Frank binds the group's skill for himself, then leaves the group.
      expect((await put(frank, mePath(lint.id))).status).toBe(201);
      const frankTeam = (await s.teamWithGhost(frank, 'sb-team-f', [], [], 'default')).team;
      const frankTask = await s.task(frank, { team_id: frankTeam.id });
      expect((await skillsOf(frank, frankTask.id)).body.skills).toEqual(['sb-lint']);
      expect((await del(frank, `/api/groups/${sb}/members/${frank.id}`)).status).toBe(204);
      expect((await skillsOf(frank, frankTask.id)).body).toMatchObject({
        skills: ['sb-lint'],
        skill_refs: {},
        unresolved: [{ name: 'sb-lint', source: 'binding', reason: 'FORBIDDEN' }],
      });
    });

    it("the readers' rule: a user's binding of a personal skill never reaches a group task's readers", async () => {
      // Bob (Developer in sb) binds his personal skill and creates a task on a team of sb. Carol
      // (Reporter in sb) reads the task: she must not get the skill's id, hash, bytes or files.
      const secret = await s.skill(bob, 'sb-secret');
      expect((await put(bob, mePath(secret.id), { preload: true })).status).toBe(201);
      const team = (await s.teamWithGhost(bob, 'sb-team-rr', [], [], 'sb')).team;
      const task = await s.task(bob, { team_id: team.id });
      for (const reader of [bob, carol, alice]) {
        const seen = await skillsOf(reader, task.id);
        expect(seen.status).toBe(200);
        expect(seen.body).toMatchObject({ skills: [], preload_skills: [], skill_refs: {}, unresolved: [] });
        expect(JSON.stringify(seen.body)).not.toContain(secret.latest_version.content_hash);
      }
      const exec = await t.http.post(`/api/tasks/${task.id}/execution-requests`).set(as(carol.key)).send({});
      expect(exec.body.skill_names).toEqual([]);

      const token = (await s.post(carol, `/api/tasks/${task.id}/tokens`, {})).token as string;
      for (const path of [
        `/api/skills/${secret.id}/download`,
        `/api/v1/kinds/skills/${secret.id}/download`,
        `/api/skills/${secret.id}/manifest`,
        `/api/skills/${secret.id}/files/SKILL.md`,
      ]) {
        expectError(await get(token, path), 404, 'NOT_FOUND');
      }
      expect((await get(token, `/api/v1/kinds/skills?name=sb-secret`)).body).toEqual({ items: [] });
      const port = await listen(t);
      const client = new Client({ name: 'bindings-readers', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/api/mcp`), {
          requestInit: { headers: as(token) },
        }),
      );
      try {
        expect((await client.listResources()).resources).toEqual([]);
        await expect(client.readResource({ uri: 'skill://default/sb-secret/SKILL.md' })).rejects.toThrow(/not found/i);
      } finally {
        await client.close();
      }

      // The same binding still serves Bob's own personal task.
      const own = (await s.teamWithGhost(bob, 'sb-team-rr-own', [], [], 'default')).team;
      const ownTask = await s.task(bob, { team_id: own.id });
      expect((await skillsOf(bob, ownTask.id)).body).toMatchObject({
        skills: ['sb-secret'],
        preload_skills: ['sb-secret'],
        skill_refs: { 'sb-secret': { skill_id: secret.id } },
      });
    });

    it("the readers' rule: an ancestor's binding of its own skill reaches no task of a child group", async () => {
      const gina = await createUser(t, 'sb-gina');
      await s.put(alice, `/api/groups/${web}/members/${gina.id}`, { role: 'Reporter' });
      const childTeam = (await s.teamWithGhost(alice, 'sb-team-rr-c', [], [], 'sb/web')).team;
      expect((await put(alice, groupPath(sb, lint.id), { preload: true })).status).toBe(201);
      expect((await put(alice, groupPath(sb, pub.id))).status).toBe(201);
      // Alice has a role in sb and reads sb-lint, but Gina (sb/web only) reads her task too.
      const task = await s.task(alice, { team_id: childTeam.id });
      for (const reader of [alice, gina]) {
        expect((await skillsOf(reader, task.id)).body).toMatchObject({
          skills: ['sb-pub'],
          preload_skills: [],
          unresolved: [],
        });
      }
      const token = (await s.post(gina, `/api/tasks/${task.id}/tokens`, {})).token as string;
      expectError(await get(token, `/api/skills/${lint.id}/download`), 404, 'NOT_FOUND');
      expect((await get(token, `/api/skills/${pub.id}/download`)).status).toBe(200);
      // On a task of sb itself, sb's binding of its own skill applies.
      const parentTeam = (await s.teamWithGhost(alice, 'sb-team-rr-p', [], [], 'sb')).team;
      const onParent = await s.task(alice, { team_id: parentTeam.id });
      expect((await skillsOf(carol, onParent.id)).body).toMatchObject({
        skills: ['sb-lint', 'sb-pub'],
        preload_skills: ['sb-lint'],
      });
    });

    it('a task token reads, downloads and lists the bound skills of its task; the MCP tool and manifest agree', async () => {
      const team = (await s.teamWithGhost(alice, 'sb-team-t', [], [], 'default')).team;
      const task = await s.task(alice, { team_id: team.id });
      await put(alice, mePath(mine.id), { preload: true });
      const token = (await s.post(alice, `/api/tasks/${task.id}/tokens`, {})).token as string;
      const skills = await skillsOf(token, task.id);
      expect(skills.body).toMatchObject({ skills: ['sb-mine'], preload_skills: ['sb-mine'] });
      expect((await get(token, `/api/skills/${mine.id}/download`)).status).toBe(200);
      expect((await get(token, `/api/skills/${mine.id}/manifest`)).status).toBe(200);
      expect((await get(token, `/api/v1/tasks/${task.id}/skills`)).body.skills).toEqual(['sb-mine']);
      const remote = await get(token, `/api/tasks/${task.id}/remote-skills.json`);
      expect(remote.status).toBe(200);
      expect(JSON.stringify(remote.body)).toContain('sb-mine');
      // A skill not in the task's set stays out of reach.
      expectError(await get(token, `/api/skills/${pub.id}/download`), 404, 'NOT_FOUND');
    });

    it("MCP get_task_skills answers the bound skills, as the task's token sees them over HTTP", async () => {
      const team = (await s.teamWithGhost(alice, 'sb-team-m', [], [], 'default')).team;
      const task = await s.task(alice, { team_id: team.id });
      await put(alice, mePath(mine.id), { preload: true });
      const token = (await s.post(alice, `/api/tasks/${task.id}/tokens`, {})).token as string;
      const port = await listen(t);
      const client = new Client({ name: 'bindings-e2e', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/api/mcp`), {
          requestInit: { headers: as(token) },
        }),
      );
      try {
        const result = (await client.callTool({
          name: 'get_task_skills',
          arguments: { task_id: task.id },
        })) as CallToolResult;
        const http = await skillsOf(token, task.id);
        expect(result.structuredContent).toEqual(http.body);
        expect(http.body.skills).toEqual(['sb-mine']);
      } finally {
        await client.close();
      }
    });

    it('tokens get 404 on every binding route', async () => {
      const team = (await s.teamWithGhost(alice, 'sb-team-tk', [], [], 'default')).team;
      const task = await s.task(alice, { team_id: team.id });
      const token = (await s.post(alice, `/api/tasks/${task.id}/tokens`, {})).token as string;
      expectError(await get(token, mePath()), 404, 'NOT_FOUND');
      expectError(await put(token, mePath(mine.id)), 404, 'NOT_FOUND');
      expectError(await del(token, mePath(mine.id)), 404, 'NOT_FOUND');
      expectError(await get(token, groupPath(sb)), 404, 'NOT_FOUND');
      expectError(await put(token, groupPath(sb, pub.id)), 404, 'NOT_FOUND');
      expectError(await del(token, groupPath(sb, pub.id)), 404, 'NOT_FOUND');
      expect(await bindingRows()).toBe(0);
    });

    it('deleting a skill removes its bindings, each audited, and leaves no trace in resolutions', async () => {
      const doomed = await s.skill(ADMIN_KEY, 'sb-doomed', 'public');
      const team = (await s.teamWithGhost(alice, 'sb-team-x', [], [], 'sb')).team;
      const task = await s.task(alice, { team_id: team.id });
      const user = await put(alice, mePath(doomed.id));
      const group = await put(alice, groupPath(sb, doomed.id));
      expect((await skillsOf(alice, task.id)).body.skills).toEqual(['sb-doomed']);
      // Bindings do not block deleting: no SKILL_REFERENCED, no force needed.
      expect((await del(ADMIN_KEY, `/api/skills/${doomed.id}`)).status).toBe(204);
      expect(await bindingRows()).toBe(0);
      const gone = (await events('skill_binding.delete')).filter((e) => e.details.skill_deleted);
      expect(gone.map((e) => [e.target_id, e.namespace])).toEqual([
        [user.body.id, null],
        [group.body.id, 'sb'],
      ]);
      expect((await skillsOf(alice, task.id)).body).toMatchObject({ skills: [], unresolved: [] });
      expect((await get(alice, mePath())).body).toEqual({ items: [] });
      // A deleted skill cannot be bound again (404, admins included).
      expectError(await put(ADMIN_KEY, mePath(doomed.id)), 404, 'NOT_FOUND');
    });
  });
});
