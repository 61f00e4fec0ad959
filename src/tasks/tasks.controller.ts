import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllowTaskToken, CurrentPrincipal, CurrentUser } from '../auth/auth.decorators';
import type { Principal, UserPrincipal } from '../auth/principal';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { TaskIdPipe } from '../common/http/id.pipe';
import { CreateTaskDto, CreateTokenDto, TaskDto, TaskListDto, TaskListQuery, TaskTokenDto } from './dto/task.dto';
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
  @ApiOperation({ summary: 'Create a task on a team the caller may read' })
  @ApiCreatedResponse({ type: TaskDto })
  create(@CurrentUser() caller: UserPrincipal, @Body() body: CreateTaskDto): Promise<TaskDto> {
    return this.tasks.create(caller, body);
  }

  @Get()
  @ApiOkResponse({ type: TaskListDto })
  list(@CurrentUser() caller: UserPrincipal, @Query() query: TaskListQuery): Promise<TaskListDto> {
    return this.tasks.list(caller, query);
  }

  @Get(':id')
  @AllowTaskToken()
  @ApiOkResponse({ type: TaskDto })
  get(@CurrentPrincipal() principal: Principal, @Param('id', TaskIdPipe) id: number): Promise<TaskDto> {
    return this.tasks.get(principal, id);
  }

  @Post(':id/tokens')
  @ApiOperation({ summary: 'Mint a task token for a sandbox (24 h by default, 60 s to 7 days)' })
  @ApiCreatedResponse({ type: TaskTokenDto })
  mintToken(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', TaskIdPipe) id: number,
    @Body() body: CreateTokenDto,
  ): Promise<TaskTokenDto> {
    return this.tokens.mint(caller, id, body.ttl_seconds);
  }

  @Delete(':id/tokens')
  @HttpCode(204)
  @ApiOperation({ summary: "Revoke all of the task's tokens" })
  @ApiNoContentResponse()
  revokeTokens(@CurrentUser() caller: UserPrincipal, @Param('id', TaskIdPipe) id: number): Promise<void> {
    return this.tokens.revokeAll(caller, id);
  }
}
