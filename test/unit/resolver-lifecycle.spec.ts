// The version lifecycle's rules: latest, status changes, tags, pinned refs and revoked bytes.
import {
  bytesGone,
  changeStatus,
  checkStoredRef,
  lookupByName,
  resolveExplicit,
  resolveTask,
  SkillCatalog,
  storedRefOf,
  storedSelection,
  validateGhostSkills,
  isFollowable,
  latestFollowable,
  pinnedRefusal,
  tagNameProblem,
  tagTargetRefusal,
  VERSION_STATUSES,
} from '../../src/resolver';
import type {
  ExplicitSelection,
  RefOutcome,
  SkillRefInput,
  StatusChange,
  StoredRef,
  VersionStatus,
} from '../../src/resolver';
import { skill, user } from '../support/resolver-facts';

const A = 'active';
const D = 'deprecated';
const Y = 'yanked';
const R = 'revoked';

describe('latest is the newest version that is active or deprecated', () => {
  it.each<[string, VersionStatus[], number | undefined]>([
    ['one active version', [A], 1],
    ['the newest of several active', [A, A, A], 3],
    ['a deprecated newest still leads', [A, D], 2],
    ['a yanked newest is passed over', [A, A, Y], 2],
    ['a revoked newest is passed over', [A, R], 1],
    ['yanked and revoked in a row', [D, Y, R, Y], 1],
    ['an older active under newer yanked ones', [A, Y, Y], 1],
    ['every version yanked or revoked: none', [Y, R], undefined],
    ['a single yanked version: none', [Y], undefined],
    ['no versions: none', [], undefined],
  ])('%s', (_, statuses, expected) => {
    const versions = statuses.map((status, i) => ({ version: i + 1, status }));
    expect(latestFollowable(versions)?.version).toBe(expected);
    // The order the rows arrive in decides nothing.
    expect(latestFollowable([...versions].reverse())?.version).toBe(expected);
  });

  it.each<[VersionStatus, boolean]>([
    [A, true],
    [D, true],
    [Y, false],
    [R, false],
  ])('%s is followable: %s', (status, expected) => {
    expect(isFollowable(status)).toBe(expected);
  });
});

describe('status changes', () => {
  const ok = (changed: boolean, dropsTags: string[] = []): StatusChange => ({ ok: true, changed, dropsTags });
  it.each<[VersionStatus, VersionStatus, string[], StatusChange]>([
    [A, D, [], ok(true)],
    [D, A, [], ok(true)],
    [A, A, [], ok(false)],
    [A, Y, [], ok(true)],
    [D, Y, [], ok(true)],
    [Y, A, [], ok(true)],
    [Y, D, [], ok(true)],
    [Y, Y, [], ok(false)],
    // A tagged version keeps its tags through a deprecation, and cannot be yanked under them.
    [A, D, ['stable'], ok(true)],
    [A, Y, ['stable', 'beta'], { ok: false, code: 'VERSION_TAGGED', tags: ['beta', 'stable'] }],
    [D, Y, ['stable'], { ok: false, code: 'VERSION_TAGGED', tags: ['stable'] }],
    // Revoking is the kill switch: never refused, its tags go with it.
    [A, R, [], ok(true)],
    [A, R, ['stable', 'beta'], ok(true, ['beta', 'stable'])],
    [Y, R, [], ok(true)],
    [D, R, ['x'], ok(true, ['x'])],
    // Revoked is final, even to itself.
    ...VERSION_STATUSES.map((to): [VersionStatus, VersionStatus, string[], StatusChange] => [
      R,
      to,
      [],
      { ok: false, code: 'VERSION_REVOKED' },
    ]),
  ])('%s -> %s with tags %j', (from, to, tags, expected) => {
    expect(changeStatus(from, to, tags)).toEqual(expected);
  });
});

