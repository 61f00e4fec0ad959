import { Controller, Get, Headers, Param, Query, Req, Res, StreamableFile } from '@nestjs/common';
import { ApiNotModifiedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AllowTaskToken, CurrentPrincipal } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { ApiErrors, STORE_UNAVAILABLE, VERSION_GONE } from '../common/errors/error-response.dto';
import { ApiAuth } from '../common/http/api-auth.decorator';
import { IdPipe } from '../common/http/id.pipe';
import { ApiIfNoneMatch } from '../common/openapi/api-if-none-match.decorator';
import { ManifestDto, VersionQuery } from '../skills/dto/skill.dto';
import { sendSkillFile } from '../skills/file.response';
import { PackageReads } from './package-reads.service';
import { SkillDownloadsService } from './skill-downloads.service';

/**
 * The file path exactly as the client sent it, percent-decoded once: the router's own parameter
 * drops a trailing slash and splits on decoded slashes, and a path is compared byte for byte.
 */
function requestedPath(req: Request): string {
  const raw = /\/skills\/[^/?#]*\/files\/([^?#]*)/.exec(req.originalUrl)?.[1] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    throw DomainError.notFound('File not found');
  }
}

/** Activation reads (docs/api.md#single-files): the manifest with SKILL.md and single files, for users and task tokens. */
@ApiAuth()
@ApiTags('skills')
@Controller('skills/:id')
export class SkillFilesController {
  constructor(
    private readonly reads: SkillDownloadsService,
    private readonly packages: PackageReads,
  ) {}

  @Get('manifest')
  @AllowTaskToken()
  @ApiOperation({
    operationId: 'getSkillManifest',
    summary: 'The files, frontmatter and SKILL.md text of a version (task tokens: their resolved set)',
  })
  @ApiOkResponse({ type: ManifestDto })
  @ApiErrors(
    'VALIDATION_FAILED',
    {
      code: 'NOT_FOUND',
      when: 'no such skill or version, one the caller may not read, or (a token) outside its resolved set',
    },
    VERSION_GONE,
  )
  manifest(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IdPipe) id: number,
    @Query() query: VersionQuery,
  ): Promise<ManifestDto> {
    return this.reads.manifest(principal, id, query.version);
  }

  @Get('files/*path')
  @AllowTaskToken()
  @ApiOperation({
    operationId: 'getSkillFile',
    summary: 'One file of a version, by its manifest path (percent-encoded, slashes kept); ETag is its sha256',
    description:
      '`text/markdown` for `.md`, `text/plain` for other UTF-8 text, else `application/octet-stream` as an attachment; never HTML or SVG. Read in bounded memory whatever its size.',
    tags: ['discovery'],
  })
  @ApiParam({
    name: 'path',
    type: String,
    example: 'SKILL.md',
    description: 'A path of the manifest, e.g. scripts/run.py',
  })
  @ApiProduces('text/markdown', 'text/plain', 'application/octet-stream')
  @ApiOkResponse({
    description: 'The bytes of the file; ETag: its quoted sha256',
    schema: { type: 'string', format: 'binary' },
  })
  @ApiNotModifiedResponse({ description: 'The sha256 matches If-None-Match' })
  @ApiIfNoneMatch()
  @ApiErrors(
    'VALIDATION_FAILED',
    {
      code: 'NOT_FOUND',
      when: 'no such skill, version or path (compared byte for byte), one the caller may not read, or (a token) outside its resolved set',
    },
    VERSION_GONE,
    ...STORE_UNAVAILABLE,
  )
  async file(
    @CurrentPrincipal() principal: Principal,
    @Param('id', IdPipe) id: number,
    @Query() query: VersionQuery,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile | undefined> {
    const file = await this.packages.file(principal, id, requestedPath(req), query.version, ifNoneMatch);
    return sendSkillFile(res, file);
  }
}
