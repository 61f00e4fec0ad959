// The bytes of a version, for users and task tokens (docs/storage.md#downloads,
// docs/api.md#single-files): downloads (a redirect to the store or the bytes) and single files. A
// token reaches only the skills its task resolves to, at the versions it resolves to.
import { Injectable } from '@nestjs/common';
import { tokenReadsTask, tokenSkillRef } from '../access';
import { Principal } from '../auth/principal';
import { DomainError } from '../common/errors/domain-error';
import { ifNoneMatchHits } from '../common/http/etag';
import { parseId } from '../common/http/id.pipe';
import { TaskResolutionService } from '../resolution/task-resolution.service';
import { PackageDelivery, SkillDownload } from '../skills/package-delivery.service';
import { SkillBytesRepository, SkillVersionRow, VersionBytes, VersionFiles } from '../skills/skill-bytes.repository';
import { SkillFile, SkillFilesService } from '../skills/skill-files.service';
import { VERSION_NOT_FOUND } from '../skills/skill-lifecycle.repository';
import { SKILL_NOT_FOUND, SkillReaders } from '../skills/skill-readers';
import { SkillEntity } from '../skills/skill.entity';
import { TASK_NOT_FOUND } from '../tasks/tasks.service';
import { DownloadRows } from './download-rows';

/** A query-string id: absent is undefined, anything but a positive 32-bit integer names nothing. */
export function optionalId(value: string | undefined, notFound: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const id = parseId(value);
  if (id === null) throw DomainError.notFound(notFound);
  return id;
}

@Injectable()
export class PackageReads {
  constructor(
    private readonly resolution: TaskResolutionService,
    private readonly readers: SkillReaders,
    private readonly rows: DownloadRows,
    private readonly bytes: SkillBytesRepository,
    private readonly files: SkillFilesService,
    private readonly delivery: PackageDelivery,
  ) {}

  /**
   * A version's package (docs/storage.md#downloads): access, lifecycle and If-None-Match are decided
   * first, from at most one statement, kept until the next change (DownloadRows; none at all for a
   * task token's 304: its resolved ref names the hash); then a redirect to the store, when
   * `redirect` allows it, or the bytes.
   */
  async download(
    principal: Principal,
    skillId: number,
    query: { version?: string; task_id?: string },
    ifNoneMatch: string | undefined,
    redirect: boolean,
  ): Promise<SkillDownload> {
    const version = optionalId(query.version, VERSION_NOT_FOUND);
    const taskId = optionalId(query.task_id, TASK_NOT_FOUND);
    const immutable = version !== undefined;
    if (principal.kind === 'user') {
      const row = await this.userRow(principal, skillId, version, (id, v) => this.rows.find(id, v));
      return this.delivery.deliver(row.skill, row.version, {
        ifNoneMatch,
        immutable,
        admin: principal.isAdmin,
        redirect,
      });
    }
    if (taskId !== undefined && !tokenReadsTask(principal, taskId)) throw DomainError.notFound(TASK_NOT_FOUND);
    const ref = tokenSkillRef(await this.resolution.resolve(principal, principal.taskId), skillId, version);
    if (!ref) throw DomainError.notFound(SKILL_NOT_FOUND);
    // The resolved set holds no revoked version: the hash alone decides a 304.
    if (ifNoneMatchHits(ifNoneMatch, ref.content_hash)) return { kind: 'not_modified', contentHash: ref.content_hash };
    const row = await this.rows.find(skillId, ref.version);
    if (!row?.version) throw DomainError.notFound(SKILL_NOT_FOUND);
    return this.delivery.deliver(row.skill, row.version, { ifNoneMatch, immutable, admin: false, redirect });
  }

  /** The skill `skillId` at `version` (else its latest), read in one statement, when `principal` may read it. */
  private async userRow<V extends VersionBytes>(
    principal: Principal & { kind: 'user' },
    skillId: number,
    version: number | undefined,
    read: (skillId: number, version: number | null) => Promise<SkillVersionRow<V> | null>,
  ): Promise<{ skill: SkillEntity; version: V }> {
    const row = await read(skillId, version ?? null);
    const skill = await this.readers.readable(principal, row?.skill ?? null);
    if (!row!.version) throw DomainError.notFound(VERSION_NOT_FOUND);
    return { skill, version: row!.version };
  }

  /** A file's skill and version with its manifest and offsets, in one statement. */
  private async fileRow(
    principal: Principal,
    skillId: number,
    version: number | undefined,
  ): Promise<{ skill: SkillEntity; version: VersionFiles; immutable: boolean; admin: boolean }> {
    const immutable = version !== undefined;
    const read = (id: number, v: number | null) => this.bytes.findVersionFiles(id, v);
    if (principal.kind === 'user') {
      return { ...(await this.userRow(principal, skillId, version, read)), immutable, admin: principal.isAdmin };
    }
    const ref = tokenSkillRef(await this.resolution.resolve(principal, principal.taskId), skillId, version);
    const row = ref ? await read(skillId, ref.version) : null;
    if (!row?.version) throw DomainError.notFound(SKILL_NOT_FOUND);
    return { skill: row.skill, version: row.version, immutable, admin: false };
  }

  /** One file of a version (docs/api.md#single-files), with the same access as the manifest. */
  async file(
    principal: Principal,
    skillId: number,
    path: string,
    version: number | undefined,
    ifNoneMatch?: string,
  ): Promise<SkillFile> {
    const row = await this.fileRow(principal, skillId, version);
    return this.files.openIn(row.skill, row.version, path, ifNoneMatch, row.immutable, row.admin);
  }

  /** One file's bytes (no conditional request), and the version they were read from. */
  async openFile(
    principal: Principal,
    skillId: number,
    path: string,
    version: number | undefined,
  ): Promise<Extract<SkillFile, { notModified: false }> & { version: number }> {
    const row = await this.fileRow(principal, skillId, version);
    const file = await this.files.openIn(row.skill, row.version, path, undefined, row.immutable, row.admin);
    if (file.notModified) throw new Error('a file read without If-None-Match answered 304');
    return { ...file, version: row.version.version };
  }
}