describe('tags', () => {
  it.each<[string, boolean]>([
    ['stable', true],
    ['v1.2-rc.1', true],
    ['a', true],
    ['a'.repeat(32), true],
    ['a'.repeat(33), false],
    ['latest', false],
    ['Latest', false],
    ['1st', false],
    ['-x', false],
    ['.x', false],
    ['', false],
    ['has space', false],
    ['under_score', false],
    ['ünïcode', false],
    ['stable\n', false],
  ])('%j is a valid tag name: %s', (tag, valid) => {
    expect(tagNameProblem(tag) === null).toBe(valid);
  });

  it('says why latest is refused', () => {
    expect(tagNameProblem('latest')).toMatch(/reserved/);
  });

  it.each<[VersionStatus, string | null]>([
    [A, null],
    [D, null],
    [Y, 'VERSION_YANKED'],
    [R, 'VERSION_YANKED'],
  ])('a tag may point at a %s version: refusal %s', (status, expected) => {
    expect(tagTargetRefusal(status)).toBe(expected);
  });
});

describe('pinned refs and revoked bytes', () => {
  it.each<[VersionStatus, string | null]>([
    [A, null],
    [D, null],
    [Y, null],
    [R, 'REVOKED'],
  ])('a ref pinned to a %s version: %s', (status, expected) => {
    expect(pinnedRefusal(status)).toBe(expected);
  });

  it.each<[VersionStatus, boolean, boolean]>([
    [A, false, false],
    [D, false, false],
    [Y, false, false],
    [R, false, true],
    [R, true, false],
  ])('the bytes of a %s version, admin %s: gone %s', (status, isAdmin, expected) => {
    expect(bytesGone(status, isAdmin)).toBe(expected);
  });
});

describe('refs to versions of each status (lookups, pins, tags)', () => {
  const owner = user(1);
  // v1 active, v2 deprecated, v3 yanked, v4 revoked; `stable` -> 1, `next` -> 2, `dangling` -> 7.
  const mixed = skill(
    20,
    'mixed',
    { owner: 1 },
    { versions: 4, statuses: { 2: D, 3: Y, 4: R }, tags: { stable: 1, next: 2, dangling: 7 } },
  );
  const dead = skill(21, 'dead', { owner: 1 }, { versions: 2, statuses: { 1: Y, 2: R } });
  const catalog = new SkillCatalog([mixed, dead]);
  type Outcome = string;
  const outcomeOf = (o: RefOutcome): Outcome =>
    o.ok
      ? `v${o.ref.version} ${o.ref.status}${o.ref.pinned ? ' pinned' : ''}${o.ref.tag ? ` tag=${o.ref.tag}` : ''}`
      : o.reason;

  it.each<[string, string, StoredRef, Outcome]>([
    ['unpinned follows the newest active-or-deprecated', 'mixed', { skill_id: 20 }, 'v2 deprecated'],
    ['pinned to active', 'mixed', { skill_id: 20, version: 1, pinned: true }, 'v1 active pinned'],
    ['pinned to deprecated still resolves', 'mixed', { skill_id: 20, version: 2 }, 'v2 deprecated pinned'],
    ['pinned to yanked still resolves (lockfile)', 'mixed', { skill_id: 20, version: 3 }, 'v3 yanked pinned'],
    ['pinned to revoked is REVOKED', 'mixed', { skill_id: 20, version: 4 }, 'REVOKED'],
    ['pinned to a missing version', 'mixed', { skill_id: 20, version: 9 }, 'VERSION_NOT_FOUND'],
    [
      'a version sent with pinned: false follows the latest',
      'mixed',
      { skill_id: 20, version: 4, pinned: false },
      'v2 deprecated',
    ],
    ['a tag follows its version', 'mixed', { skill_id: 20, tag: 'stable' }, 'v1 active tag=stable'],
    ['another tag', 'mixed', { skill_id: 20, tag: 'next' }, 'v2 deprecated tag=next'],
    ['a tag that is gone', 'mixed', { skill_id: 20, tag: 'beta' }, 'TAG_NOT_FOUND'],
    ['a tag whose version was not loaded is gone too', 'mixed', { skill_id: 20, tag: 'dangling' }, 'TAG_NOT_FOUND'],
    ['a tag named like an Object property is gone', 'mixed', { skill_id: 20, tag: 'constructor' }, 'TAG_NOT_FOUND'],
    ['every version yanked or revoked: NO_ACTIVE_VERSION', 'dead', { skill_id: 21 }, 'NO_ACTIVE_VERSION'],
    ['but a pin to its yanked version resolves', 'dead', { skill_id: 21, version: 1 }, 'v1 yanked pinned'],
    ['and a pin to its revoked one does not', 'dead', { skill_id: 21, version: 2 }, 'REVOKED'],
  ])('stored ref: %s', (_, name, ref, expected) => {
    expect(outcomeOf(checkStoredRef(catalog, owner, name, ref))).toBe(expected);
  });

  it.each<[string, ExplicitSelection, Outcome]>([
    ['by scope, latest', { name: 'mixed', namespace: 'default', is_public: false }, 'v2 deprecated'],
    [
      'by scope, pinned to yanked',
      { name: 'mixed', namespace: 'default', is_public: false, version: 3 },
      'v3 yanked pinned',
    ],
    ['by scope, pinned to revoked', { name: 'mixed', namespace: 'default', is_public: false, version: 4 }, 'REVOKED'],
    [
      'by scope, following a tag',
      { name: 'mixed', namespace: 'default', is_public: false, tag: 'stable' },
      'v1 active tag=stable',
    ],
    ['by scope, a gone tag', { name: 'mixed', namespace: 'default', is_public: false, tag: 'x' }, 'TAG_NOT_FOUND'],
    ['by scope, nothing followable', { name: 'dead', namespace: 'default', is_public: false }, 'NO_ACTIVE_VERSION'],
  ])('explicit selection: %s', (_, selection, expected) => {
    expect(outcomeOf(resolveExplicit(catalog, owner, selection))).toBe(expected);
  });

  it.each<[string, Outcome]>([
    ['mixed', 'v2 deprecated'],
    ['dead', 'NO_ACTIVE_VERSION'],
  ])('name lookup of %s', (name, expected) => {
    expect(outcomeOf(lookupByName(catalog, owner, 'default', name))).toBe(expected);
  });

  it('writes the ref keys in the documented order', () => {
    const outcome = checkStoredRef(catalog, owner, 'mixed', { skill_id: 20, tag: 'stable' });
    expect(outcome.ok && Object.keys(outcome.ref)).toEqual([
      'skill_id',
      'namespace',
      'is_public',
      'version',
      'content_hash',
      'pinned',
      'tag',
      'status',
      'allowed_tools',
      'requires',
    ]);
  });
});

