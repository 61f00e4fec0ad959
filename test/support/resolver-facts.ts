// Builders of the resolver's plain facts, for the unit tables.
import type { ToolPolicy } from '../../src/policy';
import type { GroupRole } from '../../src/access';
import { latestFollowable, type Identity, type SkillFacts, type VersionStatus } from '../../src/resolver';

/**
 * A skill with `versions` versions (the last is the latest), content hashes named after both; each
 * version's tool policy from `policy` (default: no allowed-tools key, nothing required); each
 * version's status from `statuses` (default active; `latest` is then the newest followable one),
 * and `tags` (version by tag name).
 */
export function skill(
  id: number,
  name: string,
  scope: { ns?: string; owner?: number; isPublic?: boolean },
  opts: {
    deleted?: boolean;
    versions?: number;
    policy?: (version: number) => Partial<ToolPolicy>;
    statuses?: Record<number, VersionStatus>;
    tags?: Record<string, number>;
  } = {},
): SkillFacts {
  const count = opts.versions ?? 1;
  const versions: SkillFacts['versions'] = {};
  for (let n = 1; n <= count; n++) {
    const policy = opts.policy?.(n) ?? {};
    versions[n] = {
      version: n,
      contentHash: `sha256:${id}-v${n}`,
      allowedTools: policy.allowed_tools ?? null,
      requires: policy.requires ?? { bins: [], env: [] },
      status: opts.statuses?.[n] ?? 'active',
    };
  }
  return {
    id,
    name,
    namespace: scope.ns ?? 'default',
    isPublic: scope.isPublic ?? false,
    ownerUserId: scope.owner ?? null,
    deleted: opts.deleted ?? false,
    latest: latestFollowable(Object.values(versions)) ?? null,
    versions,
    tags: { ...opts.tags },
  };
}

export function user(userId: number, directRoles: Record<string, GroupRole> = {}, isAdmin = false): Identity {
  return { userId, isAdmin, directRoles };
}
