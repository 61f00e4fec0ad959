// Builders of the resolver's plain facts, for the unit tables.
import type { ToolPolicy } from '../../src/policy';
import type { GroupRole } from '../../src/access';
import type { Identity, SkillFacts } from '../../src/resolver';

/**
 * A skill with `versions` versions (the last is the latest), content hashes named after both; each
 * version's tool policy from `policy` (default: no allowed-tools key, nothing required).
 */
export function skill(
  id: number,
  name: string,
  scope: { ns?: string; owner?: number; isPublic?: boolean },
  opts: { deleted?: boolean; versions?: number; policy?: (version: number) => Partial<ToolPolicy> } = {},
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
    };
  }
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
