// A publish's bytes (docs/storage.md#publish): written to the store before the version's
// transaction, under their content address unless the store holds them already; made sure of
// again inside the transaction when they were found there (they could be collected meanwhile);
// and removed again when the publish stores no version that refers to them.
import { Inject, Injectable } from '@nestjs/common';
import { AppLogger } from '../common/logging/app-logger';
import { packageKey } from '../storage/blob-keys';
import { BLOB_STORE, BlobStore } from '../storage/blob-store';
import { SkillBytesRepository } from './skill-bytes.repository';
import type { BytesKept } from './skills.repository';

export interface CanonicalBytes {
  contentHash: string;
  canonical: Buffer;
}

@Injectable()
export class PublishedBytes {
  constructor(
    @Inject(BLOB_STORE) private readonly store: BlobStore,
    private readonly bytes: SkillBytesRepository,
    private readonly logger: AppLogger,
  ) {}

  /**
   * Stores `bytes`, then runs `write` (the version's transaction), handing it the check to run under
   * the bytes lock. `stored(result)` tells whether the result refers to the bytes (an unchanged
   * version does not): bytes this publish wrote that nothing refers to are removed.
   */
  async keep<T>(
    bytes: CanonicalBytes,
    write: (kept: BytesKept) => Promise<T>,
    stored: (result: T) => boolean,
  ): Promise<T> {
    const key = packageKey(bytes.contentHash);
    const written = await this.store.putIfAbsent(key, bytes.canonical);
    const kept: BytesKept = async (tx) => {
      if (!written) await this.store.putIfAbsent(key, bytes.canonical, tx);
    };
    let result: T;
    try {
      result = await write(kept);
    } catch (err) {
      if (written) await this.discard(bytes.contentHash);
      throw err;
    }
    if (written && !stored(result)) await this.discard(bytes.contentHash);
    return result;
  }

  /** Best effort: what stays is collected by the garbage sweep once its grace period is over. */
  private async discard(contentHash: string): Promise<void> {
    try {
      await this.bytes.deleteIfUnreferenced(contentHash, this.store);
    } catch (err) {
      this.logger.write('warn', 'bytes of a failed publish left for the garbage sweep', {
        error: (err as Error).name,
      });
    }
  }
}
