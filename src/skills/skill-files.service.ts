// One file of a stored version (docs/api.md#single-files), read with one ranged request to the
// store for exactly the file's compressed bytes, at the offset recorded with the version
// (docs/storage.md#single-files), and inflated and checked as a stream, so a request holds one
// chunk at a time whatever the file's size. Access is decided by the caller.
import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { DomainError } from '../common/errors/domain-error';
import { ifNoneMatchHits } from '../common/http/etag';
import { FileOffset, fileOffsets } from '../package/file-offsets';
import { openStoredFile } from '../package/zip-random-access';
import { packageKey } from '../storage/blob-keys';
import { BLOB_STORE, BlobStore } from '../storage/blob-store';
import { FileType, fileType } from './file-content-type';
import { SkillBytesRepository, VersionFiles } from './skill-bytes.repository';
import { VERSION_NOT_FOUND } from './skill-lifecycle.repository';
import { SkillEntity } from './skill.entity';
import { requireBytes } from './skills-read.service';

export type SkillFile =
  | { notModified: true; etag: string; immutable: boolean }
  | (FileType & { notModified: false; etag: string; immutable: boolean; size: number; stream: Readable });

const FILE_NOT_FOUND = 'File not found';

@Injectable()
export class SkillFilesService {
  constructor(
    private readonly bytes: SkillBytesRepository,
    @Inject(BLOB_STORE) private readonly store: BlobStore,
  ) {}

  /** A file of `version` of a skill already read (one statement for the version). */
  async open(
    skill: SkillEntity,
    version: number,
    path: string,
    ifNoneMatch: string | undefined,
    immutable: boolean,
    admin = false,
  ): Promise<SkillFile> {
    const v = await this.bytes.findFiles(skill.id, version);
    if (!v) throw DomainError.notFound(VERSION_NOT_FOUND);
    return this.openIn(skill, v, path, ifNoneMatch, immutable, admin);
  }

  /**
   * A file of a version already read. `path` is compared with the manifest exactly as decoded: no
   * normalisation, so `a/../b`, a trailing slash or a folder name are simply not files. The ETag
   * (the file's sha256) comes from the manifest, so a 304 reads no bytes.
   */
  async openIn(
    skill: SkillEntity,
    v: VersionFiles,
    path: string,
    ifNoneMatch: string | undefined,
    immutable: boolean,
    admin: boolean,
  ): Promise<SkillFile> {
    requireBytes(skill, v, admin);
    const index = v.manifest.findIndex((f) => f.path === path);
    if (index < 0) throw DomainError.notFound(FILE_NOT_FOUND);
    const file = v.manifest[index];
    const etag = `sha256:${file.sha256}`;
    if (ifNoneMatchHits(ifNoneMatch, etag)) return { notModified: true, etag, immutable };
    const offset = v.fileOffsets?.[index];
    let source: Readable | null;
    let at: number;
    let compressedSize: number;
    if (offset) {
      [at, compressedSize] = offset;
      source = await this.store.getRange(packageKey(v.contentHash), at, compressedSize);
    } else {
      const whole = await this.recordOffsets(skill, v);
      [at, compressedSize] = whole.offsets[index];
      source = Readable.from([whole.data.subarray(at, at + compressedSize)]);
    }
    if (!source) throw missing(skill, v);
    const stream = openStoredFile(source, `${skill.name}/${path}`, compressedSize, file);
    return { notModified: false, etag, immutable, size: file.size, stream, ...fileType(path) };
  }

  /**
   * A version published by a release before the offsets (on a replica not yet upgraded, during a
   * rolling upgrade) has none: its package is read whole once, checked, and its offsets recorded.
   */
  private async recordOffsets(skill: SkillEntity, v: VersionFiles): Promise<{ data: Buffer; offsets: FileOffset[] }> {
    const data = await this.store.get(packageKey(v.contentHash));
    if (!data) throw missing(skill, v);
    const offsets =
      `sha256:${createHash('sha256').update(data).digest('hex')}` === v.contentHash
        ? fileOffsets(data, skill.name, v.manifest)
        : null;
    if (!offsets) throw new DomainError('INTERNAL', `The stored bytes of ${skill.name} v${v.version} are damaged`);
    await this.bytes.recordOffsets(skill.id, v.version, offsets);
    return { data, offsets };
  }
}

function missing(skill: SkillEntity, v: VersionFiles): DomainError {
  return new DomainError('INTERNAL', `The bytes of ${skill.name} v${v.version} are missing`);
}
