// Roles, group names and their lineage, and the names a stored selection may hold.
import {
  effectiveRole,
  GROUP_ROLES,
  GroupRole,
  groupNameProblems,
  hasRole,
  highestRole,
  isNamespaceName,
  isRowNumber,
  isSkillName,
  namespaceLineage,
  parentName,
  roleRank,
} from '../../src/access';

describe('roles rank Owner > Maintainer > Developer > Reporter > none', () => {
  it('lists the roles highest first', () => {
    expect(GROUP_ROLES).toEqual(['Owner', 'Maintainer', 'Developer', 'Reporter']);
    expect(GROUP_ROLES.map(roleRank)).toEqual([4, 3, 2, 1]);
    expect(roleRank(null)).toBe(0);
    expect(roleRank(undefined)).toBe(0);
  });

  const ROLES: Array<GroupRole | null> = [null, 'Reporter', 'Developer', 'Maintainer', 'Owner'];
  it.each(ROLES.flatMap((held, h) => GROUP_ROLES.map((needed) => [held, needed, h >= ROLES.indexOf(needed)] as const)))(
    'hasRole(%s, %s) is %s',
    (held, needed, expected) => {
      expect(hasRole(held, needed)).toBe(expected);
    },
  );

  it.each<[GroupRole[], GroupRole | null]>([
    [[], null],
    [['Reporter'], 'Reporter'],
    [['Reporter', 'Owner', 'Developer'], 'Owner'],
    [['Developer', 'Maintainer'], 'Maintainer'],
  ])('highestRole(%j) is %s', (roles, expected) => {
    expect(highestRole(roles)).toBe(expected);
  });
});

describe('effectiveRole: the highest direct role in the namespace or a parent', () => {
  it.each<[string, Record<string, GroupRole>, string, GroupRole | null]>([
    ['a direct role', { a: 'Developer' }, 'a', 'Developer'],
    ['inherited from the parent', { a: 'Maintainer' }, 'a/b', 'Maintainer'],
    ['inherited from the grandparent', { a: 'Reporter' }, 'a/b/c', 'Reporter'],
    ['the highest of parent and child', { a: 'Reporter', 'a/b': 'Owner' }, 'a/b/c', 'Owner'],
    ['a parent role beats a lower child role', { a: 'Owner', 'a/b': 'Reporter' }, 'a/b', 'Owner'],
    ['a child role does not hold in the parent', { 'a/b': 'Owner' }, 'a', null],
    ['a sibling does not count', { 'a/x': 'Owner' }, 'a/b', null],
    ['a prefix that is not a parent does not count', { ab: 'Owner' }, 'ab-c', null],
    ['none in default', { default: 'Owner' }, 'default', null],
    ['a group named like an Object member', {}, 'constructor', null],
    ['a nested group named like an Object member', { a: 'Reporter' }, 'a/__proto__', 'Reporter'],
  ])('%s', (_title, roles, namespace, expected) => {
    expect(effectiveRole(roles, namespace)).toBe(expected);
  });
});

describe('group names: 1-3 segments of [a-z0-9-]{1,64}, none reserved', () => {
  it.each<[string, string[]]>([
    ['a', []],
    ['team-a/backend', []],
    ['a/b/c', []],
    ['0-9/x-y', []],
    ['x'.repeat(64), []],
    ['a/b/c/d', ['name must have at most 3 segments']],
    ['x'.repeat(65), [`name segment "${'x'.repeat(65)}" must be 1-64 characters of a-z, 0-9 and -`]],
    ['', ['name segment "" must be 1-64 characters of a-z, 0-9 and -']],
    ['a//b', ['name segment "" must be 1-64 characters of a-z, 0-9 and -']],
    ['Team', ['name segment "Team" must be 1-64 characters of a-z, 0-9 and -']],
    ['a_b', ['name segment "a_b" must be 1-64 characters of a-z, 0-9 and -']],
    ['default', ['name segment "default" is reserved']],
    ['team/public', ['name segment "public" is reserved']],
    ['api/x/admin', ['name segment "api" is reserved', 'name segment "admin" is reserved']],
    ['admin-tools', []],
    ['a/b/c/default', ['name must have at most 3 segments', 'name segment "default" is reserved']],
  ])('%j: %j', (name, problems) => {
    expect(groupNameProblems(name)).toEqual(problems);
  });
});

describe('lineage and parent', () => {
  it.each<[string, string[], string | null]>([
    ['a', ['a'], null],
    ['a/b', ['a', 'a/b'], 'a'],
    ['a/b/c', ['a', 'a/b', 'a/b/c'], 'a/b'],
    ['ab-c', ['ab-c'], null],
  ])('%s: lineage %j, parent %s', (name, lineage, parent) => {
    expect(namespaceLineage(name)).toEqual(lineage);
    expect(parentName(name)).toBe(parent);
  });
});

describe('names a stored selection may hold', () => {
  it.each<[unknown, boolean]>([
    ['pdf-tools', true],
    ['a', true],
    ['a1-b2-c3', true],
    ['x'.repeat(64), true],
    ['x'.repeat(65), false],
    ['', false],
    ['-a', false],
    ['a-', false],
    ['a--b', false],
    ['A', false],
    ['a_b', false],
    ['a b', false],
    [7, false],
    [null, false],
  ])('isSkillName(%j) is %s', (value, expected) => {
    expect(isSkillName(value)).toBe(expected);
  });

  it.each<[unknown, boolean]>([
    ['default', true],
    ['team-a', true],
    ['a/b/c', true],
    ['a/b/c/d', false],
    ['a//b', false],
    ['/a', false],
    ['Team', false],
    [`${'x'.repeat(64)}/${'y'.repeat(64)}/${'z'.repeat(64)}`, true],
    [`${'x'.repeat(65)}`, false],
    ['', false],
    [3, false],
  ])('isNamespaceName(%j) is %s', (value, expected) => {
    expect(isNamespaceName(value)).toBe(expected);
  });

  it.each<[unknown, boolean]>([
    [1, true],
    [2_147_483_647, true],
    [2_147_483_648, false],
    [0, false],
    [-1, false],
    [1.5, false],
    ['1', false],
    [Number.NaN, false],
  ])('isRowNumber(%j) is %s', (value, expected) => {
    expect(isRowNumber(value)).toBe(expected);
  });
});