describe('a task resolution reports each lifecycle failure from its deciding source', () => {
  it('NO_ACTIVE_VERSION, REVOKED and TAG_NOT_FOUND, and the status and tag of what resolved', () => {
    const alice = user(1, { 'team-a': 'Developer' });
    const skills = [
      skill(30, 'lint', { ns: 'team-a' }, { versions: 3, statuses: { 2: R, 3: Y } }),
      skill(31, 'dead', { ns: 'team-a' }, { statuses: { 1: Y } }),
      skill(32, 'fmt', { ns: 'team-a' }, { versions: 2, statuses: { 2: D } }),
      skill(33, 'docs', { ns: 'team-a' }, { versions: 2, tags: { stable: 1 } }),
    ];
    const team = (name: string, tag: string) => ({ name, namespace: 'team-a', is_public: false, tag });
    const resolution = resolveTask({
      taskId: 1,
      taskCreatorUserId: 1,
      teamId: 3,
      teamNamespace: 'team-a',
      taskNamespace: 'team-a',
      ghosts: [
        {
          ownerUserId: 1,
          skills: ['lint', 'dead', 'fmt'],
          preloadSkills: [],
          skillRefs: { lint: { skill_id: 30, version: 2 } },
          preloadSkillRefs: {},
        },
      ],
      // A subscription's tag decides its names over the ghost's refs, resolved or not.
      subscription: { ownerUserId: 1, skillRefs: [team('docs', 'stable'), team('fmt', 'gone')] },
      labels: {},
      message: null,
      identities: { 1: alice },
      skills,
    });
    expect(resolution.unresolved).toEqual([
      { name: 'dead', source: 'ghost', reason: 'NO_ACTIVE_VERSION' },
      { name: 'fmt', source: 'subscription', reason: 'TAG_NOT_FOUND' },
      { name: 'lint', source: 'ghost', reason: 'REVOKED' },
    ]);
    expect(resolution.skill_refs.docs).toMatchObject({ version: 1, tag: 'stable', pinned: false, status: 'active' });
    expect(Object.keys(resolution.skill_refs)).toEqual(['docs']);
  });

  it('a deprecated latest resolves and says so', () => {
    const alice = user(1);
    const resolution = resolveTask({
      taskId: 1,
      taskCreatorUserId: 1,
      teamId: 3,
      teamNamespace: null,
      taskNamespace: 'default',
      ghosts: [],
      subscription: null,
      labels: { additionalSkills: JSON.stringify(['fmt']) },
      message: null,
      identities: { 1: alice },
      skills: [skill(32, 'fmt', { owner: 1 }, { versions: 2, statuses: { 2: D } })],
    });
    expect(resolution.skill_refs.fmt).toMatchObject({ version: 2, tag: null, status: 'deprecated' });
  });
});

