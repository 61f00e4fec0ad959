import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiNotModifiedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AllowTaskToken, AuthenticatedRequest, CurrentUser, principalOf } from '../auth/auth.decorators';
import type { Principal, UserPrincipal } from '../auth/principal';
import { ApiErrors, JSON_BODY_ERRORS, TASK_NOT_FOUND } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { ApiPathOperations } from '../common/openapi/api-path-operations.decorator';
import { ifNoneMatchHits, quoteEtag } from '../common/http/etag';
import { TaskIdPipe } from '../common/http/id.pipe';
import { ApiIfNoneMatch } from '../common/openapi/api-if-none-match.decorator';
import { EXECUTION_REQUEST_EXAMPLES } from '../tasks/dto/task.dto';
import { ExecutionRequestBody, ExecutionRequestDto, TaskSkillsDto } from './dto/resolution.dto';
import { ExecutionRequestsService } from './execution-requests.service';
import { taskSkillsJson } from './resolution.mapper';
import { TaskResolutionService } from './task-resolution.service';

const taskIdPipe = new TaskIdPipe();

function notModified(res: Response, fingerprint: string): undefined {
  res.setHeader('ETag', quoteEtag(fingerprint));
  res.status(304);
  return undefined;
}

@ApiTags('resolution')
@ApiAuth()
@Controller()
export class TaskSkillsController {
  constructor(
    private readonly resolution: TaskResolutionService,
    private readonly executionRequests: ExecutionRequestsService,
  ) {}

  // One handler for both paths: current Wegent executors and sandbox managers call the v1 one with a
  // task token and abort the sandbox start on any status but 200.
  @Get(['tasks/:id/skills', 'v1/tasks/:id/skills'])
  @AllowTaskToken()
  @ApiPathOperations(
    {
      path: 'tasks/:id/skills',
      operationId: 'getTaskSkills',
      tag: 'resolution',
      summary: "The task's skills as exact refs; ETag is the fingerprint, 304 on If-None-Match",
    },
    {
      path: 'v1/tasks/:id/skills',
      operationId: 'getTaskSkillsV1',
      tag: 'wegent',
      summary: 'The same answer as GET /api/tasks/{id}/skills, on the path Wegent executors call',
    },
  )
  @ApiOkResponse({ type: TaskSkillsDto, description: 'The resolution; ETag: the quoted fingerprint' })
  @ApiNotModifiedResponse({ description: 'The fingerprint matches If-None-Match' })
  @ApiIfNoneMatch()
  @ApiParam({ name: 'id', required: true })
  @ApiErrors(TASK_NOT_FOUND)
  // The caller, the id and If-None-Match are read from the request here rather than declared as
  // parameters: Nest runs every pipe of a @Param or custom-decorator parameter, the global
  // validation pipe first, through its own promises on each request, and a 304 does little else.
  // The id goes through TaskIdPipe all the same, before any header is set, and @ApiParam
  // documents it as @Param did.
  skills(
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): string | undefined | Promise<string | undefined> {
    const id = taskIdPipe.transform(req.params.id as string);
    const principal = principalOf(req);
    const ifNoneMatch = req.headers['if-none-match'];
    res.setHeader('Cache-Control', 'private, no-cache');
    const known = ifNoneMatch ? this.resolution.knownFingerprint(principal, id) : undefined;
    if (known && ifNoneMatchHits(ifNoneMatch, known)) return notModified(res, known);
    return this.resolved(principal, id, ifNoneMatch, res);
  }

  private async resolved(
    principal: Principal,
    id: number,
    ifNoneMatch: string | undefined,
    res: Response,
  ): Promise<string | undefined> {
    const resolved = await this.resolution.resolve(principal, id);
    if (ifNoneMatchHits(ifNoneMatch, resolved.fingerprint)) return notModified(res, resolved.fingerprint);
    res.setHeader('ETag', quoteEtag(resolved.fingerprint));
    // A TaskSkillsDto, written as res.json would write it (the same bytes and Content-Type).
    res.type('json');
    return taskSkillsJson(resolved);
  }

  @Post('tasks/:id/execution-requests')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createExecutionRequest',
    summary: 'Resolve for an executor, the message on top; persist=true writes it into the labels',
  })
  @ApiBody({ type: ExecutionRequestBody, examples: EXECUTION_REQUEST_EXAMPLES, required: false })
  @ApiOkResponse({ type: ExecutionRequestDto })
  @ApiErrors(
    { code: 'VALIDATION_FAILED', when: 'a rule of the body, or labels that would pass their size limit' },
    'SKILL_SELECTION_INVALID',
    { code: 'FORBIDDEN', when: '`persist: true` by a reader who is not the creator or an admin' },
    TASK_NOT_FOUND,
    ...JSON_BODY_ERRORS,
  )
  executionRequest(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', TaskIdPipe) id: number,
    @Body() body: ExecutionRequestBody,
  ): Promise<ExecutionRequestDto> {
    return this.executionRequests.create(caller, id, body);
  }
}
