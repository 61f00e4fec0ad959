import { Controller, Get, Headers, Param, Query, Res, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AllowTaskToken, CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { IdPipe } from '../common/http/id.pipe';
import { sendDownload } from '../skills/download.response';
import { WegentDownloadQuery, WegentListQuery } from './dto/resolution.dto';
import { SkillDownloadsService, WegentSkill } from './skill-downloads.service';

/** The download routes (ours and the one Wegent executors call) and the Wegent lookup. */
@ApiAuth()
@Controller()
export class SkillDownloadsController {
  constructor(private readonly downloads: SkillDownloadsService) {}

  @Get(['skills/:id/download', 'v1/kinds/skills/:id/download'])
  @AllowTaskToken()
  @ApiTags('skills', 'wegent')
  @ApiProduces('application/zip')
  @ApiOperation({
    summary: 'The zip bytes; ETag is the content hash, 304 on If-None-Match (also the route Wegent executors call)',
  })
  @ApiOkResponse({ schema: { type: 'string', format: 'binary' } })
  async download(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IdPipe) id: number,
    @Query() query: WegentDownloadQuery,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile | undefined> {
    return sendDownload(res, await this.downloads.download(principal, id, query, ifNoneMatch));
  }

  @Get('v1/kinds/skills')
  @AllowTaskToken()
  @ApiTags('wegent')
  @ApiOperation({ summary: 'The skill a name means: for a task (task_id), or by name lookup as the caller' })
  @ApiOkResponse({ description: '{"items": [Skill kind]} with 0 or 1 item' })
  find(@CurrentPrincipal() principal: Principal, @Query() query: WegentListQuery): Promise<{ items: WegentSkill[] }> {
    return this.downloads.find(principal, query);
  }
}
