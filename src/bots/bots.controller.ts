import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { UserPrincipal } from '../auth/principal';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { BotIdPipe } from './bot-id.pipe';
import { BotsService } from './bots.service';
import { BotBodyDto, BotDto, BotListDto, BotListQuery } from './dto/bot.dto';

@ApiTags('bots')
@ApiAuth()
@Controller('bots')
export class BotsController {
  constructor(private readonly bots: BotsService) {}

  @Post()
  @ApiOperation({ summary: 'Create a bot on a ghost the caller may read' })
  @ApiCreatedResponse({ type: BotDto })
  create(@CurrentUser() caller: UserPrincipal, @Body() body: BotBodyDto): Promise<BotDto> {
    return this.bots.create(caller, body);
  }

  @Get()
  @ApiOperation({ summary: 'Bots the caller may read, by id' })
  @ApiOkResponse({ type: BotListDto })
  list(@CurrentUser() caller: UserPrincipal, @Query() query: BotListQuery): Promise<BotListDto> {
    return this.bots.list(caller, query);
  }

  @Get(':id')
  @ApiOkResponse({ type: BotDto })
  get(@CurrentUser() caller: UserPrincipal, @Param('id', BotIdPipe) id: number): Promise<BotDto> {
    return this.bots.get(caller, id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Replace the writable body; the namespace and owner never change' })
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
  @ApiOperation({ summary: 'Soft delete; 409 IN_USE while an active team lists the bot' })
  @ApiNoContentResponse()
  remove(@CurrentUser() caller: UserPrincipal, @Param('id', BotIdPipe) id: number): Promise<void> {
    return this.bots.remove(caller, id);
  }
}
