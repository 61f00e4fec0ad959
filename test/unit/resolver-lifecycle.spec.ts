// The version lifecycle's rules: latest, status changes, tags, pinned refs and revoked bytes.
import {
  bytesGone,
  changeStatus,
  isFollowable,
  latestFollowable,
  pinnedRefusal,
  tagNameProblem,
  tagTargetRefusal,
  VERSION_STATUSES,
} from '../../src/resolver';
import type { StatusChange, VersionStatus } from '../../src/resolver';

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
