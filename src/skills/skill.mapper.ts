import { ManifestDto, SkillDto, VersionDto, VersionSourceDto } from './dto/skill.dto';
import { SkillVersionEntity } from './skill-version.entity';
import { SkillEntity } from './skill.entity';

export function toVersionDto(v: SkillVersionEntity): VersionDto {
  return {
    version: v.version,
    content_hash: v.contentHash,
    revision: v.revision,
    size: v.size,
    file_count: v.fileCount,
    ...policyOf(v),
    created_at: v.createdAt.toISOString(),
    status: v.status,
    status_message: v.statusMessage,
    status_changed_at: v.statusChangedAt?.toISOString() ?? null,
    source: sourceOf(v),
  };
}

/** docs/publishing.md#provenance: null for a version that was uploaded. */
export function sourceOf(v: SkillVersionEntity): VersionSourceDto | null {
  const s = v.source;
  return s ? { type: s.type, url: s.url, ref: s.ref, commit: s.commit, path: s.path } : null;
}

export function toSkillDto(skill: SkillEntity, latest: SkillVersionEntity, tags: Record<string, number>): SkillDto {
  return {
    id: skill.id,
    name: skill.name,
    namespace: skill.namespace,
    is_public: skill.isPublic,
    owner_user_id: skill.ownerUserId,
    description: skill.description,
    latest_version: toVersionDto(latest),
    tags: { ...tags },
    created_at: skill.createdAt.toISOString(),
    updated_at: skill.updatedAt.toISOString(),
  };
}

export function toManifestDto(skill: SkillEntity, v: SkillVersionEntity): ManifestDto {
  return {
    skill_id: skill.id,
    name: skill.name,
    namespace: skill.namespace,
    is_public: skill.isPublic,
    version: v.version,
    content_hash: v.contentHash,
    revision: v.revision,
    files: v.manifest.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256, mode: f.mode })),
    frontmatter: v.frontmatter,
    ...policyOf(v),
    skill_md: v.skillMd,
    source: sourceOf(v),
  };
}

/** docs/packages.md#tool-policy-fields, as stored with the version. */
export function policyOf(v: SkillVersionEntity): Pick<VersionDto, 'allowed_tools' | 'requires'> {
  return {
    allowed_tools: v.allowedTools === null ? null : [...v.allowedTools],
    requires: { bins: [...v.requires.bins], env: [...v.requires.env] },
  };
}
