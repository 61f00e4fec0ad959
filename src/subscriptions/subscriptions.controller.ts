import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { UserPrincipal } from '../auth/principal';
import { ApiAuth } from '../common/http/api-auth.decorator';
import {
  SubscriptionBodyDto,
  SubscriptionDto,
  SubscriptionListDto,
  SubscriptionListQuery,
} from './dto/subscription.dto';
import { SubscriptionIdPipe } from './subscription-id.pipe';
import { SubscriptionsService } from './subscriptions.service';

@ApiTags('subscriptions')
@ApiAuth()
@Controller('subscriptions')
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @Post()
  @ApiOperation({ summary: 'Create a subscription on a team the caller may read (400 SKILL_SELECTION_INVALID)' })
  @ApiCreatedResponse({ type: SubscriptionDto })
  create(@CurrentUser() caller: UserPrincipal, @Body() body: SubscriptionBodyDto): Promise<SubscriptionDto> {
    return this.subscriptions.create(caller, body);
  }

  @Get()
  @ApiOperation({ summary: 'Subscriptions the caller may read, by id' })
  @ApiOkResponse({ type: SubscriptionListDto })
  list(@CurrentUser() caller: UserPrincipal, @Query() query: SubscriptionListQuery): Promise<SubscriptionListDto> {
    return this.subscriptions.list(caller, query);
  }

  @Get(':id')
  @ApiOkResponse({ type: SubscriptionDto })
  get(@CurrentUser() caller: UserPrincipal, @Param('id', SubscriptionIdPipe) id: number): Promise<SubscriptionDto> {
    return this.subscriptions.get(caller, id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Replace the writable body; the namespace and owner never change' })
  @ApiOkResponse({ type: SubscriptionDto })
  replace(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', SubscriptionIdPipe) id: number,
    @Body() body: SubscriptionBodyDto,
  ): Promise<SubscriptionDto> {
    return this.subscriptions.replace(caller, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Soft delete; its executions and tasks stay' })
  @ApiNoContentResponse()
  remove(@CurrentUser() caller: UserPrincipal, @Param('id', SubscriptionIdPipe) id: number): Promise<void> {
    return this.subscriptions.remove(caller, id);
  }
}
