import { TeamDto } from './dto/team.dto';
import { TeamEntity } from './team.entity';

export function toTeamDto(team: TeamEntity): TeamDto {
  return {
    id: team.id,
    name: team.name,
    namespace: team.namespace,
    owner_user_id: team.ownerUserId,
    members: team.members.map((m) => ({ bot_id: m.bot_id })),
    created_at: team.createdAt.toISOString(),
    updated_at: team.updatedAt.toISOString(),
  };
}
