// Access, the catalog and docs/resolution.md#how-a-name-becomes-a-ref: how one name, explicit selection or stored ref resolves.
import {
  SkillCatalog,
  canRead,
  checkStoredRef,
  lookupByName,
  parseTaskSelections,
  resolveExplicit,
} from '../../src/resolver';
import type { ExplicitSelection, Identity, SkillFacts, StoredRef } from '../../src/resolver';
import { skill, user } from '../support/resolver-facts';

const alice = user(1, { 'team-a': 'Owner' });
const bob = user(2, { 'team-a': 'Reporter' });
const carol = user(3);
const admin = user(9, {}, true);

const skills = [
  skill(10, 'notes', { owner: 1 }),
  skill(11, 'notes', { ns: 'team-a' }),
  skill(12, 'notes', { isPublic: true }),
  // Version 1 declared a policy, version 2 dropped it: each ref carries its own version's.
  skill(
    30,
    'lint',
    { ns: 'team-a' },
    {
      versions: 2,
      policy: (n) =>
        n === 1 ? { allowed_tools: ['Read', 'Bash(eslint *)'], requires: { bins: ['eslint'], env: [] } } : {},
    },
  ),
  skill(31, 'lint', { isPublic: true }),
  skill(40, 'secret', { ns: 'other' }),
  skill(41, 'secret', { isPublic: true }),
  skill(60, 'gone', { ns: 'team-a' }, { deleted: true }),
  skill(62, 'gone', { ns: 'team-a' }, { deleted: true }),
  skill(61, 'gone', { isPublic: true }),
  skill(63, 'mine-gone', { owner: 2 }, { deleted: true }),
  skill(70, 'renamed', { isPublic: true }),
  skill(90, 'deep', { ns: 'team-a/sub/leaf' }),
  skill(100, 'constructor', { isPublic: true }),
];
const catalog = new SkillCatalog(skills);

type Outcome = number | string;
/** A skill id (and `@version` when pinned) for a hit, the reason for a miss. */
function outcomeOf(result: ReturnType<typeof lookupByName>): Outcome {
  if (!result.ok) return result.reason;
  return result.ref.pinned ? `${result.ref.skill_id}@${result.ref.version}` : result.ref.skill_id;
}

describe('canRead', () => {
  const personal = skill(1, 'p', { owner: 1 });
  const group = skill(2, 'g', { ns: 'a/b' });
  const pub = skill(3, 'x', { isPublic: true });
  it.each<[string, Identity, SkillFacts, boolean]>([
    ['the owner reads a personal skill', user(1), personal, true],
    ['another user does not', user(2, { 'a/b': 'Owner' }), personal, false],
    ['an admin reads a personal skill', user(7, {}, true), personal, true],
    ['a Reporter reads a group skill', user(2, { 'a/b': 'Reporter' }), group, true],
    ['a parent role reads a child group skill', user(2, { a: 'Reporter' }), group, true],
    ['a non-member does not', user(2), group, false],
    ['an admin reads a group skill', user(7, {}, true), group, true],
    ['anyone reads a public skill', user(5), pub, true],
  ])('%s', (_title, identity, target, expected) => {
    expect(canRead(identity, target)).toBe(expected);
  });
});

