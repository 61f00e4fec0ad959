// Subscriptions: a team the caller reads, and explicit skill selections checked as the owner.
import { publishSkill } from '../support/skills';
import {
  createBotWithGhost,
  createGroup,
  createSubscription,
  createTeam,
  del,
  get,
  post,
  put,
  resourceRowCounts,
  sameBody,
} from '../support/resources';
import { ADMIN_KEY, as, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';

describe('subscriptions: team and skill selections', () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let owner: TestUser;
  let maint: TestUser;
  let dev: TestUser;
  let stranger: TestUser;
  let alicesTeam: number;
  let groupTeam: number;

  beforeAll(async () => {
    t = await startTestApp();
    [alice, bob, owner, maint, dev, stranger] = await Promise.all(
      ['alice', 'bob', 'owner', 'maint', 'dev', 'stranger'].map((n) => createUser(t, n)),
    );
    await createGroup(t, owner, 'team-a', [
      [maint, 'Maintainer'],
      [dev, 'Developer'],
      [alice, 'Reporter'],
    ]);
    await createGroup(t, stranger, 'team-b', []);
    const { botId } = await createBotWithGhost(t, alice, 'alices');
    alicesTeam = (await createTeam(t, alice, { name: 'alices', members: [{ bot_id: botId }] })).id;
    const group = await createBotWithGhost(t, owner, 'group', 'team-a');
    groupTeam = (await createTeam(t, owner, { name: 'group', namespace: 'team-a', members: [{ bot_id: group.botId }] }))
      .id;

    await publishSkill(t, alice, 'notes');
    await publishSkill(t, dev, 'lint', { namespace: 'team-a' });
    await publishSkill(t, ADMIN_KEY, 'fmt', { public: 'true' });
    await publishSkill(t, bob, 'bobs');
    await publishSkill(t, stranger, 'secret', { namespace: 'team-b' });
    await publishSkill(t, dev, 'devs-own');
    const deleted = await publishSkill(t, alice, 'deleted');
    await t.http.delete(`/api/skills/${deleted.id}?force=true`).set(as(alice.key));
  });
  afterAll(async () => {
    await t.close();
  });

  it('stores the selections as given: personal, group and public scopes, an optional pinned version', async () => {
    const skillRefs = [
      { name: 'notes', namespace: 'default', is_public: false },
      { name: 'lint', namespace: 'team-a', is_public: false, version: 1 },
      { name: 'fmt', namespace: 'default', is_public: true },
    ];
    const res = await post(t, alice, 'subscriptions', { name: 'nightly', team_id: groupTeam, skill_refs: skillRefs });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'nightly',
      namespace: 'default',
      owner_user_id: alice.id,
      team_id: groupTeam,
      skill_refs: skillRefs,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await get(t, alice, `subscriptions/${res.body.id}`)).body).toEqual(res.body);
    const cleared = await put(t, alice, 'subscriptions', res.body.id, { name: 'nightly', team_id: alicesTeam });
    expect(cleared.body).toEqual(expect.objectContaining({ team_id: alicesTeam, skill_refs: [] }));
  });

  it('lists every selection that does not resolve for the owner, and stores nothing', async () => {
    const before = await resourceRowCounts(t);
    const res = await post(t, alice, 'subscriptions', {
      name: 'broken',
      team_id: alicesTeam,
      skill_refs: [
        { name: 'notes', namespace: 'default', is_public: false },
        { name: 'unknown', namespace: 'default', is_public: false },
        { name: 'bobs', namespace: 'default', is_public: false },
        { name: 'secret', namespace: 'team-b', is_public: false },
        { name: 'lint', namespace: 'team-a', is_public: false, version: 9 },
        { name: 'fmt', namespace: 'team-a', is_public: false },
        { name: 'deleted', namespace: 'default', is_public: false },
      ],
    });
    expect(expectError(res, 400, 'SKILL_SELECTION_INVALID').details).toEqual({
      invalid: [
        { name: 'bobs', reason: 'NOT_FOUND' },
        { name: 'deleted', reason: 'NOT_FOUND' },
        { name: 'fmt', reason: 'NOT_FOUND' },
        { name: 'lint', reason: 'NOT_FOUND' },
        { name: 'secret', reason: 'NOT_FOUND' },
        { name: 'unknown', reason: 'NOT_FOUND' },
      ],
    });
    expect(await resourceRowCounts(t)).toEqual(before);
  });

  it('a foreign group selection is NOT_FOUND exactly like a missing skill', async () => {
    const foreign = await post(t, alice, 'subscriptions', {
      name: 'x',
      team_id: alicesTeam,
      skill_refs: [{ name: 'secret', namespace: 'team-b', is_public: false }],
    });
    const absent = await post(t, alice, 'subscriptions', {
      name: 'x',
      team_id: alicesTeam,
      skill_refs: [{ name: 'secret', namespace: 'team-a', is_public: false }],
    });
    expect(sameBody(foreign)).toEqual(sameBody(absent));
  });

  it('selections act as the owner and must be readable by whoever saves', async () => {
    const sub = await createSubscription(t, dev, {
      name: 'devs',
      namespace: 'team-a',
      team_id: groupTeam,
      skill_refs: [{ name: 'devs-own', namespace: 'default', is_public: false }],
    });
    const body = { name: 'devs', team_id: groupTeam, skill_refs: sub.skill_refs };
    // `default` means the owner's (dev's) personal skill, which the Maintainer cannot read.
    expect(
      expectError(await put(t, maint, 'subscriptions', sub.id, body), 400, 'SKILL_SELECTION_INVALID').details,
    ).toEqual({
      invalid: [{ name: 'devs-own', reason: 'NOT_FOUND' }],
    });
    const saved = await put(t, maint, 'subscriptions', sub.id, {
      ...body,
      skill_refs: [{ name: 'lint', namespace: 'team-a', is_public: false }],
    });
    expect(saved.status).toBe(200);
    expect(saved.body.owner_user_id).toBe(dev.id);
    expect((await put(t, ADMIN_KEY, 'subscriptions', sub.id, body)).status).toBe(200);
  });

  it('a team_id that is missing, deleted or unreadable is 404 like GET /teams/{id}, and stores nothing', async () => {
    const { botId } = await createBotWithGhost(t, bob, 'bobs');
    const gone = await createTeam(t, bob, { name: 'gone', members: [{ bot_id: botId }] });
    expect((await del(t, bob, 'teams', gone.id)).status).toBe(204);
    const missing = await get(t, bob, 'teams/999999');
    const before = await resourceRowCounts(t);
    for (const teamId of [999999, gone.id, alicesTeam, groupTeam]) {
      const res = await post(t, bob, 'subscriptions', { name: 'nope', team_id: teamId, skill_refs: [] });
      expectError(res, 404, 'NOT_FOUND');
      expect(sameBody(res)).toEqual(sameBody(missing));
    }
    expect(await resourceRowCounts(t)).toEqual(before);
  });

  it('its team may be deleted; the subscription stays readable but must move to a live team to be saved', async () => {
    const { botId } = await createBotWithGhost(t, alice, 'short-lived');
    const team = await createTeam(t, alice, { name: 'short-lived', members: [{ bot_id: botId }] });
    const sub = await createSubscription(t, alice, { name: 'orphan', team_id: team.id });
    expect((await del(t, alice, 'teams', team.id)).status).toBe(204);
    expect((await get(t, alice, `subscriptions/${sub.id}`)).body.team_id).toBe(team.id);
    expectError(await put(t, alice, 'subscriptions', sub.id, { name: 'orphan', team_id: team.id }), 404, 'NOT_FOUND');
    expect((await put(t, alice, 'subscriptions', sub.id, { name: 'orphan', team_id: alicesTeam })).status).toBe(200);
    expect((await del(t, alice, 'subscriptions', sub.id)).status).toBe(204);
  });

  const selections = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ name: `s${i}`, namespace: 'default', is_public: false }));
  const one = (change: object) => [{ name: 'notes', namespace: 'default', is_public: false, ...change }];
  it.each([
    [
      'a public selection outside default',
      one({ name: 'fmt', namespace: 'team-a', is_public: true }),
      ['skill_refs.0.is_public: is_public true needs namespace default'],
    ],
    ['101 selections', selections(101), ['skill_refs must contain no more than 100 elements']],
    ['a repeated name', [...one({}), ...one({ namespace: 'team-a' })], ['skill_refs must not name a skill twice']],
    [
      'a name of 65 characters',
      one({ name: 'n'.repeat(65) }),
      ['skill_refs.0.name: name must be shorter than or equal to 64 characters'],
    ],
    ['an empty name', one({ name: '' }), undefined],
    [
      'no is_public',
      [{ name: 'notes', namespace: 'default' }],
      ['skill_refs.0.is_public: is_public must be a boolean value'],
    ],
    ['no namespace', [{ name: 'notes', is_public: false }], undefined],
    ['a version of 0', one({ version: 0 }), ['skill_refs.0.version: version must not be less than 1']],
    ['a fractional version', one({ version: 1.5 }), ['skill_refs.0.version: version must be an integer number']],
    [
      'an unknown field',
      one({ content_hash: 'sha256:x' }),
      ['skill_refs.0.content_hash: property content_hash should not exist'],
    ],
    ['a selection that is a string', ['notes'], undefined],
    ['skill_refs that is not a list', { name: 'notes' }, undefined],
  ])('%s is 400 VALIDATION_FAILED and stores nothing', async (_case, skillRefs, messages) => {
    const before = await resourceRowCounts(t);
    const res = await post(t, alice, 'subscriptions', { name: 'bad', team_id: alicesTeam, skill_refs: skillRefs });
    const body = expectError(res, 400, 'VALIDATION_FAILED');
    if (messages) expect(body.message).toEqual(messages);
    expect(await resourceRowCounts(t)).toEqual(before);
  });

  it('a team_id that is not a positive 32-bit integer is 400', async () => {
    for (const teamId of [0, -1, '1', 2 ** 31, undefined]) {
      expectError(await post(t, alice, 'subscriptions', { name: 'bad', team_id: teamId }), 400, 'VALIDATION_FAILED');
    }
  });
});
