// Every entity, in one list shared by the app and the migration CLI.
import { AuditEventEntity } from '../audit/audit-event.entity';
import { BotEntity } from '../bots/bot.entity';
import { GhostEntity } from '../ghosts/ghost.entity';
import { SkillSourceEntity } from '../git-sources/skill-source.entity';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import { BackgroundExecutionEntity } from '../tasks/background-execution.entity';
import { TaskTokenEntity } from '../tasks/task-token.entity';
import { TaskEntity } from '../tasks/task.entity';
import { TeamEntity } from '../teams/team.entity';
import { GroupMemberEntity } from '../groups/group-member.entity';
import { GroupEntity } from '../groups/group.entity';
import { SkillBindingEntity } from '../skill-bindings/skill-binding.entity';
import { SkillSearchEntity } from '../skills/search/skill-search.entity';
import { SkillBlobEntity } from '../storage/skill-blob.entity';
import { SkillTagEntity } from '../skills/skill-tag.entity';
import { SkillVersionEntity } from '../skills/skill-version.entity';
import { SkillEntity } from '../skills/skill.entity';
import { ApiKeyEntity } from '../users/api-key.entity';
import { UserEntity } from '../users/user.entity';

export const ENTITIES = [
  UserEntity,
  ApiKeyEntity,
  GroupEntity,
  GroupMemberEntity,
  SkillEntity,
  SkillVersionEntity,
  SkillTagEntity,
  SkillBlobEntity,
  SkillSearchEntity,
  GhostEntity,
  BotEntity,
  TeamEntity,
  TaskEntity,
  SubscriptionEntity,
  BackgroundExecutionEntity,
  TaskTokenEntity,
  AuditEventEntity,
  SkillBindingEntity,
  SkillSourceEntity,
];
