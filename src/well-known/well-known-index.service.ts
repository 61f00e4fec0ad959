// The well-known index and its archives (docs/well-known.md): every public skill's latest version
// that the installer can take, anonymously, when WELL_KNOWN_INDEX=public. The answer is kept until
// the next change anywhere (the change generation), so it is exact across replicas and costs no
// query while nothing changes.
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { ChangeGeneration } from '../cache/change-generation';
import { KeptReads } from '../cache/kept-reads';
import { DomainError } from '../common/errors/domain-error';
import { ifNoneMatchHits } from '../common/http/etag';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { archiveName, discoveryIndex, parseArchiveName } from '../skill-index/discovery-index';
import { WellKnownArchives } from './well-known-archives.service';
import { PublicVersionWithManifest, WellKnownRepository } from './well-known.repository';

export interface IndexAnswer {
  /** The index as sent. */
  body: string;
  /** `sha256:<hex>` of `body`: the ETag. */
  etag: string;
}

export type ArchiveAnswer =
  { notModified: true; digest: string } | { notModified: false; digest: string; data: Buffer };

const INDEX_KEY = 'index';
/**
 * Archives' versions kept, each with its manifest: one the index lists has at most 1,000 files
 * (about 100 KB of manifest), so at most about 25 MB in the worst case, well under 1 MB usually.
 */
const ARCHIVE_VERSION_ENTRIES = 256;

@Injectable()
export class WellKnownIndexService {
  private readonly answers: KeptReads<IndexAnswer>;
  /** Archives' versions by skill name (null: no public skill of that name). */
  private readonly versions: KeptReads<PublicVersionWithManifest | null>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    changes: ChangeGeneration,
    private readonly repository: WellKnownRepository,
    private readonly archives: WellKnownArchives,
  ) {
    this.answers = new KeptReads(changes, 1);
    this.versions = new KeptReads(changes, ARCHIVE_VERSION_ENTRIES, { lazy: true });
  }

  async index(): Promise<IndexAnswer> {
    this.requireOn();
    return this.answers.get(INDEX_KEY, async () => {
      const versions = await this.repository.publicVersions();
      const digests = await this.archives.digests(versions, true);
      const body = JSON.stringify(
        discoveryIndex(versions.map((v) => ({ ...v, digest: digests.get(v.contentHash) ?? null }))),
      );
      return { body, etag: `sha256:${createHash('sha256').update(body).digest('hex')}` };
    });
  }

  /** The archive named `file`, when it is one the index lists now; else 404. */
  async archive(file: string, ifNoneMatch: string | undefined): Promise<ArchiveAnswer> {
    this.requireOn();
    const wanted = parseArchiveName(file);
    // Kept until the next change, as a download's row: an archive costs the database at most its bytes.
    const version = wanted
      ? await this.versions.get(wanted.name, () => this.repository.publicVersionWithManifest(wanted.name))
      : null;
    if (!version || archiveName(version.name, version.version, version.revision) !== file) throw DomainError.notFound();
    // A revalidation of an archive built before reads no bytes.
    const known = this.archives.knownDigest(version);
    if (known === null) throw DomainError.notFound();
    if (known && ifNoneMatchHits(ifNoneMatch, known)) return { notModified: true, digest: known };
    const archive = await this.archives.archive(version);
    if (!archive) throw DomainError.notFound();
    if (ifNoneMatchHits(ifNoneMatch, archive.digest)) return { notModified: true, digest: archive.digest };
    return { notModified: false, ...archive };
  }

  /** With WELL_KNOWN_INDEX=off nothing is served there: 404, as for any path that names nothing. */
  private requireOn(): void {
    if (this.config.wellKnownIndex !== 'public') throw DomainError.notFound();
  }
}
