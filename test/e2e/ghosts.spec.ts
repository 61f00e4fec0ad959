// Ghost skills: names stored as refs by lookup, client refs checked and pinned, every bad name
// reported at once, refs shown as they read now, and the delete protection.
import { publishSkill, publishVersion } from '../support/skills';
import { createBot, createGhost, createGroup, del, get, post, put, resourceRowCounts } from '../support/resources';
import { ADMIN_KEY, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';
import { skillZip } from '../support/zip-builder';

interface Published {
  id: number;
  latest_version: { version: number; content_hash: string };
}

/** The SkillRef a ghost shows for `skill` at its latest version. */
const latestRef = (skill: Published, namespace: string, isPublic = false) => ({
  skill_id: skill.id,
  namespace,
  is_public: isPublic,
  version: skill.latest_version.version,
  content_hash: skill.latest_version.content_hash,
  pinned: false,
  tag: null,
  status: 'active',
});

/** The writable part of a ghost as read: what a client sends back in a read-modify-write. */
const writable = (ghost: Record<string, unknown>) => ({
  name: ghost.name,
  namespace: ghost.namespace,
  skills: ghost.skills,
  preload_skills: ghost.preload_skills,
  skill_refs: ghost.skill_refs,
  preload_skill_refs: ghost.preload_skill_refs,
});

describe('ghosts: skills, refs and the delete protection', () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let owner: TestUser;
  let maint: TestUser;
  let dev: TestUser;
  let rep: TestUser;
  let stranger: TestUser;
  const skills: Record<string, Published> = {};

  beforeAll(async () => {
    t = await startTestApp();
    [alice, bob, owner, maint, dev, rep, stranger] = await Promise.all(
      ['alice', 'bob', 'owner', 'maint', 'dev', 'rep', 'stranger'].map((n) => createUser(t, n)),
    );
    await createGroup(t, owner, 'team-a', [
      [maint, 'Maintainer'],
      [dev, 'Developer'],
      [alice, 'Developer'],
      [rep, 'Reporter'],
    ]);
    await createGroup(t, stranger, 'team-b', []);
    skills.alicesNotes = await publishSkill(t, alice, 'notes');
    skills.groupNotes = await publishSkill(t, dev, 'notes', { namespace: 'team-a' });
    skills.publicNotes = await publishSkill(t, ADMIN_KEY, 'notes', { public: 'true' });
    skills.maintsNotes = await publishSkill(t, maint, 'notes');
    skills.fmt = await publishSkill(t, ADMIN_KEY, 'fmt', { public: 'true' });
    skills.bobs = await publishSkill(t, bob, 'bobs');
    skills.secret = await publishSkill(t, stranger, 'secret', { namespace: 'team-b' });
    skills.devTool = await publishSkill(t, dev, 'dev-tool');
    skills.ctor = await publishSkill(t, alice, 'constructor');
    skills.values = await publishSkill(t, alice, 'values');
    skills.toStr = await publishSkill(t, alice, 'to-string');
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    ["the owner's personal skill first", () => alice, 'default', 'alicesNotes', 'default', false],
    ['a personal skill shadows the group one, in the group', () => alice, 'team-a', 'alicesNotes', 'default', false],
    ['the group skill when the owner has no personal one', () => dev, 'team-a', 'groupNotes', 'team-a', false],
    ['the public skill in default, groups skipped', () => dev, 'default', 'publicNotes', 'default', true],
    ['the public skill for a user outside the group', () => bob, 'default', 'publicNotes', 'default', true],
  ] as const)(
    'a name without a ref is looked up as the owner: %s',
    async (_case, who, namespace, key, ns, isPublic) => {
      const res = await post(t, who(), 'ghosts', { name: `lookup-${_case.length}`, namespace, skills: ['notes'] });
      expect(res.status).toBe(201);
      expect(res.body.skill_refs).toEqual({ notes: latestRef(skills[key], ns, isPublic) });
      expect(res.body.preload_skill_refs).toEqual({});
      // The stored ref is the skill id alone: it follows the latest version.
      expect((await get(t, who(), `ghosts/${res.body.id}`)).body).toEqual(res.body);
    },
  );

  it('lists every bad name at once with its reason, and stores nothing', async () => {
    const before = await resourceRowCounts(t);
    const res = await post(t, alice, 'ghosts', {
      name: 'broken',
      skills: ['nope', 'bobs', 'secret', 'notes', 'fmt'],
      preload_skills: ['fmt', 'extra'],
      skill_refs: {
        bobs: { skill_id: skills.bobs.id },
        secret: { skill_id: skills.secret.id },
        notes: { skill_id: skills.publicNotes.id, namespace: 'team-a' },
        'not-listed': { skill_id: skills.fmt.id },
      },
      preload_skill_refs: { fmt: { skill_id: skills.fmt.id, is_public: false } },
    });
    const body = expectError(res, 400, 'SKILL_SELECTION_INVALID');
    expect(body.details).toEqual({
      invalid: [
        { name: 'bobs', reason: 'NOT_FOUND' },
        { name: 'extra', reason: 'NOT_IN_SKILLS' },
        { name: 'fmt', reason: 'SCOPE_MISMATCH' },
        { name: 'nope', reason: 'NOT_FOUND' },
        { name: 'not-listed', reason: 'NOT_IN_SKILLS' },
        { name: 'notes', reason: 'SCOPE_MISMATCH' },
        { name: 'secret', reason: 'NOT_FOUND' },
      ],
    });
    expect(await resourceRowCounts(t)).toEqual(before);
  });

  it('an unknown skill id and an unreadable one answer the same', async () => {
    const unknown = await post(t, alice, 'ghosts', {
      name: 'u',
      skills: ['bobs'],
      skill_refs: { bobs: { skill_id: 999999 } },
    });
    const hidden = await post(t, alice, 'ghosts', {
      name: 'u',
      skills: ['bobs'],
      skill_refs: { bobs: { skill_id: skills.bobs.id } },
    });
    expect(expectError(hidden, 400, 'SKILL_SELECTION_INVALID').details).toEqual(
      expectError(unknown, 400, 'SKILL_SELECTION_INVALID').details,
    );
  });

  it('pinned refs stay pinned; a GET→PUT round trip keeps the others following new versions', async () => {
    const notes = await publishSkill(t, bob, 'bob-notes');
    const fmt = await publishSkill(t, ADMIN_KEY, 'pin-fmt', { public: 'true' });
    const created = await post(t, bob, 'ghosts', {
      name: 'pinner',
      skills: ['pin-fmt', 'bob-notes'],
      preload_skills: ['pin-fmt'],
      skill_refs: { 'pin-fmt': { skill_id: fmt.id, version: 1, content_hash: 'sha256:ignored' } },
      preload_skill_refs: { 'pin-fmt': { skill_id: fmt.id, namespace: 'default', is_public: true } },
    });
    expect(created.status).toBe(201);
    const v1 = fmt.latest_version.content_hash;
    expect(created.body.skill_refs).toEqual({
      'pin-fmt': { ...latestRef(fmt, 'default', true), pinned: true },
      'bob-notes': latestRef(notes, 'default'),
    });
    expect(created.body.preload_skill_refs).toEqual({ 'pin-fmt': latestRef(fmt, 'default', true) });

    // Read, send back unchanged: unpinned refs carry `pinned: false` with their version, so stay unpinned.
    const read = (await get(t, bob, `ghosts/${created.body.id}`)).body;
    const again = await put(t, bob, 'ghosts', created.body.id, writable(read));
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...read, updated_at: expect.any(String) });

    const notes2 = await publishVersion(t, bob, notes.id, skillZip('bob-notes', { description: 'two' }));
    const fmt2 = await publishVersion(t, ADMIN_KEY, fmt.id, skillZip('pin-fmt', { description: 'two' }));
    const after = (await get(t, bob, `ghosts/${created.body.id}`)).body;
    expect(after.skill_refs['bob-notes']).toEqual(latestRef(notes2.body, 'default'));
    expect(after.skill_refs['pin-fmt']).toEqual({ ...latestRef(fmt, 'default', true), content_hash: v1, pinned: true });
    expect(after.preload_skill_refs['pin-fmt']).toEqual(latestRef(fmt2.body, 'default', true));
    expect(after.preload_skill_refs['pin-fmt'].version).toBe(2);

    // `pinned: false` with a version unpins.
    const unpinned = await put(t, bob, 'ghosts', created.body.id, {
      ...writable(after),
      skill_refs: { ...after.skill_refs, 'pin-fmt': { skill_id: fmt.id, version: 1, pinned: false } },
    });
    expect(unpinned.body.skill_refs['pin-fmt']).toEqual(latestRef(fmt2.body, 'default', true));
    // A pinned version that does not exist is NOT_FOUND.
    const missing = await put(t, bob, 'ghosts', created.body.id, {
      ...writable(after),
      skill_refs: { 'pin-fmt': { skill_id: fmt.id, version: 9 } },
    });
    expect(expectError(missing, 400, 'SKILL_SELECTION_INVALID').details).toEqual({
      invalid: [{ name: 'pin-fmt', reason: 'NOT_FOUND' }],
    });
  });

  it('PUT replaces the lists and refs whole', async () => {
    const ghost = await createGhost(t, alice, {
      name: 'shrinking',
      skills: ['notes', 'fmt'],
      preload_skills: ['fmt'],
      preload_skill_refs: { fmt: { skill_id: skills.fmt.id } },
    });
    const res = await put(t, alice, 'ghosts', ghost.id, { name: 'shrinking', skills: ['fmt'] });
    expect(res.body).toEqual(
      expect.objectContaining({
        skills: ['fmt'],
        preload_skills: [],
        skill_refs: { fmt: latestRef(skills.fmt, 'default', true) },
        preload_skill_refs: {},
      }),
    );
  });

  it('refs act as the owner and must be readable by the saver too', async () => {
    const ghost = await createGhost(t, dev, { name: 'devs-ghost', namespace: 'team-a', skills: ['dev-tool'] });
    expect(ghost.skill_refs).toEqual({ 'dev-tool': latestRef(skills.devTool, 'default') });
    // Group members read the ghost, refs included.
    expect((await get(t, rep, `ghosts/${ghost.id}`)).body.skill_refs).toEqual(ghost.skill_refs);

    // A Maintainer may change it, but not keep a ref they cannot read themselves.
    const roundTrip = await put(t, maint, 'ghosts', ghost.id, writable(ghost));
    expect(expectError(roundTrip, 400, 'SKILL_SELECTION_INVALID').details).toEqual({
      invalid: [{ name: 'dev-tool', reason: 'NOT_FOUND' }],
    });
    // Names are looked up as the owner (dev has no personal `notes`), not as the Maintainer.
    const saved = await put(t, maint, 'ghosts', ghost.id, { name: 'devs-ghost', skills: ['notes'] });
    expect(saved.status).toBe(200);
    expect(saved.body.owner_user_id).toBe(dev.id);
    expect(saved.body.skill_refs).toEqual({ notes: latestRef(skills.groupNotes, 'team-a') });
  });

  it('a ref to a skill deleted later still shows its last state; saving it again is refused', async () => {
    const doomed = await publishSkill(t, alice, 'doomed');
    const ghost = await createGhost(t, alice, { name: 'keeps-doomed', skills: ['doomed'] });
    expect(
      (await t.http.delete(`/api/skills/${doomed.id}?force=true`).set({ authorization: `Bearer ${alice.key}` })).status,
    ).toBe(204);
    const read = (await get(t, alice, `ghosts/${ghost.id}`)).body;
    expect(read.skill_refs).toEqual({ doomed: latestRef(doomed, 'default') });
    expect(
      expectError(await put(t, alice, 'ghosts', ghost.id, writable(read)), 400, 'SKILL_SELECTION_INVALID').details,
    ).toEqual({
      invalid: [{ name: 'doomed', reason: 'NOT_FOUND' }],
    });
  });

  it('skill names that are Object or Map members are plain names, in lists and as ref keys', async () => {
    const ghost = await createGhost(t, alice, {
      name: 'object-names',
      skills: ['constructor', 'values', 'to-string'],
      preload_skills: ['values'],
      skill_refs: { values: { skill_id: skills.values.id, version: 1 } },
      preload_skill_refs: { values: { skill_id: skills.values.id } },
    });
    expect(ghost.skill_refs).toEqual({
      constructor: latestRef(skills.ctor, 'default'),
      values: { ...latestRef(skills.values, 'default'), pinned: true },
      'to-string': latestRef(skills.toStr, 'default'),
    });
    expect(ghost.preload_skill_refs).toEqual({ values: latestRef(skills.values, 'default') });
    const res = await post(t, alice, 'ghosts', {
      name: 'object-names-2',
      skills: ['values'],
      skill_refs: { toString: { skill_id: skills.values.id }, keys: { skill_id: skills.values.id } },
    });
    expect(expectError(res, 400, 'SKILL_SELECTION_INVALID').details).toEqual({
      invalid: [
        { name: 'keys', reason: 'NOT_IN_SKILLS' },
        { name: 'toString', reason: 'NOT_IN_SKILLS' },
      ],
    });
  });

  it('a ghost used by active bots answers 409 IN_USE listing them, until they are gone', async () => {
    const ghost = await createGhost(t, dev, { name: 'shared', namespace: 'team-a' });
    const first = await createBot(t, dev, { name: 'b1', namespace: 'team-a', ghost_id: ghost.id });
    const second = await createBot(t, maint, { name: 'b2', ghost_id: ghost.id });
    const blocked = await del(t, dev, 'ghosts', ghost.id);
    expect(expectError(blocked, 409, 'IN_USE').details).toEqual({ bots: [first.id, second.id] });
    expect((await del(t, dev, 'bots', first.id)).status).toBe(204);
    expect(expectError(await del(t, maint, 'ghosts', ghost.id), 409, 'IN_USE').details).toEqual({ bots: [second.id] });
    expect((await get(t, rep, `ghosts/${ghost.id}`)).status).toBe(200);
    expect((await del(t, maint, 'bots', second.id)).status).toBe(204);
    expect((await del(t, dev, 'ghosts', ghost.id)).status).toBe(204);
    expectError(await get(t, dev, `ghosts/${ghost.id}`), 404, 'NOT_FOUND');
  });

  const names = (n: number, prefix = 's') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const refs = (n: number) => Object.fromEntries(names(n).map((name) => [name, { skill_id: 1 }]));
  it.each([
    ['101 skills', { skills: names(101) }, ['skills must contain no more than 100 elements']],
    ['101 preload skills', { preload_skills: names(101) }, ['preload_skills must contain no more than 100 elements']],
    [
      'a skill name of 65 characters',
      { skills: ['s'.repeat(65)] },
      ['each value in skills must be longer than or equal to 1 and shorter than or equal to 64 characters'],
    ],
    [
      'an empty skill name',
      { skills: [''] },
      ['each value in skills must be longer than or equal to 1 and shorter than or equal to 64 characters'],
    ],
    ['a repeated skill name', { skills: ['notes', 'notes'] }, ['skills must not repeat a name']],
    ['a skill name that is not a string', { skills: [7] }, undefined],
    ['skills that is not a list', { skills: 'notes' }, undefined],
    [
      'a ref map that is a list',
      { skill_refs: [{ skill_id: 1 }] },
      ['skill_refs must be an object of refs keyed by skill name'],
    ],
    [
      'a ref map that is a string',
      { preload_skill_refs: 'x' },
      ['preload_skill_refs must be an object of refs keyed by skill name'],
    ],
    ['a ref map of 101 keys', { skill_refs: refs(101) }, ['skill_refs must have at most 100 keys']],
    [
      'a ref key of 65 characters',
      { skill_refs: { ['k'.repeat(65)]: { skill_id: 1 } } },
      ['skill_refs keys must be skill names of 1-64 characters'],
    ],
    ['a ref that is not an object', { skill_refs: { notes: null } }, ['skill_refs.notes must be an object']],
    [
      'an unknown field in a ref',
      { skill_refs: { notes: { skill_id: 1, colour: 'red' } } },
      ['skill_refs.notes.colour: property colour should not exist'],
    ],
    ['a ref without skill_id', { skill_refs: { notes: {} } }, undefined],
    [
      'a skill_id of 0',
      { skill_refs: { notes: { skill_id: 0 } } },
      ['skill_refs.notes.skill_id: skill_id must not be less than 1'],
    ],
    ['a skill_id as a string', { skill_refs: { notes: { skill_id: '5' } } }, undefined],
    [
      'a skill_id past 32 bits',
      { skill_refs: { notes: { skill_id: 2 ** 31 } } },
      ['skill_refs.notes.skill_id: skill_id must not be greater than 2147483647'],
    ],
    [
      'a version of 0',
      { preload_skill_refs: { notes: { skill_id: 1, version: 0 } } },
      ['preload_skill_refs.notes.version: version must not be less than 1'],
    ],
    [
      'pinned that is not a boolean',
      { skill_refs: { notes: { skill_id: 1, pinned: 'yes' } } },
      ['skill_refs.notes.pinned: pinned must be a boolean value'],
    ],
    [
      'is_public that is not a boolean',
      { skill_refs: { notes: { skill_id: 1, is_public: 1 } } },
      ['skill_refs.notes.is_public: is_public must be a boolean value'],
    ],
  ])('%s is 400 VALIDATION_FAILED and stores nothing', async (_case, change, messages) => {
    const before = await resourceRowCounts(t);
    const res = await post(t, alice, 'ghosts', { name: 'limits', skills: ['notes'], ...change });
    const body = expectError(res, 400, 'VALIDATION_FAILED');
    if (messages) expect(body.message).toEqual(messages);
    else expect((body.message as string[]).length).toBeGreaterThan(0);
    expect(await resourceRowCounts(t)).toEqual(before);
  });

  it('a refused PUT changes nothing', async () => {
    const ghost = await createGhost(t, alice, { name: 'steady', skills: ['notes'] });
    for (const [body, status] of [
      [{ name: 'steady', skills: names(101) }, 400],
      [{ name: 'steady', skills: ['nope'] }, 400],
      [{ name: 'steady', namespace: 'team-a' }, 400],
    ] as const) {
      expect((await put(t, alice, 'ghosts', ghost.id, body)).status).toBe(status);
    }
    expect((await get(t, alice, `ghosts/${ghost.id}`)).body).toEqual(ghost);
  });
});
