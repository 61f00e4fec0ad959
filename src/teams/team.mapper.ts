import { scopedFields } from '../scoped/scoped-resource.dto';
import { TeamDto } from './dto/team.dto';
import { TeamEntity } from './team.entity';

export function toTeamDto(team: TeamEntity): TeamDto {
  return {
    ...scopedFields(team),
    members: team.members.map((m) => ({ bot_id: m.bot_id })),
  };
}
