// What ghosts, bots, teams and subscriptions share: CRUD, the access table of docs/api.md#access, names
// unique per scope, lists, and rejected writes that store nothing.
import { withClient } from '../support/database';
import { Caller } from '../support/skills';
import {
  createBotWithGhost,
  createGroup,
  createTeam,
  del,
  get,
  post,
  put,
  Resource,
  resourceRowCounts,
  sameBody,
} from '../support/resources';
import { ADMIN_KEY, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';

/** The ids a body may refer to, readable by whoever creates in that scope. */
interface Refs {
  ghostId: number;
  botId: number;
  teamId: number;
}

const BODIES: Record<Resource, (name: string, namespace: string, refs: Refs) => object> = {
  ghosts: (name, namespace) => ({ name, namespace }),
  bots: (name, namespace, refs) => ({ name, namespace, ghost_id: refs.ghostId }),
  teams: (name, namespace, refs) => ({ name, namespace, members: [{ bot_id: refs.botId }] }),
  subscriptions: (name, namespace, refs) => ({ name, namespace, team_id: refs.teamId, skill_refs: [] }),
};

/** The fields each resource adds to `{id, name, namespace, owner_user_id, created_at, updated_at}`. */
const OWN_FIELDS: Record<Resource, (refs: Refs) => object> = {
  ghosts: () => ({ skills: [], preload_skills: [], skill_refs: {}, preload_skill_refs: {} }),
  bots: (refs) => ({ ghost_id: refs.ghostId }),
  teams: (refs) => ({ members: [{ bot_id: refs.botId }] }),
  subscriptions: (refs) => ({ team_id: refs.teamId, skill_refs: [] }),
};

const NOT_FOUND_MESSAGE: Record<Resource, string> = {
  ghosts: 'Ghost not found',
  bots: 'Bot not found',
  teams: 'Team not found',
  subscriptions: 'Subscription not found',
};

describe.each<Resource>(['ghosts', 'bots', 'teams', 'subscriptions'])('%s: CRUD, access, names, lists', (resource) => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let owner: TestUser;
  let maint: TestUser;
  let dev: TestUser;
  let dev2: TestUser;
  let rep: TestUser;
  let outsider: TestUser;
  const refs = new Map<string, Refs>();

  /** Refs in a scope: the group's (readable by all its members), else the caller's own. */
  const refsFor = (caller: Caller, namespace: string): Refs =>
    refs.get(namespace === 'default' ? (typeof caller === 'string' ? 'admin' : caller.name) : namespace)!;
  const body = (caller: Caller, name: string, namespace = 'default') =>
    BODIES[resource](name, namespace, refsFor(caller, namespace));
  const create = async (caller: Caller, name: string, namespace = 'default') => {
    const res = await post(t, caller, resource, body(caller, name, namespace));
    expect(res.status).toBe(201);
    return res.body as { id: number; name: string; namespace: string };
  };

  beforeAll(async () => {
    t = await startTestApp();
    [alice, bob, owner, maint, dev, dev2, rep, outsider] = await Promise.all(
      ['alice', 'bob', 'owner', 'maint', 'dev', 'dev2', 'rep', 'outsider'].map((n) => createUser(t, n)),
    );
    await createGroup(t, owner, 'team-a', [
      [maint, 'Maintainer'],
      [dev, 'Developer'],
      [dev2, 'Developer'],
      [rep, 'Reporter'],
    ]);
    for (const [key, caller, namespace] of [
      ['alice', alice, 'default'],
      ['bob', bob, 'default'],
      ['admin', ADMIN_KEY, 'default'],
      ['team-a', owner, 'team-a'],
    ] as const) {
      const { ghostId, botId } = await createBotWithGhost(t, caller, `dep-${key}`, namespace);
      const team = await createTeam(t, caller, { name: `dep-${key}`, namespace, members: [{ bot_id: botId }] });
      refs.set(key, { ghostId, botId, teamId: team.id });
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates, reads, lists, replaces and soft-deletes a personal one', async () => {
    const created = await post(t, alice, resource, body(alice, 'first'));
    expect(created.status).toBe(201);
    const own = OWN_FIELDS[resource](refsFor(alice, 'default'));
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'first',
      namespace: 'default',
      owner_user_id: alice.id,
      ...own,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id: number = created.body.id;
    expect((await get(t, alice, `${resource}/${id}`)).body).toEqual(created.body);
    expect((await get(t, alice, resource)).body.items).toContainEqual(created.body);

    // PUT replaces the writable body; a body without `namespace` keeps it, the owner never changes.
    const renamed = await put(t, alice, resource, id, body(alice, 'first-renamed'));
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...created.body, name: 'first-renamed', updated_at: expect.any(String) });
    const { namespace: _omitted, ...withoutNamespace } = body(alice, 'first-again') as { namespace: string };
    expect((await put(t, alice, resource, id, withoutNamespace)).body.name).toBe('first-again');

    expect((await del(t, alice, resource, id)).status).toBe(204);
    const missing = await get(t, alice, `${resource}/999999`);
    for (const res of [
      await get(t, alice, `${resource}/${id}`),
      await put(t, alice, resource, id, body(alice, 'x')),
      await del(t, alice, resource, id),
    ]) {
      expectError(res, 404, 'NOT_FOUND');
      expect(sameBody(res)).toEqual(sameBody(missing));
    }
    expect((await get(t, alice, resource)).body.items.map((r: { id: number }) => r.id)).not.toContain(id);
    const row = await withClient(t.db.url, (c) => c.query(`SELECT deleted_at FROM ${resource} WHERE id = $1`, [id]));
    expect(row.rows).toEqual([{ deleted_at: expect.any(Date) }]);
  });

  it('a personal one is 404 to other users, the same body as a missing id; admins read and change it', async () => {
    const mine = await create(alice, 'alices');
    const missing = await get(t, bob, `${resource}/999999`);
    expect(expectError(missing, 404, 'NOT_FOUND').message).toBe(NOT_FOUND_MESSAGE[resource]);
    for (const res of [
      await get(t, bob, `${resource}/${mine.id}`),
      await put(t, bob, resource, mine.id, body(alice, 'taken-over')),
      await del(t, bob, resource, mine.id),
      await get(t, bob, `${resource}/abc`),
      await get(t, bob, `${resource}/2147483648`),
    ]) {
      expectError(res, 404, 'NOT_FOUND');
      expect(sameBody(res)).toEqual(sameBody(missing));
    }
    expect((await get(t, bob, resource)).body.items.map((r: { id: number }) => r.id)).not.toContain(mine.id);
    expect((await get(t, ADMIN_KEY, `${resource}/${mine.id}`)).status).toBe(200);
    const changed = await put(t, ADMIN_KEY, resource, mine.id, body(alice, 'changed-by-admin'));
    expect(changed.status).toBe(200);
    expect(changed.body.owner_user_id).toBe(alice.id);
    expect((await del(t, ADMIN_KEY, resource, mine.id)).status).toBe(204);
  });

  describe('in a group', () => {
    let groupId: number;
    beforeAll(async () => {
      groupId = (await create(dev, 'devs', 'team-a')).id;
    });

    it.each([
      ['a Reporter reads', (): Caller => rep, 'get', 200],
      ['a Reporter may not change', (): Caller => rep, 'put', 403],
      ['a Reporter may not delete', (): Caller => rep, 'delete', 403],
      ['another Developer may not change', (): Caller => dev2, 'put', 403],
      ['another Developer may not delete', (): Caller => dev2, 'delete', 403],
      ['its creator, a Developer, changes', (): Caller => dev, 'put', 200],
      ['a Maintainer changes', (): Caller => maint, 'put', 200],
      ['the group Owner changes', (): Caller => owner, 'put', 200],
      ['an admin changes', (): Caller => ADMIN_KEY, 'put', 200],
      ['a non-member reads nothing', (): Caller => outsider, 'get', 404],
      ['a non-member changes nothing', (): Caller => outsider, 'put', 404],
      ['a non-member deletes nothing', (): Caller => outsider, 'delete', 404],
    ] as const)('%s (%s)', async (_case, who, action, status) => {
      const caller = who();
      const res =
        action === 'get'
          ? await get(t, caller, `${resource}/${groupId}`)
          : action === 'put'
            ? await put(t, caller, resource, groupId, body(owner, 'devs', 'team-a'))
            : await del(t, caller, resource, groupId);
      expect(res.status).toBe(status);
      if (status === 404) expect(sameBody(res)).toEqual(sameBody(await get(t, caller, `${resource}/999999`)));
      if (status === 200) {
        expect(res.body).toEqual(expect.objectContaining({ id: groupId, namespace: 'team-a', owner_user_id: dev.id }));
      }
    });

    it.each([
      ['a Developer', (): Caller => dev, 'team-a', 201, undefined],
      ['an admin, without a role', (): Caller => ADMIN_KEY, 'team-a', 201, undefined],
      ['a Reporter', (): Caller => rep, 'team-a', 403, 'FORBIDDEN'],
      ['a non-member', (): Caller => outsider, 'team-a', 404, 'NOT_FOUND'],
      ['anyone, in a group that does not exist', (): Caller => alice, 'no-such-group', 404, 'NOT_FOUND'],
      ['anyone, in a reserved namespace', (): Caller => alice, 'admin', 400, 'VALIDATION_FAILED'],
      ['anyone, in a malformed namespace', (): Caller => alice, 'Team A', 400, 'VALIDATION_FAILED'],
    ] as const)('creating as %s in %s answers %s', async (who, caller, namespace, status, code) => {
      const before = await resourceRowCounts(t);
      // The body's ids are the group's: only the namespace decides.
      const sent = { ...body(owner, `made-by-${who.split(' ').join('-')}`, 'team-a'), namespace };
      const res = await post(t, caller(), resource, sent);
      expect(res.status).toBe(status);
      if (code) {
        expectError(res, status, code);
        expect(await resourceRowCounts(t)).toEqual(before);
      } else {
        expect(res.body).toEqual(expect.objectContaining({ namespace, owner_user_id: expect.any(Number) }));
      }
    });

    it('a non-member creating in the group gets the same body as for a group that does not exist', async () => {
      const hidden = await post(t, outsider, resource, body(owner, 'sneaky', 'team-a'));
      const absent = await post(t, outsider, resource, {
        ...body(owner, 'sneaky', 'team-a'),
        namespace: 'nope',
      });
      expect(sameBody(hidden)).toEqual({ ...sameBody(absent), message: 'Group team-a not found' });
    });

    it('Maintainers delete what others created; the list shows group members what they may read', async () => {
      const doomed = await create(dev2, 'doomed', 'team-a');
      const listed = await get(t, rep, `${resource}?namespace=team-a&limit=100`);
      expect(listed.body.items.map((r: { id: number }) => r.id)).toEqual(expect.arrayContaining([groupId, doomed.id]));
      expect(listed.body.items.every((r: { namespace: string }) => r.namespace === 'team-a')).toBe(true);
      expect((await get(t, outsider, `${resource}?namespace=team-a`)).body).toEqual({ items: [], next_cursor: null });
      expect((await del(t, maint, resource, doomed.id)).status).toBe(204);
      expectError(await get(t, rep, `${resource}/${doomed.id}`), 404, 'NOT_FOUND');
    });
  });

  it('a name is unique per owner in default and per group, and free again after a delete', async () => {
    const first = await create(alice, 'same');
    expectError(await post(t, alice, resource, body(alice, 'same')), 409, 'NAME_TAKEN');
    await create(bob, 'same');
    const inGroup = await create(dev, 'same', 'team-a');
    expectError(await post(t, maint, resource, body(maint, 'same', 'team-a')), 409, 'NAME_TAKEN');
    // Renaming onto a taken name is refused too, and changes nothing.
    const other = await create(alice, 'other');
    expectError(await put(t, alice, resource, other.id, body(alice, 'same')), 409, 'NAME_TAKEN');
    expect((await get(t, alice, `${resource}/${other.id}`)).body.name).toBe('other');

    expect((await del(t, alice, resource, first.id)).status).toBe(204);
    expect((await del(t, dev, resource, inGroup.id)).status).toBe(204);
    const again = await create(alice, 'same');
    expect(again.id).not.toBe(first.id);
    await create(maint, 'same', 'team-a');
  });

  it('PUT may not move it to another namespace (400); the same namespace is fine', async () => {
    const mine = await create(alice, 'stays');
    const before = (await get(t, alice, `${resource}/${mine.id}`)).body;
    for (const namespace of ['team-a', 'elsewhere']) {
      const res = await put(t, alice, resource, mine.id, { ...body(alice, 'moved'), namespace });
      expect(expectError(res, 400, 'VALIDATION_FAILED').message).toEqual(['namespace cannot change (it is default)']);
    }
    expect((await get(t, alice, `${resource}/${mine.id}`)).body).toEqual(before);
    expect((await put(t, alice, resource, mine.id, body(alice, 'stays'))).status).toBe(200);
  });

  it('lists by id in pages, filtered by namespace; limit over 100 is 400', async () => {
    const pager = await createUser(t, `pager-${resource}`);
    const deps = await createBotWithGhost(t, pager, 'pager-dep');
    const team = await createTeam(t, pager, { name: 'pager-dep', members: [{ bot_id: deps.botId }] });
    refs.set(pager.name, { ...deps, teamId: team.id });
    const mine: number[] = [];
    for (let i = 1; i <= 21; i++) mine.push((await create(pager, `p${i}`)).id);
    const all = (await get(t, pager, `${resource}?limit=100`)).body.items.map((r: { id: number }) => r.id);
    expect(all).toEqual(expect.arrayContaining(mine));
    expect(all).toEqual([...all].sort((a, b) => a - b));

    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(t, pager, `${resource}?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(5);
      seen.push(...page.body.items.map((r: { id: number }) => r.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all);

    const first = await get(t, pager, `${resource}?namespace=default`);
    expect(first.body.items).toHaveLength(20);
    expect(first.body.next_cursor).toBe(String(first.body.items[19].id));
    expect((await get(t, pager, `${resource}?namespace=team-a`)).body).toEqual({ items: [], next_cursor: null });
    const group = await get(t, ADMIN_KEY, `${resource}?namespace=team-a&limit=100`);
    expect(group.body.items.length).toBeGreaterThan(0);
    expect(group.body.items.every((r: { namespace: string }) => r.namespace === 'team-a')).toBe(true);
    for (const query of ['limit=101', 'limit=0', 'limit=x', 'cursor=abc', 'cursor=-1', 'surprise=1']) {
      expectError(await get(t, pager, `${resource}?${query}`), 400, 'VALIDATION_FAILED');
    }
  });

  it.each([
    ['a name of 129 characters', { name: 'n'.repeat(129) }],
    ['an empty name', { name: '' }],
    ['no name', { name: undefined }],
    ['a name that is not a string', { name: 42 }],
    ['a namespace that is not a string', { namespace: 7 }],
    ['an unknown field', { color: 'red' }],
  ])('%s is 400 VALIDATION_FAILED and stores nothing', async (_case, change) => {
    const before = await resourceRowCounts(t);
    const res = await post(t, alice, resource, { ...body(alice, 'bad'), ...change });
    const error = expectError(res, 400, 'VALIDATION_FAILED');
    expect(error.message).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(await resourceRowCounts(t)).toEqual(before);
  });

  it('a body that does not parse is 400 BAD_REQUEST', async () => {
    const res = await t.http
      .post(`/api/${resource}`)
      .set({ authorization: `Bearer ${alice.key}`, 'content-type': 'application/json' })
      .send('{"name":');
    expectError(res, 400, 'BAD_REQUEST');
  });
});
