// The archives of the well-known index (docs/well-known.md#archives): a version's stored package
// rewritten with SKILL.md at the archive root. Building one copies the stored entries and hashes
// the result (about 0.1 ms for a 20 KB skill, 2 ms for 2 MB), so archives are built per request
// and only their digests are kept: a version's files never change, so neither does its archive.
import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppLogger } from '../common/logging/app-logger';
import { DomainError } from '../common/errors/domain-error';
import type { ManifestFile } from '../package/manifest';
import { rootArchive } from '../package/root-archive';
import { StoredPackageError } from '../package/stored-package';
import { installerRefusal } from '../skill-index/discovery-index';
import { SkillsRepository } from '../skills/skills.repository';
import { PublicVersion, WellKnownRepository } from './well-known.repository';

/** Versions whose archives are built at once when many are new (a first index of a large registry). */
const PARALLEL_BUILDS = 4;

/** An archive the index may list, or null for one the installer would refuse. */
type KnownArchive = { digest: string } | null;

@Injectable()
export class WellKnownArchives {
  /**
   * By content hash (the stored bytes decide the archive's). Holds the versions of the last full
   * index and those asked for since, so it grows only with the public versions there are.
   */
  private known = new Map<string, KnownArchive>();

  constructor(
    private readonly repository: WellKnownRepository,
    private readonly skills: SkillsRepository,
    private readonly logger: AppLogger,
  ) {}

  /**
   * The digest of each version's archive by content hash, null for one left out (too large for the
   * installer, or bytes that cannot be read: those are logged and tried again next time). With
   * `all`, `versions` are every public version there is, and what the others left behind is forgotten.
   */
  async digests(versions: readonly PublicVersion[], all = false): Promise<Map<string, string | null>> {
    const missing = versions.filter((v) => !this.known.has(v.contentHash));
    if (missing.length > 0) {
      const manifests = await this.repository.manifests(missing);
      let next = 0;
      const worker = async (): Promise<void> => {
        for (let i = next++; i < missing.length; i = next++) {
          const v = missing[i];
          const built = await this.knownArchive(v, manifests.get(`${v.skillId}:${v.version}`));
          if (built !== undefined) this.known.set(v.contentHash, built);
        }
      };
      await Promise.all(Array.from({ length: Math.min(PARALLEL_BUILDS, missing.length) }, worker));
    }
    if (all) {
      const listed = new Map<string, KnownArchive>();
      for (const v of versions)
        if (this.known.has(v.contentHash)) listed.set(v.contentHash, this.known.get(v.contentHash)!);
      this.known = listed;
    }
    return new Map(versions.map((v) => [v.contentHash, this.known.get(v.contentHash)?.digest ?? null]));
  }

  /** The archive of `version`, whose digest digests() gave. */
  async bytes(version: PublicVersion): Promise<Buffer> {
    const manifest = (await this.repository.manifests([version])).get(`${version.skillId}:${version.version}`);
    const built = manifest ? await this.build(version, manifest) : undefined;
    if (!built)
      throw new DomainError('INTERNAL', `The stored bytes of ${version.name} v${version.version} cannot be read`);
    return built;
  }

  /** Its archive's digest, null when the installer would refuse it, undefined when its bytes cannot be read. */
  private async knownArchive(
    version: PublicVersion,
    manifest: ManifestFile[] | undefined,
  ): Promise<KnownArchive | undefined> {
    if (!manifest) return undefined;
    const refusal = installerRefusal({
      fileCount: manifest.length,
      expandedBytes: manifest.reduce((sum, file) => sum + file.size, 0),
      paths: manifest.map((file) => file.path),
    });
    if (refusal) return null;
    const archive = await this.build(version, manifest);
    return archive ? { digest: `sha256:${createHash('sha256').update(archive).digest('hex')}` } : undefined;
  }

  private async build(version: PublicVersion, manifest: ManifestFile[]): Promise<Buffer | undefined> {
    const stored = await this.skills.readBlob(version.contentHash);
    try {
      if (!stored) throw new StoredPackageError('the stored package is missing');
      return rootArchive(stored, version.contentHash, version.name, manifest);
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
