// Writes a skill download (or its 304) with the headers docs/api.md#etags names, for both download routes.
import { StreamableFile } from '@nestjs/common';
import { Response } from 'express';
import { quoteEtag } from '../common/http/etag';
import { SkillDownload } from './skills-read.service';

export function sendDownload(res: Response, download: SkillDownload): StreamableFile | undefined {
  res.setHeader('ETag', quoteEtag(download.contentHash));
  if (download.notModified) {
    res.status(304);
    return undefined;
  }
  // Access-controlled bytes: caches may keep them only for this caller; a pinned version never changes.
  res.setHeader('Cache-Control', download.immutable ? 'private, max-age=31536000, immutable' : 'private, no-cache');
  return new StreamableFile(download.data, {
    type: 'application/zip',
    length: download.data.length,
    disposition: `attachment; filename="${download.filename}"`,
  });
}
