// The well-known index and its archives (docs/well-known.md), at the root and under /api. Not an
// operation of the API (no credentials, a published format), so not in the OpenAPI document.
import { Controller, Get, Headers, Param, Req, Res, StreamableFile } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { DomainError } from '../common/errors/domain-error';
import { ifNoneMatchHits, quoteEtag } from '../common/http/etag';
import { WellKnownIndexService } from './well-known-index.service';
import { ARCHIVE_PATHS, INDEX_PATHS, isExactPath } from './well-known.routes';

@ApiExcludeController()
@Public()
@Controller()
export class WellKnownController {
  constructor(private readonly wellKnown: WellKnownIndexService) {}

  @Get(INDEX_PATHS)
  async index(
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string | undefined> {
    if (!isExactPath(req.path)) throw DomainError.notFound();
    const answer = await this.wellKnown.index();
    res.setHeader('ETag', quoteEtag(answer.etag));
    res.setHeader('Cache-Control', 'public, max-age=60');
    if (ifNoneMatchHits(ifNoneMatch, answer.etag)) {
      res.status(304);
      return undefined;
    }
    res.type('json');
    return answer.body;
  }

  @Get(ARCHIVE_PATHS)
  async archive(
    @Param('file') file: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile | undefined> {
    if (!isExactPath(req.path, file)) throw DomainError.notFound();
    const answer = await this.wellKnown.archive(file, ifNoneMatch);
    res.setHeader('ETag', quoteEtag(answer.digest));
    // The name holds the version and its revision: what it names never changes.
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    if (answer.notModified) {
      res.status(304);
      return undefined;
    }
    return new StreamableFile(answer.data, { type: 'application/zip', length: answer.data.length });
  }
}
