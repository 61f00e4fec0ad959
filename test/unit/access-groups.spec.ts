// Seeing a group and managing its members, by effective role.
import {
  Actor,
  canCreateChildGroup,
  canManageMembers,
  canManageOwners,
  canSeeGroup,
  demotesOwner,
  GroupRole,
  touchesOwner,
} from '../../src/access';

const actor = (isAdmin: boolean): Actor => ({ userId: 1, isAdmin });

describe('group access by role', () => {
  it.each<[boolean, GroupRole | null, boolean, boolean, boolean, boolean]>([
    // admin, role,      see,   child group, members, owners
    [false, null, false, false, false, false],
    [false, 'Reporter', true, false, false, false],
    [false, 'Developer', true, false, false, false],
    [false, 'Maintainer', true, true, true, false],
    [false, 'Owner', true, true, true, true],
    [true, null, true, true, true, true],
    [true, 'Reporter', true, true, true, true],
  ])('admin %s, role %s: see %s, child %s, members %s, owners %s', (isAdmin, role, see, child, members, owners) => {
    expect(canSeeGroup(actor(isAdmin), role)).toBe(see);
    expect(canCreateChildGroup(actor(isAdmin), role)).toBe(child);
    expect(canManageMembers(actor(isAdmin), role)).toBe(members);
    expect(canManageOwners(actor(isAdmin), role)).toBe(owners);
  });
});

describe('membership writes and the Owner role (next null: a removal)', () => {
  it.each<[GroupRole | null, GroupRole | null, boolean, boolean]>([
    // current,   next,         touches, demotes
    ['Owner', null, true, true],
    ['Owner', 'Maintainer', true, true],
    ['Owner', 'Reporter', true, true],
    ['Owner', 'Owner', true, false],
    ['Maintainer', 'Owner', true, false],
    [null, 'Owner', true, false],
    ['Maintainer', null, false, false],
    ['Maintainer', 'Developer', false, false],
    [null, 'Reporter', false, false],
  ])('%s -> %s: touches %s, demotes %s', (current, next, touches, demotes) => {
    expect(touchesOwner(current, next)).toBe(touches);
    expect(demotesOwner(current, next)).toBe(demotes);
  });
});
