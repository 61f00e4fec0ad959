// The access table for things in a scope: every cell of read, create and change/delete by scope,
// the caller's effective role, admin or not, and whether the caller owns (or created) the thing.
import { Actor, canChange, canCreate, canRead, canReadDeleted, GroupRole, readsGroup, Scoped } from '../../src/access';

const ME = 1;
const SOMEONE = 2;

type ScopeName = 'personal' | 'group' | 'public';
type Owner = 'self' | 'other' | 'none';

function thingOf(scope: ScopeName, owner: Owner): Scoped {
  const ownerUserId = owner === 'self' ? ME : owner === 'other' ? SOMEONE : null;
  if (scope === 'public') return { namespace: 'default', ownerUserId, isPublic: true };
  return { namespace: scope === 'personal' ? 'default' : 'team-a/sub', ownerUserId, isPublic: false };
}

const actor = (isAdmin: boolean): Actor => ({ userId: ME, isAdmin });

// In `default` nobody holds a role (roles belong to groups), so personal and public rows have none.
describe('read and change/delete', () => {
  it.each<[ScopeName, Owner, boolean, GroupRole | null, boolean, boolean]>([
    // scope,     owner,  admin, role,         read,  change
    ['personal', 'self', false, null, true, true],
    ['personal', 'other', false, null, false, false],
    ['personal', 'self', true, null, true, true],
    ['personal', 'other', true, null, true, true],

    ['group', 'other', false, null, false, false],
    ['group', 'other', false, 'Reporter', true, false],
    ['group', 'other', false, 'Developer', true, false],
    ['group', 'other', false, 'Maintainer', true, true],
    ['group', 'other', false, 'Owner', true, true],
    ['group', 'self', false, null, false, false],
    ['group', 'self', false, 'Reporter', true, false],
    ['group', 'self', false, 'Developer', true, true],
    ['group', 'self', false, 'Maintainer', true, true],
    ['group', 'self', false, 'Owner', true, true],
    ['group', 'other', true, null, true, true],
    ['group', 'other', true, 'Reporter', true, true],
    ['group', 'other', true, 'Developer', true, true],
    ['group', 'other', true, 'Maintainer', true, true],
    ['group', 'other', true, 'Owner', true, true],
    ['group', 'self', true, null, true, true],
    ['group', 'self', true, 'Reporter', true, true],
    ['group', 'self', true, 'Developer', true, true],
    ['group', 'self', true, 'Maintainer', true, true],
    ['group', 'self', true, 'Owner', true, true],

    ['public', 'none', false, null, true, false],
    ['public', 'none', true, null, true, true],
  ])('%s thing, owner %s, admin %s, role %s: read %s, change %s', (scope, owner, isAdmin, role, read, change) => {
    const thing = thingOf(scope, owner);
    expect(canRead(actor(isAdmin), thing, role)).toBe(read);
    expect(canChange(actor(isAdmin), thing, role)).toBe(change);
  });
});

describe('create', () => {
  it.each<[ScopeName, boolean, GroupRole | null, string]>([
    // scope,     admin, role,         decision
    ['personal', false, null, 'ok'],
    ['personal', true, null, 'ok'],
    ['group', false, null, 'not_found'],
    ['group', false, 'Reporter', 'forbidden'],
    ['group', false, 'Developer', 'ok'],
    ['group', false, 'Maintainer', 'ok'],
    ['group', false, 'Owner', 'ok'],
    ['group', true, null, 'ok'],
    ['group', true, 'Reporter', 'ok'],
    ['group', true, 'Developer', 'ok'],
    ['group', true, 'Maintainer', 'ok'],
    ['group', true, 'Owner', 'ok'],
    ['public', false, null, 'forbidden'],
    ['public', true, null, 'ok'],
  ])('%s, admin %s, role %s: %s', (scope, isAdmin, role, decision) => {
    const namespace = scope === 'group' ? 'team-a' : 'default';
    expect(canCreate(actor(isAdmin), namespace, role, scope === 'public')).toBe(decision);
  });
});

describe('reading a group namespace (Reporter+, admins; never `default`)', () => {
  it.each<[string, boolean, GroupRole | null, boolean]>([
    ['team-a', false, null, false],
    ['team-a', false, 'Reporter', true],
    ['team-a', false, 'Owner', true],
    ['team-a', true, null, true],
    ['default', true, null, false],
    ['default', false, 'Owner', false],
  ])('%s, admin %s, role %s: %s', (namespace, isAdmin, role, expected) => {
    expect(readsGroup(actor(isAdmin), namespace, role)).toBe(expected);
  });
});

describe('deleted things (only admins, only skills)', () => {
  it.each<['skill' | 'resource', boolean, boolean]>([
    ['skill', false, false],
    ['skill', true, true],
    ['resource', false, false],
    ['resource', true, false],
  ])('a deleted %s, admin %s: readable %s', (kind, isAdmin, expected) => {
    expect(canReadDeleted(actor(isAdmin), kind)).toBe(expected);
  });
});
