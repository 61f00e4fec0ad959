// docs/resolution.md#how-a-name-becomes-a-ref: how one name, explicit selection or stored ref becomes a SkillRef.
import { canRead, isReporterIn } from './access';
import { SkillCatalog, SkillScope } from './skill-catalog';
import { pinnedRefusal } from './lifecycle';
import { ownValue } from './own-value';
import { DEFAULT_NAMESPACE } from '../access';
import {
  ExplicitSelection,
  Identity,
  RefOutcome,
  SkillFacts,
  StoredRef,
  UnresolvedReason,
  VersionFacts,
} from './resolution.types';

/**
 * A ref pins only when it carries a `version` and `pinned` is not `false` (docs/api.md#resources), so a ghost
 * read and written back unchanged keeps its refs unpinned. Stored refs follow the same rule: they are
 * written as `{skill_id, version, pinned: true}` when pinned and `{skill_id}` otherwise, and a stored
 * `pinned: true` without a version follows the latest.
 */
export function pinnedVersion(ref: { version?: number; pinned?: boolean }): number | undefined {
  return ref.version !== undefined && ref.pinned !== false ? ref.version : undefined;
}

function fail(reason: UnresolvedReason): RefOutcome {
  return { ok: false, reason };
}

/**
 * The version a ref reaches (docs/resolution.md#version-lifecycle): the one `tag` points at, else
 * `pinned` when that version exists and is not revoked, else the latest active-or-deprecated one.
 */
function versionOf(
  skill: SkillFacts,
  pinned: number | undefined,
  tag: string | undefined,
): VersionFacts | UnresolvedReason {
  if (tag !== undefined) {
    const tagged = ownValue(skill.tags, tag);
    const version = tagged === undefined ? undefined : ownValue(skill.versions, tagged);
    return version ?? 'TAG_NOT_FOUND';
  }
  if (pinned !== undefined) {
    const version = ownValue(skill.versions, pinned);
    if (!version) return 'VERSION_NOT_FOUND';
    return pinnedRefusal(version.status) ?? version;
  }
  return skill.latest ?? 'NO_ACTIVE_VERSION';
}

/**
 * The ref to `skill` at its latest version, at `pinned`, or at the version `tag` points at (a tag
 * wins: a ref never pins and follows at once). The ref is frozen: answers share it (a team's
 * ghosts decide once for all its tasks), with its texts written once.
 */
export function refTo(skill: SkillFacts, pinned?: number, tag?: string): RefOutcome {
  const version = versionOf(skill, tag === undefined ? pinned : undefined, tag);
  if (typeof version === 'string') return fail(version);
  return {
    ok: true,
    skill,
    ref: Object.freeze({
      skill_id: skill.id,
      namespace: skill.namespace,
      is_public: skill.isPublic,
      version: version.version,
      content_hash: version.contentHash,
      pinned: tag === undefined && pinned !== undefined,
      tag: tag ?? null,
      status: version.status,
      allowed_tools: version.allowedTools,
      requires: version.requires,
    }),
  };
}

/**
 * Name lookup acting as `identity` in `namespace`: their own personal skill, else the group's skill
 * when they are Reporter+ there, else the public skill. First hit wins; deleted rows are never hits.
 */
export function lookupByName(catalog: SkillCatalog, identity: Identity, namespace: string, name: string): RefOutcome {
  const skill =
    catalog.activePersonal(identity.userId, name) ??
    (isReporterIn(identity, namespace) ? catalog.activeInGroup(namespace, name) : undefined) ??
    catalog.activePublic(name);
  return skill ? refTo(skill) : fail('NOT_FOUND');
}

/** The scope an explicit selection names when `identity` makes it: `default` is their own. */
export function selectionScope(identity: Identity, selection: ExplicitSelection): SkillScope {
  // `is_public` decides alone: a public selection's namespace is not consulted.
  if (selection.is_public) return { kind: 'public' };
  if (selection.namespace === DEFAULT_NAMESPACE) return { kind: 'personal', ownerUserId: identity.userId };
  return { kind: 'group', namespace: selection.namespace };
}

/** Explicit selection: exactly the named scope, never another; `version` (subscriptions) pins. */
export function resolveExplicit(catalog: SkillCatalog, identity: Identity, selection: ExplicitSelection): RefOutcome {
  if (selection.malformed) return fail('NOT_FOUND');
  const scope = selectionScope(identity, selection);
  // Checked before existence so that a non-member learns nothing about the group's skills.
  if (scope.kind === 'group' && !isReporterIn(identity, scope.namespace)) return fail('FORBIDDEN');
  const skill = catalog.activeIn(scope, selection.name);
  if (!skill) return fail(catalog.holdsOnlyDeleted(scope, selection.name) ? 'DELETED' : 'NOT_FOUND');
  return refTo(skill, selection.version, selection.tag);
}

/**
 * A stored ref, re-checked at every read in this order: exists, not deleted, same name, readable by
 * `identity`, pinned version exists. A failure stands: it is never replaced by a name lookup.
 */
export function checkStoredRef(catalog: SkillCatalog, identity: Identity, name: string, ref: StoredRef): RefOutcome {
  const skill = catalog.byId(ref.skill_id);
  if (!skill) return fail('NOT_FOUND');
  if (skill.deleted) return fail('DELETED');
  if (skill.name !== name) return fail('NAME_MISMATCH');
  if (!canRead(identity, skill)) return fail('FORBIDDEN');
  return refTo(skill, pinnedVersion(ref), ref.tag);
}