describe('SkillCatalog', () => {
  it('indexes active skills per scope and keeps every deleted row out of them', () => {
    expect(catalog.byId(60)?.name).toBe('gone');
    expect(catalog.activeInGroup('team-a', 'gone')).toBeUndefined();
    expect(catalog.holdsOnlyDeleted({ kind: 'group', namespace: 'team-a' }, 'gone')).toBe(true);
    expect(catalog.holdsOnlyDeleted({ kind: 'public' }, 'gone')).toBe(false);
    expect(catalog.activePublic('gone')?.id).toBe(61);
    expect(catalog.activePersonal(1, 'notes')?.id).toBe(10);
    expect(catalog.activePersonal(2, 'notes')).toBeUndefined();
    expect(catalog.holdsOnlyDeleted({ kind: 'personal', ownerUserId: 2 }, 'mine-gone')).toBe(true);
    expect(catalog.holdsOnlyDeleted({ kind: 'personal', ownerUserId: 1 }, 'mine-gone')).toBe(false);
  });

  it('a deleted row does not hide an active one of the same scope and name', () => {
    const c = new SkillCatalog([skill(2, 'x', { ns: 'g' }), skill(1, 'x', { ns: 'g' }, { deleted: true })]);
    expect(c.activeInGroup('g', 'x')?.id).toBe(2);
    expect(c.holdsOnlyDeleted({ kind: 'group', namespace: 'g' }, 'x')).toBe(false);
  });

  it('two active rows of one scope and name: the lowest id wins whatever the order', () => {
    const rows = [skill(8, 'x', { isPublic: true }), skill(5, 'x', { isPublic: true })];
    expect(new SkillCatalog(rows).activePublic('x')?.id).toBe(5);
    expect(new SkillCatalog(rows.reverse()).activePublic('x')?.id).toBe(5);
  });
});

describe('lookupByName (personal, else the namespace group for Reporter+, else public)', () => {
  it.each<[string, Identity, string, string, Outcome]>([
    ['personal shadows group and public', alice, 'team-a', 'notes', 10],
    ['group shadows public for a member', bob, 'team-a', 'notes', 11],
    ['a non-member gets the public one', carol, 'team-a', 'notes', 12],
    ['an admin counts as Reporter+', admin, 'team-a', 'notes', 11],
    ['in default the group is never looked at', bob, 'default', 'notes', 12],
    ['a group skill not in the lookup namespace is not a hit', bob, 'team-a', 'deep', 'NOT_FOUND'],
    ['a parent role reaches the child namespace', bob, 'team-a/sub/leaf', 'deep', 90],
    ['deleted rows are never hits', bob, 'team-a', 'gone', 61],
    ['a deleted personal skill is simply not found', bob, 'default', 'mine-gone', 'NOT_FOUND'],
    ['nothing anywhere', alice, 'team-a', 'nope', 'NOT_FOUND'],
    ['a name that is an Object member', carol, 'default', 'constructor', 100],
  ])('%s', (_title, identity, namespace, name, expected) => {
    expect(outcomeOf(lookupByName(catalog, identity, namespace, name))).toBe(expected);
  });

  it('emits the current scope and the latest version, unpinned', () => {
    expect(lookupByName(catalog, bob, 'team-a', 'lint')).toEqual({
      ok: true,
      skill: catalog.byId(30),
      ref: {
        skill_id: 30,
        namespace: 'team-a',
        is_public: false,
        version: 2,
        content_hash: 'sha256:30-v2',
        pinned: false,
        tag: null,
        status: 'active',
        allowed_tools: null,
        requires: { bins: [], env: [] },
      },
    });
  });
});

