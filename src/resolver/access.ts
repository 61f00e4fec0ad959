// The access rules over the resolver's own facts: an Identity carries its direct roles, from which
// its role in any namespace follows; the rules themselves are those of src/access.
import { canRead as canReadScoped, effectiveRole, GroupRole, readsGroup } from '../access';
import { Identity, SkillFacts } from './resolution.types';

/**
 * The identity's effective role in `namespace`. Admins read everything whatever their role, so
 * theirs is not worked out: an admin's checks, once per selection, allocate nothing.
 */
function roleOf(identity: Identity, namespace: string): GroupRole | null {
  return identity.isAdmin ? null : effectiveRole(identity.directRoles, namespace);
}

/** Reporter+ in a group namespace; admins count as Reporter+ everywhere. Never true for `default`. */
export function isReporterIn(identity: Identity, namespace: string): boolean {
  return readsGroup(identity, namespace, roleOf(identity, namespace));
}

/** Read access. Says nothing about deletion: callers check that first. */
export function canRead(identity: Identity, skill: SkillFacts): boolean {
  return canReadScoped(identity, skill, roleOf(identity, skill.namespace));
}

/** The identity of a user the facts do not describe: a plain user without roles. */
export function plainIdentity(userId: number): Identity {
  return { userId, isAdmin: false, directRoles: {} };
}
