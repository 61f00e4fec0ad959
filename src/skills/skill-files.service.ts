// One file of a stored version (docs/api.md#single-files), read from the canonical zip by random access: the
// database returns bounded slices of the blob and the entry is inflated as a stream, so a request
// holds one slice at a time whatever the file's size. Access is decided by the caller.
import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { DomainError } from '../common/errors/domain-error';
import { ifNoneMatchHits } from '../common/http/etag';
import { FileType, fileType } from './file-content-type';
import { findStoredEntry, openStoredEntry, ReadAt, StoredZipError } from '../package/zip-random-access';
import { SkillEntity } from './skill.entity';
import { SkillsRepository } from './skills.repository';
import { requireBytes } from './skills-read.service';

export type SkillFile =
  | { notModified: true; etag: string; immutable: boolean }
  | (FileType & { notModified: false; etag: string; immutable: boolean; size: number; stream: Readable });

const FILE_NOT_FOUND = 'File not found';

@Injectable()
export class SkillFilesService {
  constructor(private readonly skills: SkillsRepository) {}

  /**
   * `path` is compared with the manifest exactly as decoded: no normalisation, so `a/../b`, a
   * trailing slash or a folder name are simply not files. The ETag (the file's sha256) comes from
   * the manifest, so a 304 reads no bytes.
   */
  async open(
    skill: SkillEntity,
    version: number,
    path: string,
    ifNoneMatch: string | undefined,
    immutable: boolean,
    admin = false,
  ): Promise<SkillFile> {
    const v = await this.skills.findVersion(skill.id, version);
    if (!v) throw DomainError.notFound('Version not found');
    requireBytes(skill, v, admin);
    const file = v.manifest.find((f) => f.path === path);
    if (!file) throw DomainError.notFound(FILE_NOT_FOUND);
    const etag = `sha256:${file.sha256}`;
    if (ifNoneMatchHits(ifNoneMatch, etag)) return { notModified: true, etag, immutable };

    const read: ReadAt = async (offset, length) => {
      const bytes = await this.skills.readBlobRange(v.contentHash, offset, length);
      if (!bytes) throw new StoredZipError(`The stored package ${v.contentHash} is missing`);
      return bytes;
    };
    try {
      const entry = await findStoredEntry(read, v.size, `${skill.name}/${path}`);
      if (!entry) throw new StoredZipError(`The stored package has no entry for ${JSON.stringify(path)}`);
      const stream = openStoredEntry(read, entry, { size: file.size, sha256: file.sha256 });
      return { notModified: false, etag, immutable, size: file.size, stream, ...fileType(path) };
    } catch (err) {
      if (err instanceof StoredZipError) {
        throw new DomainError('INTERNAL', `The stored bytes of ${skill.name} v${v.version} are damaged`);
      }
      throw err;
    }
  }
}
