import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { UserPrincipal } from '../auth/principal';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { TeamBodyDto, TeamDto, TeamListDto, TeamListQuery } from './dto/team.dto';
import { TeamIdPipe } from './team-id.pipe';
import { TeamsService } from './teams.service';

@ApiTags('teams')
@ApiAuth()
@Controller('teams')
export class TeamsController {
  constructor(private readonly teams: TeamsService) {}

  @Post()
  @ApiOperation({ summary: 'Create a team of 1-20 bots the caller may read' })
  @ApiCreatedResponse({ type: TeamDto })
  create(@CurrentUser() caller: UserPrincipal, @Body() body: TeamBodyDto): Promise<TeamDto> {
    return this.teams.create(caller, body);
  }

  @Get()
  @ApiOperation({ summary: 'Teams the caller may read, by id' })
  @ApiOkResponse({ type: TeamListDto })
  list(@CurrentUser() caller: UserPrincipal, @Query() query: TeamListQuery): Promise<TeamListDto> {
    return this.teams.list(caller, query);
  }

  @Get(':id')
  @ApiOkResponse({ type: TeamDto })
  get(@CurrentUser() caller: UserPrincipal, @Param('id', TeamIdPipe) id: number): Promise<TeamDto> {
    return this.teams.get(caller, id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Replace the writable body; the namespace and owner never change' })
  @ApiOkResponse({ type: TeamDto })
  replace(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', TeamIdPipe) id: number,
    @Body() body: TeamBodyDto,
  ): Promise<TeamDto> {
    return this.teams.replace(caller, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Soft delete; tasks of the team keep its id' })
  @ApiNoContentResponse()
  remove(@CurrentUser() caller: UserPrincipal, @Param('id', TeamIdPipe) id: number): Promise<void> {
    return this.teams.remove(caller, id);
  }
}