describe('what is stored for a ref or selection that follows a tag', () => {
  it.each<[string, Parameters<typeof storedRefOf>[1], StoredRef]>([
    ['no ref: follows the latest', undefined, { skill_id: 5 }],
    ['a tag', { tag: 'stable' }, { skill_id: 5, tag: 'stable' }],
    [
      'a tag with an unpinned version keeps only the tag',
      { tag: 'stable', version: 2, pinned: false },
      { skill_id: 5, tag: 'stable' },
    ],
    ['a pinned version', { version: 2 }, { skill_id: 5, version: 2, pinned: true }],
    ['an unpinned version', { version: 2, pinned: false }, { skill_id: 5 }],
  ])('ghost ref: %s', (_, given, expected) => {
    expect(storedRefOf(5, given)).toEqual(expected);
  });

  const base = { name: 'x', namespace: 'default', is_public: false };
  it.each<[string, unknown, boolean, ExplicitSelection | undefined]>([
    ['a subscription selection with a tag', { ...base, tag: 'stable' }, true, { ...base, tag: 'stable' }],
    ['with a version', { ...base, version: 3 }, true, { ...base, version: 3 }],
    [
      'with both: malformed (NOT_FOUND), never one of them',
      { ...base, version: 3, tag: 'stable' },
      true,
      { ...base, is_public: false, malformed: true },
    ],
    ['a tag that is not a string: malformed', { ...base, tag: 7 }, true, { ...base, malformed: true }],
    ['tasks keep neither', { ...base, tag: 'stable' }, false, base],
  ])('stored selection: %s', (_, stored, keepVersion, expected) => {
    expect(storedSelection(stored, keepVersion)).toEqual(expected);
  });
});

describe('saving a ghost ref that follows a tag', () => {
  const owner = user(1);
  const catalog = new SkillCatalog([skill(20, 'tagged', { owner: 1 }, { versions: 2, tags: { stable: 1 } })]);
  const save = (ref: SkillRefInput) =>
    validateGhostSkills({
      body: { skills: ['tagged'], preload_skills: [], skill_refs: { tagged: ref }, preload_skill_refs: {} },
      owner,
      saver: owner,
      namespace: 'default',
      catalog,
    });
  it.each<[string, SkillRefInput, ReturnType<typeof save>]>([
    [
      'an existing tag is stored as a tag',
      { skill_id: 20, tag: 'stable' },
      { ok: true, skillRefs: { tagged: { skill_id: 20, tag: 'stable' } }, preloadSkillRefs: {} },
    ],
    [
      'a tag that does not exist is refused',
      { skill_id: 20, tag: 'beta' },
      { ok: false, invalid: [{ name: 'tagged', reason: 'NOT_FOUND' }] },
    ],
  ])('%s', (_, ref, expected) => {
    expect(save(ref)).toEqual(expected);
  });
});
