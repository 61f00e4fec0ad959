import { Controller, Get, Headers, Param, Query, Res, StreamableFile } from '@nestjs/common';
import {
  ApiFoundResponse,
  ApiNotModifiedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { AllowTaskToken, CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { ApiErrors, ErrorCase, STORE_UNAVAILABLE, VERSION_GONE } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { IdPipe } from '../common/http/id.pipe';
import { ApiIfNoneMatch } from '../common/openapi/api-if-none-match.decorator';
import { sendDownload } from '../skills/download.response';
import { WegentDownloadQuery, WegentListQuery, WegentSkillListDto } from '../resolution/dto/resolution.dto';
import { DownloadQuery } from './dto/download.dto';
import { PackageReads } from './package-reads.service';
import { SkillDownloadsService, WegentSkill } from './skill-downloads.service';

const DOWNLOAD_NOT_FOUND: ErrorCase = {
  code: 'NOT_FOUND',
  when: 'no such skill or version, one the caller may not read, or (a token) outside its resolved set or another task',
};

/** The download routes (ours and the one Wegent executors call) and the Wegent lookup. */
@ApiTags('wegent')
@ApiAuth()
@Controller()
export class SkillDownloadsController {
  constructor(
    private readonly downloads: SkillDownloadsService,
    private readonly packages: PackageReads,
  ) {}

  @Get('skills/:id/download')
  @AllowTaskToken()
  @ApiOperation({
    operationId: 'downloadSkill',
    tags: ['skills'],
    summary:
      'The zip of a version (the latest by default), or a 302 to it in the package store; ETag is its content hash, 304 on If-None-Match',
    description:
      'Immutable (`Cache-Control: immutable`) when `version` is given. A task token downloads only the skills of its resolved set, at the resolved version. ' +
      'With the `s3` store, the answer is a 302 to a presigned URL of the store (`Cache-Control: private, no-store`, `Content-Digest`), unless `redirect=false` or `DOWNLOAD_REDIRECT=stream` (docs/storage.md#downloads).',
  })
  @ApiProduces('application/zip')
  @ApiOkResponse({
    description: 'The canonical zip; ETag: the quoted content hash',
    schema: { type: 'string', format: 'binary' },
  })
  @ApiFoundResponse({
    description:
      'The package store serves the bytes: `Location` is a presigned URL valid PRESIGN_TTL_SECONDS; ETag and Content-Digest as the zip',
    headers: {
      Location: { schema: { type: 'string', format: 'uri' } },
      'Content-Digest': { schema: { type: 'string' }, description: '`sha-256=:<base64>:`' },
    },
  })
  @ApiNotModifiedResponse({ description: 'The content hash matches If-None-Match' })
  @ApiIfNoneMatch()
  @ApiErrors('VALIDATION_FAILED', DOWNLOAD_NOT_FOUND, VERSION_GONE, ...STORE_UNAVAILABLE)
  async download(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IdPipe) id: number,
    @Query() query: DownloadQuery,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile | undefined> {
    const redirect = query.redirect !== 'false';
    return sendDownload(res, await this.packages.download(principal, id, query, ifNoneMatch, redirect));
  }

  /** Wegent executors may not follow a redirect: their route always streams (docs/storage.md#downloads). */
  @Get('v1/kinds/skills/:id/download')
  @AllowTaskToken()
  @ApiOperation({
    operationId: 'downloadSkillWegent',
    summary:
      'The same bytes, headers and access as GET /api/skills/{id}/download, on the path Wegent executors call; never a redirect',
  })
  @ApiProduces('application/zip')
  @ApiOkResponse({
    description: 'The canonical zip; ETag: the quoted content hash',
    schema: { type: 'string', format: 'binary' },
  })
  @ApiNotModifiedResponse({ description: 'The content hash matches If-None-Match' })
  @ApiIfNoneMatch()
  @ApiErrors('VALIDATION_FAILED', DOWNLOAD_NOT_FOUND, VERSION_GONE, ...STORE_UNAVAILABLE)
  async downloadWegent(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IdPipe) id: number,
    @Query() query: WegentDownloadQuery,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile | undefined> {
    return sendDownload(res, await this.packages.download(principal, id, query, ifNoneMatch, false));
  }

  @Get('v1/kinds/skills')
  @AllowTaskToken()
  @ApiOperation({
    operationId: 'listSkillsWegent',
    summary: 'The skill a name means, as a Wegent Skill kind: for a task (task_id), or by name lookup as the caller',
  })
  @ApiOkResponse({ type: WegentSkillListDto, description: '0 or 1 item' })
  @ApiErrors('VALIDATION_FAILED', { code: 'NOT_FOUND', when: '`task_id` names a task the caller may not read' })
  find(@CurrentPrincipal() principal: Principal, @Query() query: WegentListQuery): Promise<{ items: WegentSkill[] }> {
    return this.downloads.find(principal, query);
  }
}
