import { Injectable } from '@nestjs/common';
import type { UserPrincipal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { Page, toPage } from '../common/http/pagination';
import { ScopedAccess } from '../groups/scoped-access.service';
import { BOT_NOT_FOUND } from '../bots/bots.service';
import { BotsRepository } from '../bots/bots.repository';
import { TeamBodyDto, TeamDto, TeamListQuery } from './dto/team.dto';
import { TeamMember } from './team.entity';
import { toTeamDto } from './team.mapper';
import { TeamsRepository } from './teams.repository';

export const TEAM_NOT_FOUND = 'Team not found';

@Injectable()
export class TeamsService {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly bots: BotsRepository,
    private readonly access: ScopedAccess,
  ) {}

  async create(caller: UserPrincipal, body: TeamBodyDto): Promise<TeamDto> {
    const namespace = await this.access.creatable(caller, body.namespace ?? undefined);
    const members = await this.requireBots(caller, body, []);
    // Null when a bot was deleted between the check and the write.
    const team = await this.teams.insertWithBots({ name: body.name, namespace, ownerUserId: caller.userId, members });
    if (!team) throw DomainError.notFound(BOT_NOT_FOUND);
    return toTeamDto(team);
  }

  async list(caller: UserPrincipal, query: TeamListQuery): Promise<Page<TeamDto>> {
    const filter = await this.access.listFilter(caller, query);
    const { limit } = filter;
    const rows = await this.teams.list(filter);
    return toPage(rows, limit, toTeamDto);
  }

  async get(caller: UserPrincipal, id: number): Promise<TeamDto> {
    return toTeamDto(await this.access.readable(caller, await this.teams.findActive(id), TEAM_NOT_FOUND));
  }

  async replace(caller: UserPrincipal, id: number, body: TeamBodyDto): Promise<TeamDto> {
    const team = await this.access.changeable(caller, await this.teams.findActive(id), TEAM_NOT_FOUND);
    this.access.sameNamespace(team, body.namespace ?? undefined);
    const members = await this.requireBots(
      caller,
      body,
      team.members.map((m) => m.bot_id),
    );
    const saved = await this.teams.replaceWithBots(team, { name: body.name, members });
    if (!saved) throw DomainError.notFound(BOT_NOT_FOUND);
    return toTeamDto(saved);
  }

  /** Soft delete, always allowed: tasks keep their `team_id` and resolve without the team's ghosts. */
  async remove(caller: UserPrincipal, id: number): Promise<void> {
    const team = await this.access.changeable(caller, await this.teams.findActive(id), TEAM_NOT_FOUND);
    await this.teams.softDelete(team);
  }

  /**
   * Every member must be an active bot; a bot not already in the team must be readable by the
   * caller (a missing or unreadable one answers like `GET /bots/{id}`). Bots already listed were
   * checked when added, so a Maintainer may edit a team whose bots they cannot all read.
   */
  private async requireBots(caller: UserPrincipal, body: TeamBodyDto, kept: number[]): Promise<TeamMember[]> {
    const ids = body.members.map((m) => m.bot_id);
    const found = new Map((await this.bots.findActiveByIds(ids)).map((b) => [b.id, b]));
    for (const id of ids) {
      const bot = found.get(id) ?? null;
      if (!bot || !kept.includes(id)) await this.access.readable(caller, bot, BOT_NOT_FOUND);
    }
    return ids.map((bot_id) => ({ bot_id }));
  }
}
