// How a download's bytes reach the client (docs/storage.md#downloads), once access is decided:
// lifecycle and If-None-Match first, without touching the store; then a 302 to a presigned URL
// when the store can sign one and the request allows it, else the bytes through the service,
// served only once their sha256 is checked.
import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error';
import { ifNoneMatchHits } from '../common/http/etag';
import { AppLogger } from '../common/logging/app-logger';
import { MetricsService } from '../common/metrics/metrics.service';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { packageKey } from '../storage/blob-keys';
import { BLOB_STORE, BlobStore } from '../storage/blob-store';
import type { VersionBytes } from './skill-bytes.repository';
import { SkillEntity } from './skill.entity';
import { requireBytes } from './skills-read.service';

/** What a pinned version's bytes may be cached as: they never change. */
export const IMMUTABLE = 'private, max-age=31536000, immutable';

export type SkillDownload =
  | { kind: 'not_modified'; contentHash: string }
  /** A 302 to `location`, which the store answers with the download's own headers. */
  | { kind: 'redirect'; contentHash: string; location: string }
  | { kind: 'bytes'; contentHash: string; data: Buffer; filename: string; immutable: boolean };

export interface DeliveryOptions {
  ifNoneMatch?: string;
  /** A version was asked for: the answer may be cached for good. */
  immutable: boolean;
  /** Admins still download a revoked version. */
  admin: boolean;
  /** False for `?redirect=false` and the routes whose clients may not follow one. */
  redirect: boolean;
}

@Injectable()
export class PackageDelivery {
  /** False unless the store signs URLs and DOWNLOAD_REDIRECT leaves it to. */
  private readonly redirects: boolean;
  private readonly ttlSeconds: number;

  constructor(
    @Inject(BLOB_STORE) private readonly store: BlobStore,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly logger: AppLogger,
  ) {
    this.redirects = config.storage.downloadRedirect === 'presigned' && store.presign !== undefined;
    this.ttlSeconds = config.storage.presignTtlSeconds;
  }

  async deliver(skill: SkillEntity, v: VersionBytes, options: DeliveryOptions): Promise<SkillDownload> {
    requireBytes(skill, v, options.admin);
    const contentHash = v.contentHash;
    if (ifNoneMatchHits(options.ifNoneMatch, contentHash)) return { kind: 'not_modified', contentHash };
    const filename = `${skill.name}-${v.version}.zip`;
    const key = packageKey(contentHash);
    if (this.redirects && options.redirect) {
      const location = await this.store.presign!(
        key,
        {
          contentType: 'application/zip',
          contentDisposition: `attachment; filename="${filename}"`,
          cacheControl: IMMUTABLE,
        },
        this.ttlSeconds,
      );
      this.metrics.downloaded('redirect', this.store.kind);
      return { kind: 'redirect', contentHash, location };
    }
    const data = await this.store.get(key);
    if (!data) {
      this.logger.write('error', 'a version refers to bytes the package store does not hold', {
        skill_id: skill.id,
        version: v.version,
        store: this.store.kind,
      });
      throw new DomainError('INTERNAL', `The bytes of ${skill.name} v${v.version} are missing`);
    }
    if (`sha256:${createHash('sha256').update(data).digest('hex')}` !== contentHash) {
      this.logger.write('error', 'the package store answered other bytes than a version refers to', {
        skill_id: skill.id,
        version: v.version,
        store: this.store.kind,
      });
      throw new DomainError('INTERNAL', `The stored bytes of ${skill.name} v${v.version} are damaged`);
    }
    this.metrics.downloaded('stream', this.store.kind);
    return { kind: 'bytes', contentHash, data, filename, immutable: options.immutable };
  }
}
