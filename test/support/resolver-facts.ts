// Builders of the resolver's plain facts, for the unit tables.
import type { GroupRole, Identity, SkillFacts } from '../../src/resolver';

/** A skill with `versions` versions (the last is the latest), content hashes named after both. */
export function skill(
  id: number,
  name: string,
  scope: { ns?: string; owner?: number; isPublic?: boolean },
  opts: { deleted?: boolean; versions?: number } = {},
): SkillFacts {
  const count = opts.versions ?? 1;
  const versions: SkillFacts['versions'] = {};
  for (let n = 1; n <= count; n++) versions[n] = { version: n, contentHash: `sha256:${id}-v${n}` };
  return {
    id,
    name,
    namespace: scope.ns ?? 'default',
    isPublic: scope.isPublic ?? false,
    ownerUserId: scope.owner ?? null,
    deleted: opts.deleted ?? false,
    latest: versions[count],
    versions,
  };
}

export function user(userId: number, directRoles: Record<string, GroupRole> = {}, isAdmin = false): Identity {
  return { userId, isAdmin, directRoles };
}
