// Writes a skill download (a 304, a 302 to the store, or the bytes) with the headers docs/api.md#etags
// and docs/storage.md#downloads name, for both download routes.
import { StreamableFile } from '@nestjs/common';
import { Response } from 'express';
import { quoteEtag } from '../common/http/etag';
import { IMMUTABLE, SkillDownload } from './package-delivery.service';

/** `Content-Digest` (RFC 9530) of a content hash `sha256:<hex>`. */
function contentDigest(contentHash: string): string {
  return `sha-256=:${Buffer.from(contentHash.slice('sha256:'.length), 'hex').toString('base64')}:`;
}

export function sendDownload(res: Response, download: SkillDownload): StreamableFile | undefined {
  res.setHeader('ETag', quoteEtag(download.contentHash));
  switch (download.kind) {
    case 'not_modified':
      res.status(304);
      return undefined;
    case 'redirect':
      // The URL is a credential for a minute: no cache keeps the answer that carries it.
      res.setHeader('Cache-Control', 'private, no-store');
      res.setHeader('Content-Digest', contentDigest(download.contentHash));
      res.setHeader('Location', download.location);
      res.status(302);
      return undefined;
    case 'bytes':
      // Access-controlled bytes: caches may keep them only for this caller; a pinned version never changes.
      res.setHeader('Cache-Control', download.immutable ? IMMUTABLE : 'private, no-cache');
      return new StreamableFile(download.data, {
        type: 'application/zip',
        length: download.data.length,
        disposition: `attachment; filename="${download.filename}"`,
      });
  }
}
