// Who may see a group and manage its members. Roles are effective roles (a parent's role holds in
// its children); the last direct Owner is kept by the service, which counts them under a lock.
import { GroupRole, hasRole } from './roles';
import { Actor } from './scope-access';

/** A member (any effective role) or an admin; everyone else gets 404 for the group. */
export function canSeeGroup(actor: Actor, role: GroupRole | null): boolean {
  return actor.isAdmin || role !== null;
}

/** A child group needs Maintainer+ on its parent. */
export function canCreateChildGroup(actor: Actor, parentRole: GroupRole | null): boolean {
  return actor.isAdmin || hasRole(parentRole, 'Maintainer');
}

/** Maintainer+ adds, changes and removes members below Owner. */
export function canManageMembers(actor: Actor, role: GroupRole | null): boolean {
  return actor.isAdmin || hasRole(role, 'Maintainer');
}

/** Only Owners grant, change or remove the Owner role. */
export function canManageOwners(actor: Actor, role: GroupRole | null): boolean {
  return actor.isAdmin || role === 'Owner';
}

/** A membership write that grants, changes or removes the Owner role (`next` null: a removal). */
export function touchesOwner(current: GroupRole | null, next: GroupRole | null): boolean {
  return current === 'Owner' || next === 'Owner';
}

/** A membership write that takes the Owner role from someone (`next` null: the member is removed). */
export function demotesOwner(current: GroupRole | null, next: GroupRole | null): boolean {
  return current === 'Owner' && next !== 'Owner';
}