describe('resolveExplicit (exactly one scope, no fallback)', () => {
  const sel = (name: string, namespace: string, is_public = false, version?: number): ExplicitSelection => ({
    name,
    namespace,
    is_public,
    version,
  });
  it.each<[string, Identity, ExplicitSelection, Outcome]>([
    ['public', carol, sel('notes', 'default', true), 12],
    ['default is the actor’s own personal skill', alice, sel('notes', 'default'), 10],
    ['default never falls back to the public skill', bob, sel('notes', 'default'), 'NOT_FOUND'],
    ['a group the actor reads', bob, sel('lint', 'team-a'), 30],
    ['a foreign group is FORBIDDEN, not the public skill', bob, sel('secret', 'other'), 'FORBIDDEN'],
    ['a foreign group is FORBIDDEN even when empty', bob, sel('nope', 'other'), 'FORBIDDEN'],
    ['an admin reads any group', admin, sel('secret', 'other'), 40],
    ['an admin asking for a missing group skill', admin, sel('nope', 'other'), 'NOT_FOUND'],
    ['a role in a parent group', bob, sel('deep', 'team-a/sub/leaf'), 90],
    ['a group holding only deleted rows', bob, sel('gone', 'team-a'), 'DELETED'],
    ['a personal scope holding only a deleted row', bob, sel('mine-gone', 'default'), 'DELETED'],
    ['another user’s deleted personal skill is not theirs', alice, sel('mine-gone', 'default'), 'NOT_FOUND'],
    ['a scope that never held the name', bob, sel('gone', 'default'), 'NOT_FOUND'],
    ['is_public decides alone', carol, sel('secret', 'other', true), 41],
    ['a pinned version that exists', bob, sel('lint', 'team-a', false, 1), '30@1'],
    ['the latest version pinned is still pinned', bob, sel('lint', 'team-a', false, 2), '30@2'],
    ['a pinned version that does not exist', bob, sel('lint', 'team-a', false, 3), 'VERSION_NOT_FOUND'],
  ])('%s', (_title, identity, selection, expected) => {
    expect(outcomeOf(resolveExplicit(catalog, identity, selection))).toBe(expected);
  });

  it('a pinned ref carries that version’s content hash and tool policy', () => {
    const outcome = resolveExplicit(catalog, bob, sel('lint', 'team-a', false, 1));
    expect(outcome.ok && outcome.ref).toEqual({
      skill_id: 30,
      namespace: 'team-a',
      is_public: false,
      version: 1,
      content_hash: 'sha256:30-v1',
      pinned: true,
      tag: null,
      status: 'active',
      allowed_tools: ['Read', 'Bash(eslint *)'],
      requires: { bins: ['eslint'], env: [] },
    });
  });
});

describe('checkStoredRef (exists, not deleted, same name, readable, pinned version exists)', () => {
  it.each<[string, Identity, string, StoredRef, Outcome]>([
    ['a readable ref follows the latest', bob, 'lint', { skill_id: 30 }, 30],
    ['unknown id', alice, 'lint', { skill_id: 999 }, 'NOT_FOUND'],
    ['deleted, though the name lives on elsewhere', alice, 'gone', { skill_id: 60 }, 'DELETED'],
    ['deleted comes before a name mismatch', alice, 'other-name', { skill_id: 60 }, 'DELETED'],
    ['renamed', alice, 'old-name', { skill_id: 70 }, 'NAME_MISMATCH'],
    ['a name mismatch comes before access', carol, 'other-name', { skill_id: 40 }, 'NAME_MISMATCH'],
    ['the actor lost access', carol, 'lint', { skill_id: 30 }, 'FORBIDDEN'],
    ['another user’s personal skill', bob, 'notes', { skill_id: 10 }, 'FORBIDDEN'],
    ['an admin reads group skills', admin, 'secret', { skill_id: 40 }, 40],
    ['pinned and present', bob, 'lint', { skill_id: 30, version: 1, pinned: true }, '30@1'],
    ['pinned and missing', bob, 'lint', { skill_id: 30, version: 7, pinned: true }, 'VERSION_NOT_FOUND'],
    ['access is checked before the version', carol, 'lint', { skill_id: 30, version: 7, pinned: true }, 'FORBIDDEN'],
    ['a version without `pinned` pins', bob, 'lint', { skill_id: 30, version: 1 }, '30@1'],
    ['`pinned: false` ignores the version', bob, 'lint', { skill_id: 30, version: 7, pinned: false }, 30],
    ['`pinned: true` without a version follows the latest', bob, 'lint', { skill_id: 30, pinned: true }, 30],
  ])('%s', (_title, identity, name, ref, expected) => {
    expect(outcomeOf(checkStoredRef(catalog, identity, name, ref))).toBe(expected);
  });
});

