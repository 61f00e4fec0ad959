import { scopedFields } from '../scoped/scoped-resource.dto';
import type { ExplicitSelection } from '../resolver';
import { SubscriptionDto, SubscriptionSkillRefDto } from './dto/subscription.dto';
import { SubscriptionEntity } from './subscription.entity';

/** The stored form: `version` only when pinned, `tag` only when following one (null means not sent). */
export function toExplicitSelection(ref: SubscriptionSkillRefDto): ExplicitSelection {
  const selection: ExplicitSelection = { name: ref.name, namespace: ref.namespace, is_public: ref.is_public };
  if (ref.version != null) selection.version = ref.version;
  if (ref.tag != null) selection.tag = ref.tag;
  return selection;
}

function toSkillRefDto(s: ExplicitSelection): SubscriptionSkillRefDto {
  const dto: SubscriptionSkillRefDto = { name: s.name, namespace: s.namespace, is_public: s.is_public };
  if (s.version !== undefined) dto.version = s.version;
  if (s.tag !== undefined) dto.tag = s.tag;
  return dto;
}

export function toSubscriptionDto(subscription: SubscriptionEntity): SubscriptionDto {
  return {
    ...scopedFields(subscription),
    team_id: subscription.teamId,
    skill_refs: subscription.skillRefs.map(toSkillRefDto),
  };
}
