import type { SkillBindingDto } from './dto/skill-binding.dto';
import type { BindingRow } from './skill-bindings.repository';

export function toSkillBindingDto({ binding, skill }: BindingRow): SkillBindingDto {
  return {
    id: binding.id,
    skill_id: binding.skillId,
    name: skill.name,
    namespace: skill.namespace,
    is_public: skill.isPublic,
    target:
      binding.userId !== null
        ? { type: 'user', user_id: binding.userId }
        : { type: 'group', group_id: binding.groupId! },
    preload: binding.preload,
    exceptions: binding.exceptions.map((e) => ({ type: e.type, value: e.value })),
    created_by_user_id: binding.createdByUserId,
    created_at: binding.createdAt.toISOString(),
    updated_at: binding.updatedAt.toISOString(),
  };
}
