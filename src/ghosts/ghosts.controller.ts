import { GhostWriteRoute, NewRowRoute } from '../cache/write-invalidation.interceptor';
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
import {
  GHOST_BODY_EXAMPLES,
  GHOST_REPLACE_EXAMPLES,
  GhostBodyDto,
  GhostDto,
  GhostListDto,
  GhostListQuery,
} from './dto/ghost.dto';
import { GhostIdPipe } from './ghost-id.pipe';
import { GhostsService } from './ghosts.service';

@ApiTags('ghosts')
@ApiAuth()
@Controller('ghosts')
export class GhostsController {
  constructor(private readonly ghosts: GhostsService) {}

  @Post()
  @NewRowRoute()
  @ApiOperation({
    operationId: 'createGhost',
    summary: 'Create a ghost; names without a ref are looked up as the creator',
  })
  @ApiBody({ type: GhostBodyDto, examples: GHOST_BODY_EXAMPLES })
  @ApiCreatedResponse({ type: GhostDto })
  @ApiErrors(
    'VALIDATION_FAILED',
    'SKILL_SELECTION_INVALID',
    { code: 'FORBIDDEN', when: 'below Developer in the group namespace' },
    { code: 'NOT_FOUND', when: 'the namespace does not exist or the caller has no role there' },
    'NAME_TAKEN',
    ...JSON_BODY_ERRORS,
  )
  create(@CurrentUser() caller: UserPrincipal, @Body() body: GhostBodyDto): Promise<GhostDto> {
    return this.ghosts.create(caller, body);
  }

  @Get()
  @ApiOperation({ operationId: 'listGhosts', summary: 'Ghosts the caller may read, by id' })
  @ApiOkResponse({ type: GhostListDto })
  @ApiErrors('VALIDATION_FAILED')
  list(@CurrentUser() caller: UserPrincipal, @Query() query: GhostListQuery): Promise<GhostListDto> {
    return this.ghosts.list(caller, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getGhost', summary: 'A ghost the caller may read' })
  @ApiErrors('NOT_FOUND')
  @ApiOkResponse({ type: GhostDto })
  get(@CurrentUser() caller: UserPrincipal, @Param('id', GhostIdPipe) id: number): Promise<GhostDto> {
    return this.ghosts.get(caller, id);
  }

  @Put(':id')
  @GhostWriteRoute()
  @ApiOperation({
    operationId: 'replaceGhost',
    summary: 'Replace the writable body; the namespace and owner never change',
  })
  @ApiBody({ type: GhostBodyDto, examples: GHOST_REPLACE_EXAMPLES })
  @ApiErrors(
    'VALIDATION_FAILED',
    'SKILL_SELECTION_INVALID',
    { code: 'FORBIDDEN', when: 'the caller may read the ghost but not change it' },
    { code: 'NOT_FOUND', when: 'no such ghost, or one the caller may not read' },
    'NAME_TAKEN',
    ...JSON_BODY_ERRORS,
  )
  @ApiOkResponse({ type: GhostDto })
  replace(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', GhostIdPipe) id: number,
    @Body() body: GhostBodyDto,
  ): Promise<GhostDto> {
    return this.ghosts.replace(caller, id, body);
  }

  @Delete(':id')
  @GhostWriteRoute()
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteGhost', summary: 'Soft delete; 409 IN_USE while an active bot uses the ghost' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors({ code: 'FORBIDDEN', when: 'the caller may read the ghost but not delete it' }, 'NOT_FOUND', {
    code: 'IN_USE',
    when: 'an active bot uses the ghost (`details.bots`)',
  })
  remove(@CurrentUser() caller: UserPrincipal, @Param('id', GhostIdPipe) id: number): Promise<void> {
    return this.ghosts.remove(caller, id);
  }
}
