// Group roles and namespace names: plain rules, shared by every feature that checks access.
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

export const DEFAULT_NAMESPACE = 'default';
export const RESERVED_SEGMENTS: readonly string[] = ['default', 'public', 'api', 'admin'];
export const MAX_GROUP_DEPTH = 3;
const SEGMENT = /^[a-z0-9-]{1,64}$/;

/** Every rule a group name breaks (empty when it is valid). */
export function groupNameProblems(name: string): string[] {
  const segments = name.split('/');
  const problems: string[] = [];
  if (segments.length > MAX_GROUP_DEPTH) problems.push(`name must have at most ${MAX_GROUP_DEPTH} segments`);
  for (const segment of segments) {
    if (!SEGMENT.test(segment)) {
      problems.push(`name segment "${segment}" must be 1-64 characters of a-z, 0-9 and -`);
    } else if (RESERVED_SEGMENTS.includes(segment)) {
      problems.push(`name segment "${segment}" is reserved`);
    }
  }
  return problems;
}

/** `a/b/c` -> [`a`, `a/b`, `a/b/c`]: the groups whose roles hold in `name`. */
export function namespaceLineage(name: string): string[] {
  const segments = name.split('/');
  return segments.map((_, i) => segments.slice(0, i + 1).join('/'));
}

export function parentName(name: string): string | null {
  const at = name.lastIndexOf('/');
  return at < 0 ? null : name.slice(0, at);
}
