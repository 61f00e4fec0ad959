// The version lifecycle as plain rules: which version a skill's `latest` is, which status changes
// are allowed, where a tag may point, and what a pinned ref to a version of each status resolves to.
// The service loads the rows; these functions decide (docs/resolution.md#version-lifecycle).

export const VERSION_STATUSES = ['active', 'deprecated', 'yanked', 'revoked'] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];

export const MAX_STATUS_MESSAGE_CHARS = 500;

/** A tag name: lower-case, starting with a letter, at most 32 characters. */
export const TAG_PATTERN = /^[a-z][a-z0-9.-]{0,31}$/;
/** The name every skill answers to without a tag row: the newest version it may follow. */
export const RESERVED_TAG = 'latest';

/** Statuses that unpinned refs, name lookups and bindings may follow. */
export function isFollowable(status: VersionStatus): boolean {
  return status === 'active' || status === 'deprecated';
}

/**
 * The newest version that is active or deprecated, whatever order the versions come in; undefined
 * when every version is yanked or revoked (such a skill resolves to NO_ACTIVE_VERSION).
 */
export function latestFollowable<V extends { version: number; status: VersionStatus }>(
  versions: Iterable<V>,
): V | undefined {
  let latest: V | undefined;
  for (const candidate of versions) {
    if (isFollowable(candidate.status) && (!latest || candidate.version > latest.version)) latest = candidate;
  }
  return latest;
}

export type StatusChange =
  | { ok: true; changed: boolean; dropsTags: string[] }
  | { ok: false; code: 'VERSION_REVOKED' }
  | { ok: false; code: 'VERSION_TAGGED'; tags: string[] };

/**
 * A PATCH of a version's status. Revoked is final, even to itself. Yanking a version that tags
 * point at is refused until the tags move (so no tag ever points at a yanked version); revoking
 * is the kill switch and is never refused: its tags go with it. Any other change is allowed,
 * yanked back to active or deprecated included.
 */
export function changeStatus(from: VersionStatus, to: VersionStatus, tagsOnVersion: readonly string[]): StatusChange {
  if (from === 'revoked') return { ok: false, code: 'VERSION_REVOKED' };
  const tags = [...tagsOnVersion].sort();
  if (to === 'revoked') return { ok: true, changed: true, dropsTags: tags };
  if (to === 'yanked' && from !== 'yanked' && tags.length > 0) return { ok: false, code: 'VERSION_TAGGED', tags };
  return { ok: true, changed: from !== to, dropsTags: [] };
}

/** Why a tag name is refused, or null when it is a valid name a caller may set. */
export function tagNameProblem(tag: string): string | null {
  if (!TAG_PATTERN.test(tag)) return 'tag must match [a-z][a-z0-9.-]{0,31}';
  if (tag === RESERVED_TAG)
    return `"${RESERVED_TAG}" is reserved: every skill follows its latest version without a tag`;
  return null;
}

/** A tag may point only at a version refs may follow. */
export function tagTargetRefusal(status: VersionStatus): 'VERSION_YANKED' | null {
  return isFollowable(status) ? null : 'VERSION_YANKED';
}

/**
 * A ref pinned to a version: yanked and deprecated versions still resolve (a lockfile keeps
 * working, and the ref's `status` says so); a revoked version does not.
 */
export function pinnedRefusal(status: VersionStatus): 'REVOKED' | null {
  return status === 'revoked' ? 'REVOKED' : null;
}

/** Downloads, manifests and single files of a revoked version are gone for everyone but admins. */
export function bytesGone(status: VersionStatus, isAdmin: boolean): boolean {
  return status === 'revoked' && !isAdmin;
}
