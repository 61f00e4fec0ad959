import { GroupDto } from './dto/group.dto';
import { GroupEntity } from './group.entity';
import { GroupRole } from '../access';

export function toGroupDto(group: GroupEntity, role: GroupRole | null): GroupDto {
  return { id: group.id, name: group.name, parent_id: group.parentId, my_role: role };
}
