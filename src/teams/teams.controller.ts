import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { UserPrincipal } from '../auth/principal';
import { ApiErrors, JSON_BODY_ERRORS } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { TEAM_BODY_EXAMPLES, TeamBodyDto, TeamDto, TeamListDto, TeamListQuery } from './dto/team.dto';
import { TeamIdPipe } from './team-id.pipe';
import { TeamsService } from './teams.service';

@ApiTags('teams')
@ApiAuth()
@Controller('teams')
export class TeamsController {
  constructor(private readonly teams: TeamsService) {}

  @Post()
  @ApiOperation({ operationId: 'createTeam', summary: 'Create a team of 1-20 bots the caller may read' })
  @ApiBody({ type: TeamBodyDto, examples: TEAM_BODY_EXAMPLES })
  @ApiCreatedResponse({ type: TeamDto })
  @ApiErrors(
    'VALIDATION_FAILED',
    { code: 'FORBIDDEN', when: 'below Developer in the group namespace' },
    {
      code: 'NOT_FOUND',
      when: 'the namespace does not exist or the caller has no role there, or a `bot_id` names no bot the caller may read',
    },
    'NAME_TAKEN',
    ...JSON_BODY_ERRORS,
  )
  create(@CurrentUser() caller: UserPrincipal, @Body() body: TeamBodyDto): Promise<TeamDto> {
    return this.teams.create(caller, body);
  }

  @Get()
  @ApiOperation({ operationId: 'listTeams', summary: 'Teams the caller may read, by id' })
  @ApiOkResponse({ type: TeamListDto })
  @ApiErrors('VALIDATION_FAILED')
  list(@CurrentUser() caller: UserPrincipal, @Query() query: TeamListQuery): Promise<TeamListDto> {
    return this.teams.list(caller, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getTeam', summary: 'A team the caller may read' })
  @ApiErrors('NOT_FOUND')
  @ApiOkResponse({ type: TeamDto })
  get(@CurrentUser() caller: UserPrincipal, @Param('id', TeamIdPipe) id: number): Promise<TeamDto> {
    return this.teams.get(caller, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'replaceTeam',
    summary: 'Replace the writable body; the namespace and owner never change',
  })
  @ApiBody({ type: TeamBodyDto, examples: TEAM_BODY_EXAMPLES })
  @ApiErrors(
    'VALIDATION_FAILED',
    { code: 'FORBIDDEN', when: 'the caller may read the team but not change it' },
    {
      code: 'NOT_FOUND',
      when: 'no such team, or one the caller may not read; or an id of the body the caller may not read',
    },
    'NAME_TAKEN',
    ...JSON_BODY_ERRORS,
  )
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
  @ApiOperation({ operationId: 'deleteTeam', summary: 'Soft delete; tasks of the team keep its id' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors({ code: 'FORBIDDEN', when: 'the caller may read the team but not delete it' }, 'NOT_FOUND')
  remove(@CurrentUser() caller: UserPrincipal, @Param('id', TeamIdPipe) id: number): Promise<void> {
    return this.teams.remove(caller, id);
  }
}
