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
  SUBSCRIPTION_BODY_EXAMPLES,
  SUBSCRIPTION_REPLACE_EXAMPLES,
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
  @ApiOperation({
    operationId: 'createSubscription',
    summary: 'Create a subscription on a team the caller may read; every selection must resolve for its owner',
  })
  @ApiBody({ type: SubscriptionBodyDto, examples: SUBSCRIPTION_BODY_EXAMPLES })
  @ApiCreatedResponse({ type: SubscriptionDto })
  @ApiErrors(
    'VALIDATION_FAILED',
    'SKILL_SELECTION_INVALID',
    { code: 'FORBIDDEN', when: 'below Developer in the group namespace' },
    {
      code: 'NOT_FOUND',
      when: 'the namespace does not exist or the caller has no role there, or `team_id` names no team the caller may read',
    },
    'NAME_TAKEN',
    ...JSON_BODY_ERRORS,
  )
  create(@CurrentUser() caller: UserPrincipal, @Body() body: SubscriptionBodyDto): Promise<SubscriptionDto> {
    return this.subscriptions.create(caller, body);
  }

  @Get()
  @ApiOperation({ operationId: 'listSubscriptions', summary: 'Subscriptions the caller may read, by id' })
  @ApiOkResponse({ type: SubscriptionListDto })
  @ApiErrors('VALIDATION_FAILED')
  list(@CurrentUser() caller: UserPrincipal, @Query() query: SubscriptionListQuery): Promise<SubscriptionListDto> {
    return this.subscriptions.list(caller, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getSubscription', summary: 'A subscription the caller may read' })
  @ApiErrors('NOT_FOUND')
  @ApiOkResponse({ type: SubscriptionDto })
  get(@CurrentUser() caller: UserPrincipal, @Param('id', SubscriptionIdPipe) id: number): Promise<SubscriptionDto> {
    return this.subscriptions.get(caller, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'replaceSubscription',
    summary: 'Replace the writable body; the namespace and owner never change',
  })
  @ApiBody({ type: SubscriptionBodyDto, examples: SUBSCRIPTION_REPLACE_EXAMPLES })
  @ApiErrors(
    'VALIDATION_FAILED',
    'SKILL_SELECTION_INVALID',
    { code: 'FORBIDDEN', when: 'the caller may read the subscription but not change it' },
    {
      code: 'NOT_FOUND',
      when: 'no such subscription, or one the caller may not read; or an id of the body the caller may not read',
    },
    'NAME_TAKEN',
    ...JSON_BODY_ERRORS,
  )
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
  @ApiOperation({ operationId: 'deleteSubscription', summary: 'Soft delete; its executions and tasks stay' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors({ code: 'FORBIDDEN', when: 'the caller may read the subscription but not delete it' }, 'NOT_FOUND')
  remove(@CurrentUser() caller: UserPrincipal, @Param('id', SubscriptionIdPipe) id: number): Promise<void> {
    return this.subscriptions.remove(caller, id);
  }
}
