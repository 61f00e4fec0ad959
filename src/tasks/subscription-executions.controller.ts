import { Controller, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser } from '../auth/auth.decorators';
import type { UserPrincipal } from '../auth/principal';
import { ApiErrors } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { IdPipe } from '../common/http/id.pipe';
import { ExecutionCreatedDto } from './dto/task.dto';
import { TasksService } from './tasks.service';

@ApiTags('subscriptions')
@ApiAuth()
@Controller('subscriptions')
export class SubscriptionExecutionsController {
  constructor(private readonly tasks: TasksService) {}

  @Post(':id/executions')
  @ApiOperation({
    operationId: 'runSubscription',
    summary: 'Run a subscription: a task owned by the caller and its background execution',
  })
  @ApiCreatedResponse({ type: ExecutionCreatedDto })
  @ApiErrors({ code: 'NOT_FOUND', when: 'no such subscription, or one the caller may not read' })
  execute(@CurrentUser() caller: UserPrincipal, @Param('id', IdPipe) id: number): Promise<ExecutionCreatedDto> {
    return this.tasks.execute(caller, id);
  }
}
