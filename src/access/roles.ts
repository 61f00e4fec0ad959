// A user's role in the service (admin or user); group roles: their rank, and the role a user holds
// in a namespace from their direct memberships.
import { DEFAULT_NAMESPACE, namespaceLineage } from './namespaces';

export type UserRole = 'admin' | 'user';
export const USER_ROLES: readonly UserRole[] = ['admin', 'user'];

export const GROUP_ROLES = ['Owner', 'Maintainer', 'Developer', 'Reporter'] as const;
export type GroupRole = (typeof GROUP_ROLES)[number];

const RANK: Record<GroupRole, number> = { Owner: 4, Maintainer: 3, Developer: 2, Reporter: 1 };

export function roleRank(role: GroupRole | null | undefined): number {
  return role ? RANK[role] : 0;
}

/** True when `role` is at least `needed`. */
export function hasRole(role: GroupRole | null | undefined, needed: GroupRole): boolean {
  return roleRank(role) >= RANK[needed];
}

/** The highest of several roles (a parent's role holds in its children). */
export function highestRole(roles: Iterable<GroupRole>): GroupRole | null {
  let best: GroupRole | null = null;
  for (const role of roles) if (roleRank(role) > roleRank(best)) best = role;
  return best;
}

/**
 * The highest direct role in `namespace` or any parent group (`a/b/c` inherits `a/b` and `a`);
 * null in `default`. The map is keyed by group names, which are data: a group named like an
 * Object member must never read Object.prototype.
 */
export function effectiveRole(directRoles: Readonly<Record<string, GroupRole>>, namespace: string): GroupRole | null {
  if (namespace === DEFAULT_NAMESPACE) return null;
  const roles: GroupRole[] = [];
  for (const group of namespaceLineage(namespace)) {
    if (Object.hasOwn(directRoles, group)) roles.push(directRoles[group]);
  }
  return highestRole(roles);
}
