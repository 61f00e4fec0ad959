import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { UserPrincipal } from '../auth/principal';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { GhostBodyDto, GhostDto, GhostListDto, GhostListQuery } from './dto/ghost.dto';
import { GhostIdPipe } from './ghost-id.pipe';
import { GhostsService } from './ghosts.service';

@ApiTags('ghosts')
@ApiAuth()
@Controller('ghosts')
export class GhostsController {
  constructor(private readonly ghosts: GhostsService) {}

  @Post()
  @ApiOperation({
    summary: 'Create a ghost; names without a ref are looked up as the creator (400 SKILL_SELECTION_INVALID)',
  })
  @ApiCreatedResponse({ type: GhostDto })
  create(@CurrentUser() caller: UserPrincipal, @Body() body: GhostBodyDto): Promise<GhostDto> {
    return this.ghosts.create(caller, body);
  }

  @Get()
  @ApiOperation({ summary: 'Ghosts the caller may read, by id' })
  @ApiOkResponse({ type: GhostListDto })
  list(@CurrentUser() caller: UserPrincipal, @Query() query: GhostListQuery): Promise<GhostListDto> {
    return this.ghosts.list(caller, query);
  }

  @Get(':id')
  @ApiOkResponse({ type: GhostDto })
  get(@CurrentUser() caller: UserPrincipal, @Param('id', GhostIdPipe) id: number): Promise<GhostDto> {
    return this.ghosts.get(caller, id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Replace the writable body; the namespace and owner never change' })
  @ApiOkResponse({ type: GhostDto })
  replace(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', GhostIdPipe) id: number,
    @Body() body: GhostBodyDto,
  ): Promise<GhostDto> {
    return this.ghosts.replace(caller, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Soft delete; 409 IN_USE while an active bot uses the ghost' })
  @ApiNoContentResponse()
  remove(@CurrentUser() caller: UserPrincipal, @Param('id', GhostIdPipe) id: number): Promise<void> {
    return this.ghosts.remove(caller, id);
  }
}
