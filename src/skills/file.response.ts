// Writes a single file of a package (or its 304) with the headers of docs/api.md#single-files.
import { StreamableFile } from '@nestjs/common';
import { Response } from 'express';
import { quoteEtag } from '../common/http/etag';
import { SkillFile } from './skill-files.service';

export function sendSkillFile(res: Response, file: SkillFile): StreamableFile | undefined {
  res.setHeader('ETag', quoteEtag(file.etag));
  // As downloads: private to the caller; a file of a pinned version never changes.
  res.setHeader('Cache-Control', file.immutable ? 'private, max-age=31536000, immutable' : 'private, no-cache');
  // Package bytes are never a page of this origin: no sniffing, and no script or form if opened.
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', 'sandbox');
  if (file.notModified) {
    res.status(304);
    return undefined;
  }
  const streamable = new StreamableFile(file.stream, {
    type: file.contentType,
    length: file.size,
    ...(file.disposition ? { disposition: file.disposition } : {}),
  });
  // The stored bytes can only prove damaged once the status and length are out: the connection is
  // cut, so the client sees a short body rather than a complete-looking one (or a 400 from Nest).
  streamable.setErrorHandler((err, response) => {
    streamable.errorLogger(err);
    if (!response.destroyed) response.destroy?.();
  });
  return streamable;
}
