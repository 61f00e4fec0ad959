// Who may read a skill, and the role a user holds in a namespace: the access rules every lookup applies.
import { hasRole, highestRole, namespaceLineage } from '../groups/group-role';
import { ownValue } from './own-value';
import { DEFAULT_NAMESPACE, GroupRole, Identity, SkillFacts } from './resolution.types';

/** The highest direct role in `namespace` or any parent group (`a/b/c` inherits `a/b` and `a`). */
export function effectiveRole(identity: Identity, namespace: string): GroupRole | null {
  if (namespace === DEFAULT_NAMESPACE) return null;
  const roles: GroupRole[] = [];
  for (const group of namespaceLineage(namespace)) {
    const role = ownValue(identity.directRoles, group);
    if (role) roles.push(role);
  }
  return highestRole(roles);
}

/** Reporter+ in a group namespace; admins count as Reporter+ everywhere. Never true for `default`. */
export function isReporterIn(identity: Identity, namespace: string): boolean {
  if (namespace === DEFAULT_NAMESPACE) return false;
  return identity.isAdmin || hasRole(effectiveRole(identity, namespace), 'Reporter');
}

/** CONTRACT §2 read access. Says nothing about deletion: callers check that first. */
export function canRead(identity: Identity, skill: SkillFacts): boolean {
  if (identity.isAdmin || skill.isPublic) return true;
  if (skill.namespace === DEFAULT_NAMESPACE) return skill.ownerUserId === identity.userId;
  return isReporterIn(identity, skill.namespace);
}

/** The identity of a user the facts do not describe: a plain user without roles. */
export function plainIdentity(userId: number): Identity {
  return { userId, isAdmin: false, directRoles: {} };
}
