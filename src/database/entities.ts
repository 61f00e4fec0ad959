// Every entity, in one list shared by the app and the migration CLI.
import { GroupMemberEntity } from '../groups/group-member.entity';
import { GroupEntity } from '../groups/group.entity';
import { SkillBlobEntity } from '../skills/skill-blob.entity';
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
  SkillBlobEntity,
];
