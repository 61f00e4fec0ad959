import { Body, Controller, Get, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiNotModifiedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AllowTaskToken, CurrentPrincipal, CurrentUser } from '../auth/auth.decorators';
import type { Principal, UserPrincipal } from '../auth/principal';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { ifNoneMatchHits, quoteEtag } from '../common/http/etag';
import { TaskIdPipe } from '../common/http/id.pipe';
import { ExecutionRequestBody, ExecutionRequestDto, TaskSkillsDto } from './dto/resolution.dto';
import { ExecutionRequestsService } from './execution-requests.service';
import { toTaskSkillsDto } from './resolution.mapper';
import { TaskResolutionService } from './task-resolution.service';

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
  @ApiTags('wegent')
  @ApiOperation({
    summary:
      "The task's skills as exact refs; ETag is the fingerprint, 304 on If-None-Match (also the route Wegent executors call)",
  })
  @ApiOkResponse({ type: TaskSkillsDto })
  @ApiNotModifiedResponse({ description: 'The fingerprint matches If-None-Match' })
  async skills(
    @CurrentPrincipal() principal: Principal,
    @Param('id', TaskIdPipe) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TaskSkillsDto | undefined> {
    res.setHeader('Cache-Control', 'private, no-cache');
    const known = ifNoneMatch ? this.resolution.knownFingerprint(principal, id) : undefined;
    if (known && ifNoneMatchHits(ifNoneMatch, known)) return notModified(res, known);
    const resolved = toTaskSkillsDto(await this.resolution.resolve(principal, id));
    if (ifNoneMatchHits(ifNoneMatch, resolved.fingerprint)) return notModified(res, resolved.fingerprint);
    res.setHeader('ETag', quoteEtag(resolved.fingerprint));
    return resolved;
  }

  @Post('tasks/:id/execution-requests')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resolve for an executor, the message on top; persist=true writes it into the labels' })
  @ApiOkResponse({ type: ExecutionRequestDto })
  executionRequest(
    @CurrentUser() caller: UserPrincipal,
    @Param('id', TaskIdPipe) id: number,
    @Body() body: ExecutionRequestBody,
  ): Promise<ExecutionRequestDto> {
    return this.executionRequests.create(caller, id, body);
  }
}
