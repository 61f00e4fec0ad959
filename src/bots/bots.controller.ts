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
import { BotIdPipe } from './bot-id.pipe';
import { BotsService } from './bots.service';
import { BOT_BODY_EXAMPLES, BotBodyDto, BotDto, BotListDto, BotListQuery } from './dto/bot.dto';

@ApiTags('bots')
@ApiAuth()
@Controller('bots')
export class BotsController {
  constructor(private readonly bots: BotsService) {}

  @Post()
  @ApiOperation({ operationId: 'createBot', summary: 'Create a bot on a ghost the caller may read' })
  @ApiBody({ type: BotBodyDto, examples: BOT_BODY_EXAMPLES })
  @ApiCreatedResponse({ type: BotDto })
  @ApiErrors(
    'VALIDATION_FAILED',
    { code: 'FORBIDDEN', when: 'below Developer in the group namespace' },
    {
      code: 'NOT_FOUND',
      when: 'the namespace does not exist or the caller has no role there, or `ghost_id` names no ghost the caller may read',
    },
    'NAME_TAKEN',
    ...JSON_BODY_ERRORS,
  )
  create(@CurrentUser() caller: UserPrincipal, @Body() body: BotBodyDto): Promise<BotDto> {
    return this.bots.create(caller, body);
  }

  @Get()
  @ApiOperation({ operationId: 'listBots', summary: 'Bots the caller may read, by id' })
  @ApiOkResponse({ type: BotListDto })
  @ApiErrors('VALIDATION_FAILED')
  list(@CurrentUser() caller: UserPrincipal, @Query() query: BotListQuery): Promise<BotListDto> {
    return this.bots.list(caller, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getBot', summary: 'A bot the caller may read' })
  @ApiErrors('NOT_FOUND')
  @ApiOkResponse({ type: BotDto })
  get(@CurrentUser() caller: UserPrincipal, @Param('id', BotIdPipe) id: number): Promise<BotDto> {
    return this.bots.get(caller, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'replaceBot',
    summary: 'Replace the writable body; the namespace and owner never change',
  })
  @ApiBody({ type: BotBodyDto, examples: BOT_BODY_EXAMPLES })
  @ApiErrors(
    'VALIDATION_FAILED',
    { code: 'FORBIDDEN', when: 'the caller may read the bot but not change it' },
    {
      code: 'NOT_FOUND',
      when: 'no such bot, or one the caller may not read; or an id of the body the caller may not read',
    },
    'NAME_TAKEN',
    ...JSON_BODY_ERRORS,
  )
  @ApiOkResponse({ type: BotDto })
  replace(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', BotIdPipe) id: number,
    @Body() body: BotBodyDto,
  ): Promise<BotDto> {
    return this.bots.replace(caller, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteBot', summary: 'Soft delete; 409 IN_USE while an active team lists the bot' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors({ code: 'FORBIDDEN', when: 'the caller may read the bot but not delete it' }, 'NOT_FOUND', {
    code: 'IN_USE',
    when: 'an active team lists the bot (`details.teams`)',
  })
  remove(@CurrentUser() caller: UserPrincipal, @Param('id', BotIdPipe) id: number): Promise<void> {
    return this.bots.remove(caller, id);
  }
}
