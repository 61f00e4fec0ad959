import { NewRowRoute } from '../cache/write-invalidation.interceptor';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AllowTaskToken, CurrentPrincipal, CurrentUser } from '../auth/auth.decorators';
import type { Principal, UserPrincipal } from '../auth/principal';
import { ApiErrors, JSON_BODY_ERRORS, TASK_NOT_FOUND } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { TaskIdPipe } from '../common/http/id.pipe';
import {
  CREATE_TASK_EXAMPLES,
  CREATE_TOKEN_EXAMPLES,
  CreateTaskDto,
  CreateTokenDto,
  TaskDto,
  TaskListDto,
  TaskListQuery,
  TaskTokenDto,
} from './dto/task.dto';
import { TaskTokensService } from './task-tokens.service';
import { TasksService } from './tasks.service';

@ApiTags('tasks')
@ApiAuth()
@Controller('tasks')
export class TasksController {
  constructor(
    private readonly tasks: TasksService,
    private readonly tokens: TaskTokensService,
  ) {}

  @Post()
  @NewRowRoute()
  @ApiOperation({
    operationId: 'createTask',
    summary: 'Create a task on a team the caller may read; skill_selection is written as its labels',
  })
  @ApiBody({ type: CreateTaskDto, examples: CREATE_TASK_EXAMPLES })
  @ApiCreatedResponse({ type: TaskDto })
  @ApiErrors(
    { code: 'VALIDATION_FAILED', when: 'a rule of the body, such as malformed selection labels' },
    'SKILL_SELECTION_INVALID',
    { code: 'NOT_FOUND', when: '`team_id` names no team the caller may read' },
    ...JSON_BODY_ERRORS,
  )
  create(@CurrentUser() caller: UserPrincipal, @Body() body: CreateTaskDto): Promise<TaskDto> {
    return this.tasks.create(caller, body);
  }

  @Get()
  @ApiOperation({ operationId: 'listTasks', summary: 'Tasks the caller may read, by id' })
  @ApiOkResponse({ type: TaskListDto })
  @ApiErrors('VALIDATION_FAILED')
  list(@CurrentUser() caller: UserPrincipal, @Query() query: TaskListQuery): Promise<TaskListDto> {
    return this.tasks.list(caller, query);
  }

  @Get(':id')
  @AllowTaskToken()
  @ApiOperation({ operationId: 'getTask', summary: 'A task the caller may read (task tokens: their task)' })
  @ApiOkResponse({ type: TaskDto })
  @ApiErrors(TASK_NOT_FOUND)
  get(@CurrentPrincipal() principal: Principal, @Param('id', TaskIdPipe) id: number): Promise<TaskDto> {
    return this.tasks.get(principal, id);
  }

  @Post(':id/tokens')
  // No cached answer depends on a token no request has presented yet.
  @NewRowRoute()
  @ApiOperation({
    operationId: 'createTaskToken',
    summary: 'Mint a task token for a sandbox (24 h by default, 60 s to 7 days); shown once',
  })
  @ApiBody({ type: CreateTokenDto, examples: CREATE_TOKEN_EXAMPLES, required: false })
  @ApiCreatedResponse({ type: TaskTokenDto })
  @ApiErrors('VALIDATION_FAILED', TASK_NOT_FOUND, ...JSON_BODY_ERRORS)
  mintToken(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', TaskIdPipe) id: number,
    @Body() body: CreateTokenDto,
  ): Promise<TaskTokenDto> {
    return this.tokens.mint(caller, id, body.ttl_seconds);
  }

  @Delete(':id/tokens')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'revokeTaskTokens',
    summary: "Revoke all of the task's tokens (401 for them afterwards)",
  })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiErrors({ code: 'FORBIDDEN', when: 'a reader who is not its creator, a Maintainer+ or an admin' }, TASK_NOT_FOUND)
  revokeTokens(@CurrentUser() caller: UserPrincipal, @Param('id', TaskIdPipe) id: number): Promise<void> {
    return this.tokens.revokeAll(caller, id);
  }
}