describe('parseTaskSelections', () => {
  const refs = JSON.stringify([
    { name: 'b', namespace: 'team-a', is_public: false },
    { name: 'a', namespace: 'default', is_public: true, version: 3 },
  ]);
  it.each<[string, Record<string, string>, ReturnType<typeof parseTaskSelections>]>([
    ['no labels', {}, { kind: 'none' }],
    [
      'requestedSkillRefs in label order, versions dropped',
      { requestedSkillRefs: refs, additionalSkills: '["zzz"]' },
      {
        kind: 'refs',
        refs: [
          { name: 'b', namespace: 'team-a', is_public: false },
          { name: 'a', namespace: 'default', is_public: true },
        ],
      },
    ],
    ['legacy names only', { additionalSkills: '["x","y"]' }, { kind: 'names', names: ['x', 'y'] }],
    [
      'empty requestedSkillRefs falls back',
      { requestedSkillRefs: '[]', additionalSkills: '["x"]' },
      { kind: 'names', names: ['x'] },
    ],
    [
      'malformed requestedSkillRefs falls back',
      { requestedSkillRefs: '[{', additionalSkills: '["x"]' },
      { kind: 'names', names: ['x'] },
    ],
    [
      'a named entry missing a field stays, malformed (it resolves to NOT_FOUND)',
      { requestedSkillRefs: '[{"name":"a","namespace":"default"}]', additionalSkills: '["x"]' },
      { kind: 'refs', refs: [{ name: 'a', namespace: 'default', is_public: false, malformed: true }] },
    ],
    [
      'a name or namespace no skill can have is malformed',
      {
        requestedSkillRefs:
          '[{"name":"A B","namespace":"default","is_public":false},{"name":"b","namespace":"Team A","is_public":false},' +
          '{"name":"c\\u0000","namespace":"default","is_public":true},{"name":"d","namespace":3,"is_public":false}]',
      },
      {
        kind: 'refs',
        refs: [
          { name: 'A B', namespace: 'default', is_public: false, malformed: true },
          { name: 'b', namespace: 'Team A', is_public: false, malformed: true },
          { name: 'c\u0000', namespace: 'default', is_public: false, malformed: true },
          { name: 'd', namespace: '', is_public: false, malformed: true },
        ],
      },
    ],
    [
      'entries that name nothing are skipped',
      {
        requestedSkillRefs:
          '[3, null, {"namespace":"default","is_public":true}, {"name":"a","namespace":"team-a","is_public":false}]',
      },
      { kind: 'refs', refs: [{ name: 'a', namespace: 'team-a', is_public: false }] },
    ],
    [
      'refs that name nothing fall back to the legacy names',
      { requestedSkillRefs: '[{"name":""}, 5]', additionalSkills: '["x"]' },
      { kind: 'names', names: ['x'] },
    ],
    [
      'an object instead of an array',
      { requestedSkillRefs: '{"name":"a"}', additionalSkills: '"x"' },
      { kind: 'none' },
    ],
    ['non-string names are skipped', { additionalSkills: '["x", 3, {"name":"y"}]' }, { kind: 'names', names: ['x'] }],
    ['empty names are skipped', { additionalSkills: '[""]' }, { kind: 'none' }],
    [
      'names no skill can have stay (a lookup finds nothing)',
      { additionalSkills: '["Bad Name","x\\u0000","\\ud800"]' },
      { kind: 'names', names: ['Bad Name', 'x\u0000', '\ud800'] },
    ],
    [
      'non-string label values (stored by hand)',
      { requestedSkillRefs: 5, additionalSkills: null } as unknown as Record<string, string>,
      { kind: 'none' },
    ],
    ['both empty', { requestedSkillRefs: '[]', additionalSkills: '[]' }, { kind: 'none' }],
    ['null', { requestedSkillRefs: 'null', additionalSkills: 'null' }, { kind: 'none' }],
  ])('%s', (_title, labels, expected) => {
    expect(parseTaskSelections(labels)).toEqual(expected);
  });
});
