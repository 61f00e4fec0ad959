import { Body, Controller, Get, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBody, ApiNotModifiedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AllowTaskToken, CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { ReadOnlyRoute } from '../cache/write-invalidation.interceptor';
import { ApiErrors, JSON_BODY_ERRORS, TASK_NOT_FOUND } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { quoteEtag } from '../common/http/etag';
import { TaskIdPipe } from '../common/http/id.pipe';
import { ApiIfNoneMatch } from '../common/openapi/api-if-none-match.decorator';
import { RemoteSkillsDto, TOOL_CHECK_EXAMPLES, ToolCheckAnswerDto, ToolCheckBody } from './dto/tool-policy.dto';
import { TaskToolPolicyService } from './task-tool-policy.service';

@ApiTags('resolution')
@ApiAuth()
@Controller('tasks/:id')
export class TaskToolPolicyController {
  constructor(private readonly policy: TaskToolPolicyService) {}

  @Post('tool-check')
  @HttpCode(200)
  @AllowTaskToken()
  @ReadOnlyRoute()
  @ApiOperation({
    operationId: 'checkTaskTools',
    summary:
      "Which tools the task's active skills leave visible (the intersection of their allowed-tools), what they require, and whether one call passes",
    tags: ['tool-policy'],
  })
  @ApiBody({ type: ToolCheckBody, examples: TOOL_CHECK_EXAMPLES, required: false })
  @ApiOkResponse({ type: ToolCheckAnswerDto })
  @ApiErrors(
    {
      code: 'VALIDATION_FAILED',
      when: "an unknown key, a wrong type, too many names, a command over 16 KiB, or a skill outside the task's resolved set (`details.unknown_skills`)",
    },
    TASK_NOT_FOUND,
    ...JSON_BODY_ERRORS,
  )
  toolCheck(
    @CurrentPrincipal() principal: Principal,
    @Param('id', TaskIdPipe) id: number,
    @Body() body: ToolCheckBody,
  ): Promise<ToolCheckAnswerDto> {
    return this.policy.toolCheck(principal, id, body);
  }

  @Get('remote-skills.json')
  @AllowTaskToken()
  @ApiOperation({
    operationId: 'getTaskRemoteSkills',
    summary:
      "The task's resolved skills as VeADK's remote-skills.json (an attachment); ETag is the task's fingerprint, 304 on If-None-Match",
  })
  @ApiOkResponse({ type: RemoteSkillsDto })
  @ApiNotModifiedResponse({ description: "The task's fingerprint matches If-None-Match" })
  @ApiIfNoneMatch()
  @ApiErrors(TASK_NOT_FOUND)
  async remoteSkills(
    @CurrentPrincipal() principal: Principal,
    @Param('id', TaskIdPipe) id: number,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<RemoteSkillsDto | undefined> {
    const answer = await this.policy.remoteSkills(principal, id, ifNoneMatch);
    res.setHeader('Cache-Control', 'private, no-cache');
    res.setHeader('ETag', quoteEtag(answer.fingerprint));
    if (answer.notModified) {
      res.status(304);
      return undefined;
    }
    res.setHeader('Content-Disposition', 'attachment; filename="remote-skills.json"');
    return answer.document;
  }
}
