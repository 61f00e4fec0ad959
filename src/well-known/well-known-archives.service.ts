// The archives of the well-known index (docs/well-known.md#archives): a version's stored package
// rewritten with SKILL.md at the archive root. Building one copies the stored entries and hashes
// the result (about 0.06 ms of CPU for a 20 KB skill, 2.4 ms for 2 MB), so archives are built per
// request and only their digests are kept: a version's files never change, so neither does its
// archive.
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppLogger } from '../common/logging/app-logger';
import type { ManifestFile } from '../package/manifest';
import { rootArchive } from '../package/root-archive';
import { StoredPackageError } from '../package/stored-package';
import { installerRefusal } from '../skill-index/discovery-index';
import { packageKey } from '../storage/blob-keys';
import { BLOB_STORE, BlobStore } from '../storage/blob-store';
import { PublicVersion, PublicVersionWithManifest, WellKnownRepository } from './well-known.repository';

/** Versions whose archives are built at once when many are new (a first index of a large registry). */
const PARALLEL_BUILDS = 4;

export interface Archive {
  /** `sha256:<hex>` of `data`. */
  digest: string;
  data: Buffer;
}

/**
 * A version's archive; null when the installer would refuse it (it is never listed), undefined
 * when its stored bytes cannot be read (logged; tried again next time).
 */
type Built = Archive | null | undefined;

@Injectable()
export class WellKnownArchives {
  /**
   * Digests by content hash (the stored bytes decide the archive's), null for an archive the
   * installer would refuse. Holds the versions of the last full index and those asked for since,
   * so it grows only with the public versions there are.
   */
  private known = new Map<string, string | null>();

  constructor(
    private readonly repository: WellKnownRepository,
    @Inject(BLOB_STORE) private readonly store: BlobStore,
    private readonly logger: AppLogger,
  ) {}

  /**
   * The digest of each version's archive by content hash, null for one left out; the archives not
   * known yet are built. With `all`, `versions` are every public version there is, and what the
   * others left behind is forgotten.
   */
  async digests(versions: readonly PublicVersion[], all = false): Promise<Map<string, string | null>> {
    const missing = versions.filter((v) => !this.known.has(v.contentHash));
    if (missing.length > 0) {
      const manifests = await this.repository.manifests(missing);
      let next = 0;
      const worker = async (): Promise<void> => {
        for (let i = next++; i < missing.length; i = next++) {
          await this.build(missing[i], manifests.get(`${missing[i].skillId}:${missing[i].version}`));
        }
      };
      await Promise.all(Array.from({ length: Math.min(PARALLEL_BUILDS, missing.length) }, worker));
    }
    if (all) {
      const listed = new Map<string, string | null>();
      for (const v of versions)
        if (this.known.has(v.contentHash)) listed.set(v.contentHash, this.known.get(v.contentHash)!);
      this.known = listed;
    }
    return new Map(versions.map((v) => [v.contentHash, this.known.get(v.contentHash) ?? null]));
  }

  /** The digest of `version`'s archive when it is known: null for one left out, undefined when not built yet. */
  knownDigest(version: PublicVersion): string | null | undefined {
    return this.known.get(version.contentHash);
  }

  /** The archive of `version` (read with its manifest), or null when the index leaves it out. */
  async archive(version: PublicVersionWithManifest): Promise<Archive | null> {
    return (await this.build(version, version.manifest)) ?? null;
  }

  private async build(version: PublicVersion, manifest: ManifestFile[] | undefined): Promise<Built> {
    if (!manifest) return undefined;
    const refusal = installerRefusal({
      fileCount: manifest.length,
      expandedBytes: manifest.reduce((sum, file) => sum + file.size, 0),
      paths: manifest.map((file) => file.path),
    });
    if (refusal) {
      this.known.set(version.contentHash, null);
      return null;
    }
    const stored = await this.store.get(packageKey(version.contentHash));
    try {
      if (!stored) throw new StoredPackageError('the stored package is missing');
      const data = rootArchive(stored, version.contentHash, version.name, manifest);
      const digest = `sha256:${createHash('sha256').update(data).digest('hex')}`;
      this.known.set(version.contentHash, digest);
      return { digest, data };
    } catch (err) {
      if (!(err instanceof StoredPackageError)) throw err;
      this.logger.write('error', 'a public version is left out of the well-known index: its bytes cannot be read', {
        skill_id: version.skillId,
        version: version.version,
        content_hash: version.contentHash,
        error: err.message,
      });
      return undefined;
    }
  }
}
