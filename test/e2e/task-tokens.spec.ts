import { createHash } from 'node:crypto';
import { withClient } from '../support/database';
import { Scenario } from '../support/scenario';
import { binary } from '../support/skills';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';

describe('task tokens and the Wegent routes', () => {
  let t: TestApp;
  let s: Scenario;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let groupId: number;
  let inSet: any;
  let outside: any;
  let task: any;
  let otherTask: any;

  beforeAll(async () => {
    t = await startTestApp();
    s = new Scenario(t);
    [alice, bob, carol] = await Promise.all(['alice', 'bob', 'carol'].map((n) => createUser(t, n)));
    groupId = await s.group(alice, 'team-t', [[bob, 'Reporter']]);
    inSet = await s.skill(alice, 'in-set', 'team-t', 'first');
    await s.newVersion(alice, inSet.id, 'in-set', 'second');
    outside = await s.skill(alice, 'outside', 'team-t');
    const { team } = await s.teamWithGhost(alice, 'tok', ['in-set'], [], 'team-t');
    task = await s.task(alice, { team_id: team.id });
    otherTask = await s.task(alice, { team_id: team.id });
  });
  afterAll(async () => {
    await t.close();
  });

  async function mint(user: TestUser, taskId = task.id, body: object = {}): Promise<string> {
    const res = await t.http.post(`/api/tasks/${taskId}/tokens`).set(as(user.key)).send(body);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      token: expect.stringMatching(/^srt_[A-Za-z0-9_-]{43}$/),
      expires_at: expect.any(String),
    });
    return res.body.token;
  }

  it('a token reads its task and its skills, by either header', async () => {
    const token = await mint(bob);
    expect((await t.http.get(`/api/tasks/${task.id}`).set(as(token))).body.id).toBe(task.id);
    const skills = await t.http.get(`/api/tasks/${task.id}/skills`).set('X-API-Key', token);
    expect(skills.status).toBe(200);
    expect(skills.body.skill_refs['in-set']).toEqual(expect.objectContaining({ skill_id: inSet.id, version: 2 }));
  });

  it.each([
    ['another task', (id: number) => `/api/tasks/${id + 1000}`],
    ['the skills of another task', () => `/api/tasks/OTHER/skills`],
    ['users/me', () => '/api/users/me'],
    ['the skill list', () => '/api/skills'],
    ['a skill', () => `/api/skills/SKILL`],
    ['the task list', () => '/api/tasks'],
    ['groups', () => '/api/groups'],
  ])('every other call is 404: %s', async (_name, path) => {
    const token = await mint(alice);
    const url = path(task.id).replace('OTHER', String(otherTask.id)).replace('SKILL', String(inSet.id));
    expectError(await t.http.get(url).set(as(token)), 404, 'NOT_FOUND');
  });

  it('writes are 404 too, minting included', async () => {
    const token = await mint(alice);
    expectError(await t.http.post(`/api/tasks/${task.id}/tokens`).set(as(token)).send({}), 404, 'NOT_FOUND');
    expectError(await t.http.delete(`/api/tasks/${task.id}/tokens`).set(as(token)), 404, 'NOT_FOUND');
    expectError(await t.http.post('/api/groups').set(as(token)).send({ name: 'x' }), 404, 'NOT_FOUND');
  });

  it('downloads only the skills of the resolved set, at the resolved version, on both routes', async () => {
    const token = await mint(alice);
    for (const base of ['/api/skills', '/api/v1/kinds/skills']) {
      const res = await t.http.get(`${base}/${inSet.id}/download`).set(as(token)).buffer().parse(binary);
      expect(res.status).toBe(200);
      const hash = `sha256:${createHash('sha256').update(res.body).digest('hex')}`;
      expect(res.headers.etag).toBe(`"${hash}"`);
      const v2 = (await t.http.get(`/api/skills/${inSet.id}`).set(as(alice.key))).body.latest_version;
      expect(hash).toBe(v2.content_hash);
      expect((await t.http.get(`${base}/${inSet.id}/download?version=2`).set(as(token))).status).toBe(200);
      expectError(await t.http.get(`${base}/${inSet.id}/download?version=1`).set(as(token)), 404, 'NOT_FOUND');
      expectError(await t.http.get(`${base}/${outside.id}/download`).set(as(token)), 404, 'NOT_FOUND');
      expectError(
        await t.http.get(`${base}/${inSet.id}/download?task_id=${otherTask.id}`).set(as(token)),
        404,
        'NOT_FOUND',
      );
    }
  });

  it('the Wegent list route answers the Skill kind for names of the set', async () => {
    const token = await mint(alice);
    const found = await t.http.get('/api/v1/kinds/skills?name=in-set').set(as(token));
    const latest = (await t.http.get(`/api/skills/${inSet.id}`).set(as(alice.key))).body.latest_version;
    expect(found.body).toEqual({
      items: [
        {
          apiVersion: 'agent.wecode.io/v1',
          kind: 'Skill',
          metadata: { name: 'in-set', namespace: 'team-t', labels: { id: String(inSet.id) } },
          spec: { description: 'second' },
          status: { fileHash: latest.content_hash.slice('sha256:'.length) },
        },
      ],
    });
    expect((await t.http.get('/api/v1/kinds/skills?name=outside').set(as(token))).body).toEqual({ items: [] });
    expectError(
      await t.http.get(`/api/v1/kinds/skills?name=in-set&task_id=${otherTask.id}`).set(as(token)),
      404,
      'NOT_FOUND',
    );
  });

  it('users use the Wegent routes with their own access: by task, or by name lookup in a namespace', async () => {
    const byTask = await t.http.get(`/api/v1/kinds/skills?name=in-set&task_id=${task.id}`).set(as(bob.key));
    expect(byTask.body.items[0].metadata.labels.id).toBe(String(inSet.id));
    const byName = await t.http.get('/api/v1/kinds/skills?name=outside&namespace=team-t').set(as(bob.key));
    expect(byName.body.items[0].metadata.labels.id).toBe(String(outside.id));
    expect((await t.http.get('/api/v1/kinds/skills?name=outside&namespace=team-t').set(as(carol.key))).body).toEqual({
      items: [],
    });
    expectError(
      await t.http.get(`/api/v1/kinds/skills?name=in-set&task_id=${task.id}`).set(as(carol.key)),
      404,
      'NOT_FOUND',
    );
    expectError(await t.http.get(`/api/v1/kinds/skills/${inSet.id}/download`).set(as(carol.key)), 404, 'NOT_FOUND');
    expect((await t.http.get(`/api/v1/kinds/skills/${inSet.id}/download?version=1`).set(as(bob.key))).status).toBe(200);
  });

  it('revoking answers 401 for every token of the task; Reporters may not revoke', async () => {
    const one = await mint(alice);
    const two = await mint(bob);
    expectError(await t.http.delete(`/api/tasks/${task.id}/tokens`).set(as(bob.key)), 403, 'FORBIDDEN');
    expectError(await t.http.delete(`/api/tasks/${task.id}/tokens`).set(as(carol.key)), 404, 'NOT_FOUND');
    expect((await t.http.delete(`/api/tasks/${task.id}/tokens`).set(as(alice.key))).status).toBe(204);
    for (const token of [one, two])
      expectError(await t.http.get(`/api/tasks/${task.id}`).set(as(token)), 401, 'UNAUTHENTICATED');
    expect((await t.http.get(`/api/tasks/${task.id}`).set(as(await mint(alice)))).status).toBe(200);
  });

  it('an expired token answers 401; ttl_seconds is bounded', async () => {
    const token = await mint(alice, task.id, { ttl_seconds: 60 });
    await withClient(t.db.url, (c) =>
      c.query(`UPDATE task_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [
        createHash('sha256').update(token).digest('hex'),
      ]),
    );
    t.changed();
    expectError(await t.http.get(`/api/tasks/${task.id}`).set(as(token)), 401, 'UNAUTHENTICATED');
    for (const ttl of [59, 604801, 'x']) {
      expectError(
        await t.http.post(`/api/tasks/${task.id}/tokens`).set(as(alice.key)).send({ ttl_seconds: ttl }),
        400,
        'VALIDATION_FAILED',
      );
    }
  });

  it('a token holds only while its minter may read the task', async () => {
    const token = await mint(bob);
    expect((await t.http.get(`/api/tasks/${task.id}`).set(as(token))).status).toBe(200);
    expect((await t.http.delete(`/api/groups/${groupId}/members/${bob.id}`).set(as(alice.key))).status).toBe(204);
    expectError(await t.http.get(`/api/tasks/${task.id}`).set(as(token)), 401, 'UNAUTHENTICATED');
    expect(
      (await t.http.put(`/api/groups/${groupId}/members/${bob.id}`).set(as(alice.key)).send({ role: 'Reporter' }))
        .status,
    ).toBe(200);
    expect((await t.http.get(`/api/tasks/${task.id}`).set(as(token))).status).toBe(200);
    expect((await t.http.get(`/api/tasks/${task.id}`).set(as(ADMIN_KEY))).status).toBe(200);
  });
});
