import { scopedFields } from '../scoped/scoped-resource.dto';
import type { SkillReach } from '../selection-facts/resolution-facts.repository';
import { pinnedVersion, refTo, SkillCatalog, StoredRef } from '../resolver';
import { GhostDto, GhostSkillRefDto } from './dto/ghost.dto';
import { GhostEntity } from './ghost.entity';

/** What the catalog must hold to show the stored refs of `ghosts`: their skills and pinned versions. */
export function storedRefsReach(ghosts: readonly GhostEntity[]): SkillReach {
  const refs = ghosts.flatMap((g) => [...Object.values(g.skillRefs), ...Object.values(g.preloadSkillRefs)]);
  return {
    names: [],
    personalOwners: [],
    namespaces: [],
    ids: refs.map((r) => r.skill_id),
    versions: refs.flatMap((r) => pinnedVersion(r) ?? []),
  };
}

/** The ref as it reads now; what is still known when its skill or pinned version is gone. */
export function toGhostSkillRefDto(ref: StoredRef, catalog: SkillCatalog): GhostSkillRefDto {
  const tag = ref.tag ?? null;
  const pinned = tag === null ? pinnedVersion(ref) : undefined;
  const skill = catalog.byId(ref.skill_id);
  if (!skill) {
    return {
      skill_id: ref.skill_id,
      namespace: null,
      is_public: null,
      version: pinned ?? null,
      content_hash: null,
      pinned: pinned !== undefined,
      tag,
      status: null,
    };
  }
  const outcome = refTo(skill, pinned, ref.tag);
  if (outcome.ok) {
    const { skill_id, namespace, is_public, version, content_hash, status } = outcome.ref;
    return { skill_id, namespace, is_public, version, content_hash, pinned: outcome.ref.pinned, tag, status };
  }
  // A pinned version that is gone or revoked, a tag that is gone, or no followable version left.
  const version = pinned !== undefined && Object.hasOwn(skill.versions, pinned) ? skill.versions[pinned] : undefined;
  return {
    skill_id: skill.id,
    namespace: skill.namespace,
    is_public: skill.isPublic,
    version: pinned ?? null,
    content_hash: null,
    pinned: pinned !== undefined,
    tag,
    status: version?.status ?? null,
  };
}

function toRefMap(refs: Record<string, StoredRef>, catalog: SkillCatalog): Record<string, GhostSkillRefDto> {
  return Object.fromEntries(Object.entries(refs).map(([name, ref]) => [name, toGhostSkillRefDto(ref, catalog)]));
}

export function toGhostDto(ghost: GhostEntity, catalog: SkillCatalog): GhostDto {
  return {
    ...scopedFields(ghost),
    skills: ghost.skills,
    preload_skills: ghost.preloadSkills,
    skill_refs: toRefMap(ghost.skillRefs, catalog),
    preload_skill_refs: toRefMap(ghost.preloadSkillRefs, catalog),
  };
}
