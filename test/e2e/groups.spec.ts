import { withClient } from '../support/database';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';

describe('groups: nesting, inherited roles, Owner rules', () => {
  let t: TestApp;
  let owner: TestUser;
  let maint: TestUser;
  let dev: TestUser;
  let rep: TestUser;
  let outsider: TestUser;

  const post = (user: TestUser | string, name: string) =>
    t.http
      .post('/api/groups')
      .set(as(typeof user === 'string' ? user : user.key))
      .send({ name });
  const put = (user: TestUser, groupId: number, userId: number, role: string) =>
    t.http.put(`/api/groups/${groupId}/members/${userId}`).set(as(user.key)).send({ role });
  const del = (user: TestUser, groupId: number, userId: number) =>
    t.http.delete(`/api/groups/${groupId}/members/${userId}`).set(as(user.key));
  const countGroups = () =>
    withClient(t.db.url, async (c) => Number((await c.query('SELECT count(*) FROM groups')).rows[0].count));

  let team: number;
  beforeAll(async () => {
    t = await startTestApp();
    [owner, maint, dev, rep, outsider] = await Promise.all(
      ['owner', 'maint', 'dev', 'rep', 'outsider'].map((n) => createUser(t, n)),
    );
    const created = await post(owner, 'team-a');
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), name: 'team-a', parent_id: null, my_role: 'Owner' });
    team = created.body.id;
    for (const [user, role] of [
      [maint, 'Maintainer'],
      [dev, 'Developer'],
      [rep, 'Reporter'],
    ] as const) {
      expect((await put(owner, team, user.id, role)).body).toEqual({ group_id: team, user_id: user.id, role });
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    ['a reserved segment', 'default', ['name segment "default" is reserved']],
    ['a reserved segment deeper', 'team-x/api', ['name segment "api" is reserved']],
    ['too deep', 'a/b/c/d', ['name must have at most 3 segments']],
    ['bad characters', 'Team_A', ['name segment "Team_A" must be 1-64 characters of a-z, 0-9 and -']],
    ['an empty segment', 'a//b', ['name segment "" must be 1-64 characters of a-z, 0-9 and -']],
    [
      'every problem at once',
      'admin/X/b/c',
      [
        'name must have at most 3 segments',
        'name segment "admin" is reserved',
        'name segment "X" must be 1-64 characters of a-z, 0-9 and -',
      ],
    ],
  ])('%s is 400 VALIDATION_FAILED and stores nothing', async (_case, name, messages) => {
    const before = await countGroups();
    expect(expectError(await post(owner, name), 400, 'VALIDATION_FAILED').message).toEqual(messages);
    expect(await countGroups()).toBe(before);
  });

  it('a duplicate name is 409 GROUP_EXISTS', async () => {
    expectError(await post(outsider, 'team-a'), 409, 'GROUP_EXISTS');
  });

  it('a child group needs Maintainer+ on its parent; a non-member is told the parent does not exist', async () => {
    expectError(await post(dev, 'team-a/dev-sub'), 403, 'FORBIDDEN');
    expectError(await post(rep, 'team-a/rep-sub'), 403, 'FORBIDDEN');
    const hidden = await post(outsider, 'team-a/mine');
    const missing = await post(outsider, 'no-such-group/mine');
    expectError(hidden, 404, 'NOT_FOUND');
    expect({ ...hidden.body, requestId: '' }).toEqual({ ...missing.body, requestId: '' });
    const child = await post(maint, 'team-a/backend');
    expect(child.status).toBe(201);
    expect(child.body).toEqual(expect.objectContaining({ name: 'team-a/backend', parent_id: team, my_role: 'Owner' }));
    expect((await post(maint, 'team-a/backend/db')).status).toBe(201);
  });

  it('roles in a parent hold in its children: listed with the effective role, readable members', async () => {
    const listed = await t.http.get('/api/groups').set(as(rep.key));
    expect(listed.body.items.map((g: { name: string; my_role: string }) => [g.name, g.my_role])).toEqual([
      ['team-a', 'Reporter'],
      ['team-a/backend', 'Reporter'],
      ['team-a/backend/db', 'Reporter'],
    ]);
    const db = listed.body.items[2];
    const members = await t.http.get(`/api/groups/${db.id}/members`).set(as(rep.key));
    expect(members.body).toEqual({ items: [{ user_id: maint.id, user_name: 'maint', role: 'Owner' }] });
    // The owner of the parent is Owner in the grandchild without a direct membership.
    expect((await t.http.get(`/api/groups/${db.id}`).set(as(owner.key))).body.my_role).toBe('Owner');
    // The highest role wins: rep made Maintainer of the child is Maintainer there, Reporter above.
    const backend = listed.body.items[1];
    expect((await put(maint, backend.id, rep.id, 'Maintainer')).status).toBe(200);
    expect((await t.http.get(`/api/groups/${db.id}`).set(as(rep.key))).body.my_role).toBe('Maintainer');
    expect((await t.http.get(`/api/groups/${team}`).set(as(rep.key))).body.my_role).toBe('Reporter');
  });

  it('a non-member gets 404 for every group call, the same body as a missing group', async () => {
    const missing = await t.http.get('/api/groups/999999/members').set(as(outsider.key));
    for (const res of [
      await t.http.get(`/api/groups/${team}/members`).set(as(outsider.key)),
      await t.http.get(`/api/groups/${team}`).set(as(outsider.key)),
      await put(outsider, team, outsider.id, 'Reporter'),
      await del(outsider, team, rep.id),
    ]) {
      expectError(res, 404, 'NOT_FOUND');
      expect({ ...res.body, requestId: '' }).toEqual({ ...missing.body, requestId: '' });
    }
    expect((await t.http.get('/api/groups').set(as(outsider.key))).body).toEqual({ items: [] });
  });

  it('Reporters and Developers may read members but not change them', async () => {
    expect((await t.http.get(`/api/groups/${team}/members`).set(as(dev.key))).status).toBe(200);
    expectError(await put(dev, team, outsider.id, 'Reporter'), 403, 'FORBIDDEN');
    expectError(await put(rep, team, outsider.id, 'Reporter'), 403, 'FORBIDDEN');
    expectError(await del(dev, team, rep.id), 403, 'FORBIDDEN');
  });

  it('Maintainers manage members below Owner; only Owners grant, change or remove Owner', async () => {
    expect((await put(maint, team, outsider.id, 'Developer')).status).toBe(200);
    expect((await put(maint, team, outsider.id, 'Maintainer')).status).toBe(200);
    expect((await del(maint, team, outsider.id)).status).toBe(204);
    expectError(await put(maint, team, outsider.id, 'Owner'), 403, 'FORBIDDEN');
    expectError(await put(maint, team, owner.id, 'Reporter'), 403, 'FORBIDDEN');
    expectError(await del(maint, team, owner.id), 403, 'FORBIDDEN');
    expectError(await put(owner, team, 999999, 'Reporter'), 404, 'NOT_FOUND');
    expectError(await del(owner, team, outsider.id), 404, 'NOT_FOUND');
  });

  it('the last direct Owner can be neither demoted nor removed (409 LAST_OWNER); a second Owner unlocks it', async () => {
    expectError(await put(owner, team, owner.id, 'Maintainer'), 409, 'LAST_OWNER');
    expectError(await del(owner, team, owner.id), 409, 'LAST_OWNER');
    expect((await put(owner, team, maint.id, 'Owner')).status).toBe(200);
    expect((await put(owner, team, owner.id, 'Maintainer')).status).toBe(200);
    // Now maint is the last Owner.
    expectError(await del(maint, team, maint.id), 409, 'LAST_OWNER');
    const members = await t.http.get(`/api/groups/${team}/members`).set(as(maint.key));
    expect(members.body.items.filter((m: { role: string }) => m.role === 'Owner')).toEqual([
      { user_id: maint.id, user_name: 'maint', role: 'Owner' },
    ]);
  });

  it('members may leave; admins manage any group', async () => {
    expect((await del(dev, team, dev.id)).status).toBe(204);
    expectError(await t.http.get(`/api/groups/${team}/members`).set(as(dev.key)), 404, 'NOT_FOUND');
    const admin = { id: 0, key: ADMIN_KEY, name: 'admin' };
    expect((await put(admin, team, dev.id, 'Owner')).status).toBe(200);
    expect((await t.http.get('/api/groups').set(as(ADMIN_KEY))).body.items.length).toBeGreaterThanOrEqual(3);
  });

  it('concurrent demotions of the two last Owners leave one Owner', async () => {
    const a = await createUser(t, 'race-a');
    const b = await createUser(t, 'race-b');
    const g = (await post(a, 'race')).body.id;
    await put(a, g, b.id, 'Owner');
    const [ra, rb] = await Promise.all([put(a, g, a.id, 'Reporter'), put(b, g, b.id, 'Reporter')]);
    expect([ra.status, rb.status].sort()).toEqual([200, 409]);
    const owners = await withClient(t.db.url, (c) =>
      c.query(`SELECT count(*) FROM group_members WHERE group_id = $1 AND role = 'Owner'`, [g]),
    );
    expect(Number(owners.rows[0].count)).toBe(1);
  });
});
